// Full end-to-end run of the code verifier on the bundled data (`npm run e2e:code -- [options]`):
//   1. back to back: the 706 canonical HumanEval / HumanEval+ / MBPP+ solutions, --repeat times in one engine per
//      concurrency (default 1, 2 and 8; each repetition made distinct by a comment, so no cache answers), under a
//      PID 1 that never reaps where `unshare --pid` works (as in a container started without --init): every one
//      must score 1, with zero sandbox_error;
//   2. attacks: the four families of the red-team report (patch the harness, forge report lines with a nonce,
//      an always-equal object, look the expected outputs up: test/code-hacks/python/) on all 706 tasks: none may
//      score above 0;
//   3. mutants: the kill rate of the mutated solutions (HumanEval mutants also against the HumanEval+ tests);
//   4. formats users bring (examples/data/deepcoder/): the 200 LeetCode reference solutions with their native
//      `{"functional": ...}` reference, as an object and as a JSON string, must score 1 and their None-returning
//      mutants 0; an echo and an empty program on the 408 Codeforces and 165 CodeContests stdin/stdout sets must
//      score 0 with status ok (never unscorable).
// Options: --repeat N (default 1), --concurrency 1,2,8, --no-attacks, --no-mutants, --no-formats, --no-pid1,
// --limit N (the first N tasks of each data set only: a smoke run).
// Prints a table, writes out/code/e2e-summary.txt; exit 1 when a check above fails. Heavy: run it with `nice`.
import { spawnSync } from "node:child_process";
import { gunzipSync } from "node:zlib";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const out = join(root, "out/code");
mkdirSync(out, { recursive: true });
const argv = process.argv.slice(2);
const opt = (name, def) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : def;
};
const repeat = Number(opt("repeat", "1"));
const concurrencies = opt("concurrency", "1,2,8").split(",").map(Number);
const read = (p) =>
  readFileSync(p, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
const pid1 =
  !argv.includes("--no-pid1") &&
  isRoot &&
  spawnSync("/usr/bin/unshare", ["--pid", "--fork", "--mount-proc", "true"]).status === 0;

function spec(name, concurrency, extra = "") {
  const file = join(out, `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}\ncomponents:\n  - name: tests\n    type: code\n    language: python\n    score: all\n    concurrency: ${concurrency}\n${extra}`,
  );
  return file;
}

function score(name, file, specFile, concurrency, wrap = []) {
  const started = Date.now();
  const dest = join(out, `${name}.out.jsonl`);
  const cmd = [
    ...wrap,
    process.execPath,
    join(root, "bin/rewardkit.js"),
    "score",
    file,
    "--spec",
    specFile,
    "--concurrency",
    String(concurrency),
    "-o",
    dest,
    "-q",
  ];
  const r = spawnSync(cmd[0], cmd.slice(1), { cwd: root, encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.status !== 0) {
    console.error(r.stderr || r.stdout);
    throw new Error(`${name}: rewardkit score exited ${r.status}`);
  }
  return { rows: read(dest), seconds: (Date.now() - started) / 1000 };
}

const names = ["humaneval", "humanevalplus", "mbppplus"];
const limit = Number(opt("limit", "0"));
const canonical = names.flatMap((n) =>
  read(join(root, "examples/data", `${n}.jsonl`))
    .slice(0, limit > 0 ? limit : undefined)
    .map((r) => ({ ...r, metadata: { ...(r.metadata ?? {}), dataset: n } })),
);
let bad = false;
const lines = [];
const log = (s) => {
  lines.push(s);
  console.log(s);
};

// 1. back to back
log(
  `canonical solutions (${canonical.length}: ${names.join(", ")}), ${repeat} run(s) back to back in one engine per concurrency${pid1 ? ", under a PID 1 that never reaps" : ""}`,
);
log(
  `${"concurrency".padEnd(12)}${"run".padEnd(5)}${"score 1".padStart(10)}${"sandbox_error".padStart(15)}${"other".padStart(7)}${"seconds".padStart(10)}`,
);
for (const c of concurrencies) {
  const rows = [];
  for (let k = 0; k < repeat; k++) {
    for (const r of canonical)
      rows.push({
        ...r,
        id: `${r.id}#${k}`,
        completion: r.completion.replace("```python\n", `\`\`\`python\n# run ${k}\n`),
        metadata: { ...r.metadata, run: k },
      });
  }
  const file = join(out, `canonical-c${c}.jsonl`);
  writeFileSync(file, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  const { rows: scored, seconds } = score(
    `canonical-c${c}`,
    file,
    spec(`canonical-c${c}`, c),
    c,
    pid1 ? ["/usr/bin/unshare", "--pid", "--fork", "--mount-proc"] : [],
  );
  for (let k = 0; k < repeat; k++) {
    const mine = scored.filter((r) => r.metadata.run === k);
    const ones = mine.filter((r) => r.reward === 1).length;
    const se = mine.filter((r) => r.components.tests.reason === "sandbox_error").length;
    if (ones !== canonical.length || se > 0) bad = true;
    log(
      `${String(c).padEnd(12)}${String(k + 1).padEnd(5)}${`${ones}/${canonical.length}`.padStart(10)}${String(se).padStart(15)}${String(mine.length - ones - se).padStart(7)}${(k === repeat - 1 ? seconds.toFixed(1) : "").padStart(10)}`,
    );
    for (const x of mine.filter((r) => r.reward !== 1).slice(0, 3))
      log(`  not 1: ${x.id} ${JSON.stringify(x.components.tests).slice(0, 240)}`);
  }
}

// 2. attacks
if (!argv.includes("--no-attacks")) {
  const families = ["patch-harness", "forge-nonce", "always-equal", "lookup"];
  const rows = [];
  for (const f of families) {
    const src = readFileSync(join(root, "test/code-hacks/python", `${f}.py`), "utf8");
    for (const r of canonical)
      rows.push({
        id: `${f}|${r.id}`,
        group: r.id,
        completion: "```python\n" + src.replaceAll("__ENTRY__", r.reference.entryPoint) + "\n```",
        reference: r.reference,
        metadata: { family: f, dataset: r.metadata.dataset },
      });
  }
  const file = join(out, "attacks.jsonl");
  writeFileSync(file, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  const { rows: scored, seconds } = score("attacks", file, spec("attacks", 2), 2);
  log("");
  log(`attack families on all ${canonical.length} tasks (${seconds.toFixed(1)} s): rollouts scoring above 0`);
  for (const f of families) {
    const mine = scored.filter((r) => r.metadata.family === f);
    const won = mine.filter((r) => (r.reward ?? 0) > 0);
    if (won.length) bad = true;
    const by = names
      .map(
        (n) =>
          `${n} ${won.filter((r) => r.metadata.dataset === n).length}/${mine.filter((r) => r.metadata.dataset === n).length}`,
      )
      .join(", ");
    log(`  ${f.padEnd(14)} ${String(won.length).padStart(4)}/${mine.length}   (${by})`);
  }
}

// 3. mutants, and HumanEval mutants re-targeted at the HumanEval+ tests of the same task
if (!argv.includes("--no-mutants")) {
  const mutantsFile = join(root, "examples/data/code-mutants.jsonl");
  const plus = new Map(read(join(root, "examples/data/humanevalplus.jsonl")).map((r) => [r.id, r.reference]));
  const retargeted = read(mutantsFile)
    .filter((m) => m.metadata.dataset === "humaneval" && plus.has(m.metadata.task))
    .map((m) => ({
      ...m,
      reference: plus.get(m.metadata.task),
      metadata: { ...m.metadata, dataset: "humanevalplus" },
    }));
  writeFileSync(join(out, "mutants-humanevalplus.jsonl"), retargeted.map((m) => JSON.stringify(m)).join("\n") + "\n");
  const s = spec("mutants", 2);
  const mutants = [
    ...score("code-mutants", mutantsFile, s, 2).rows,
    ...score("mutants-humanevalplus", join(out, "mutants-humanevalplus.jsonl"), s, 2).rows,
  ];
  const by = new Map();
  for (const m of mutants) {
    const d = m.metadata.dataset;
    const e = by.get(d) ?? { n: 0, killed: 0, unscorable: 0, survivors: [] };
    e.n++;
    const c = m.components.tests;
    if (c.status !== "ok") e.unscorable++;
    if (c.status === "ok" && m.reward < 1) e.killed++;
    else e.survivors.push(`${m.metadata.task} (${m.metadata.mutation})`);
    by.set(d, e);
  }
  log("");
  for (const [d, e] of by) {
    log(
      `mutants vs ${d.padEnd(13)} kill rate ${((100 * e.killed) / e.n).toFixed(1)}% (${e.killed}/${e.n}; unscorable ${e.unscorable})`,
    );
    log(`  survivors: ${e.survivors.join(", ") || "none"}`);
  }
}

// 4. formats users bring
if (!argv.includes("--no-formats")) {
  const gz = (name) =>
    JSON.parse(gunzipSync(readFileSync(join(root, "examples/data/deepcoder", `${name}.json.gz`))).toString("utf8"));
  const py = (code) => "```python\n" + code + "\n```";
  // The reference solution with every method of Solution replaced by one that returns None.
  const mutant =
    "\n\nfor _n, _f in list(vars(Solution).items()):\n    if callable(_f) and not _n.startswith('__'):\n        setattr(Solution, _n, lambda self, *a, **k: None)\n";
  const lc = gz("leetcode").slice(0, limit > 0 ? limit : undefined);
  const rows = lc.flatMap((e, i) => [
    { id: `lc${i}`, group: `lc${i}`, completion: py(e.solutions), reference: e.tests, metadata: { set: "object" } },
    {
      id: `lc${i}-string`,
      group: `lc${i}`,
      completion: py(e.solutions),
      reference: JSON.stringify(e.tests),
      metadata: { set: "JSON string" },
    },
    {
      id: `lc${i}-mutant`,
      group: `lc${i}`,
      completion: py(e.solutions + mutant),
      reference: e.tests,
      metadata: { set: "None mutant" },
    },
  ]);
  const stdin = [
    ...gz("codeforces").map((e) => ["codeforces", e.tests]),
    ...gz("code_contests").map((e) => ["code_contests", e.tests]),
  ].slice(0, limit > 0 ? 2 * limit : undefined);
  for (const [i, [set, tests]] of stdin.entries()) {
    rows.push({
      id: `in${i}-echo`,
      group: `in${i}`,
      completion: py("import sys\nsys.stdout.write(sys.stdin.read())"),
      reference: tests,
      metadata: { set: `${set} echo` },
    });
    rows.push({
      id: `in${i}-empty`,
      group: `in${i}`,
      completion: py("pass"),
      reference: tests,
      metadata: { set: `${set} empty` },
    });
  }
  const file = join(out, "formats.jsonl");
  writeFileSync(file, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  const { rows: scored, seconds } = score("formats", file, spec("formats", 2), 2);
  log("");
  log(`formats users bring (examples/data/deepcoder, ${seconds.toFixed(1)} s): reward 1 / status ok / rollouts`);
  const sets = [...new Set(scored.map((r) => r.metadata.set))];
  for (const set of sets) {
    const mine = scored.filter((r) => r.metadata.set === set);
    const ones = mine.filter((r) => r.reward === 1).length;
    const ok = mine.filter((r) => r.components.tests.status === "ok").length;
    const want = set === "object" || set === "JSON string" ? mine.length : 0;
    if (ones !== want || ok !== mine.length) bad = true;
    log(
      `  ${set.padEnd(20)} ${String(ones).padStart(4)} / ${String(ok).padStart(4)} / ${mine.length}   (want ${want} / ${mine.length} / ${mine.length})`,
    );
    for (const x of mine.filter((r) => (r.reward === 1) !== want > 0 || r.components.tests.status !== "ok").slice(0, 3))
      log(`    ${x.id}: ${JSON.stringify(x.components.tests).slice(0, 240)}`);
  }
}

writeFileSync(join(out, "e2e-summary.txt"), lines.join("\n") + "\n");
process.exit(bad ? 1 : 0);
