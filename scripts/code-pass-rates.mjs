// VeRPO statistics, first pass: reads rollouts scored by a `code` component and writes the same rollouts with
// `reference.passRates` (per-test pass rate over every rollout of the same group, from `details.passMask`), ready
// for a second pass with `score: weighted`. Same input → same output: the rates depend on the whole batch, never on
// the order of work inside it.
//
//   node scripts/code-pass-rates.mjs scored.jsonl [component=tests] > with-rates.jsonl
import { readFileSync } from "node:fs";

const [file, component = "tests"] = process.argv.slice(2);
if (!file) {
  console.error("usage: node scripts/code-pass-rates.mjs <scored.jsonl> [component]");
  process.exit(1);
}
const rows = readFileSync(file, "utf8")
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l));
const sums = new Map(); // group → { n, passes: number[] }
for (const r of rows) {
  const mask = r.components?.[component]?.details?.passMask;
  if (typeof mask !== "string") continue;
  const s = sums.get(r.group) ?? { n: 0, passes: new Array(mask.length).fill(0) };
  if (s.passes.length !== mask.length) continue; // a different test count: not the same tests
  s.n++;
  for (let j = 0; j < mask.length; j++) if (mask[j] === "1") s.passes[j]++;
  sums.set(r.group, s);
}
for (const r of rows) {
  const s = sums.get(r.group);
  const { reward: _r, components: _c, advantage: _a, ...rollout } = r;
  if (s && rollout.reference && typeof rollout.reference === "object")
    rollout.reference = { ...rollout.reference, passRates: s.passes.map((p) => p / s.n) };
  process.stdout.write(JSON.stringify(rollout) + "\n");
}
