// Full end-to-end run of the code verifier on the bundled data (`npm run e2e:code`):
// every canonical HumanEval / HumanEval+ / MBPP+ solution must score exactly 1 with examples/code.yaml, and the
// mutated solutions' kill rate is reported — for HumanEval mutants both against the original tests and against
// the HumanEval+ tests. Writes scored files to out/code/. Exit 1 when a canonical solution does not score 1.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const out = join(root, "out/code");
mkdirSync(out, { recursive: true });
const read = (p) => readFileSync(p, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));

function score(name, file) {
  const started = Date.now();
  const dest = join(out, `${name}.out.jsonl`);
  const r = spawnSync(process.execPath, [join(root, "bin/rewardkit.js"), "score", file, "--spec", join(root, "examples/code.yaml"), "-o", dest], { cwd: root, encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.status !== 0) {
    console.error(r.stderr || r.stdout);
    throw new Error(`${name}: rewardkit score exited ${r.status}`);
  }
  const rows = read(dest);
  const tests = rows.reduce((n, x) => n + (x.components.tests.details?.tests ?? 0), 0);
  return { rows, seconds: (Date.now() - started) / 1000, tests };
}

let bad = false;
const lines = [];
for (const name of ["humaneval", "humanevalplus", "mbppplus"]) {
  const { rows, seconds, tests } = score(name, join(root, "examples/data", `${name}.jsonl`));
  const ones = rows.filter((x) => x.reward === 1).length;
  if (ones !== rows.length) bad = true;
  lines.push(`${name.padEnd(14)} ${ones}/${rows.length} canonical solutions score 1   ${tests} tests in ${seconds.toFixed(1)} s (${(tests / seconds).toFixed(0)} tests/s)`);
  for (const x of rows.filter((r) => r.reward !== 1)) lines.push(`  not 1: ${x.id} ${JSON.stringify(x.components.tests).slice(0, 300)}`);
}

// Mutants, and HumanEval mutants re-targeted at the HumanEval+ tests of the same task.
const mutantsFile = join(root, "examples/data/code-mutants.jsonl");
const plus = new Map(read(join(root, "examples/data/humanevalplus.jsonl")).map((r) => [r.id, r.reference]));
const retargeted = read(mutantsFile)
  .filter((m) => m.metadata.dataset === "humaneval" && plus.has(m.metadata.task))
  .map((m) => ({ ...m, reference: plus.get(m.metadata.task), metadata: { ...m.metadata, dataset: "humanevalplus" } }));
writeFileSync(join(out, "mutants-humanevalplus.jsonl"), retargeted.map((m) => JSON.stringify(m)).join("\n") + "\n");
const mutants = [...score("code-mutants", mutantsFile).rows, ...score("mutants-humanevalplus", join(out, "mutants-humanevalplus.jsonl")).rows];
const by = new Map();
for (const m of mutants) {
  const d = m.metadata.dataset;
  const e = by.get(d) ?? { n: 0, killed: 0, unscorable: 0, survivors: [], kinds: new Map() };
  e.n++;
  const c = m.components.tests;
  if (c.status !== "ok") e.unscorable++;
  const killed = c.status === "ok" && m.reward < 1;
  if (killed) e.killed++;
  else e.survivors.push(`${m.metadata.task} (${m.metadata.mutation})`);
  const k = e.kinds.get(m.metadata.mutation) ?? [0, 0];
  e.kinds.set(m.metadata.mutation, [k[0] + (killed ? 1 : 0), k[1] + 1]);
  by.set(d, e);
}
lines.push("");
for (const [d, e] of by) {
  const kinds = [...e.kinds].map(([k, [a, b]]) => `${k} ${a}/${b}`).join(", ");
  lines.push(`mutants vs ${d.padEnd(13)} kill rate ${((100 * e.killed) / e.n).toFixed(1)}% (${e.killed}/${e.n}; unscorable ${e.unscorable})  by mutation: ${kinds}`);
  lines.push(`  survivors: ${e.survivors.join(", ") || "none"}`);
}
const report = lines.join("\n");
console.log(report);
writeFileSync(join(out, "e2e-summary.txt"), report + "\n");
process.exit(bad ? 1 : 0);
