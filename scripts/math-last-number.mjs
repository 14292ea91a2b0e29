// Measures the `last-number` fallback of the math verifier's default style (docs/math.md §1): on the GSM8K solutions
// written by GPT-3 (test/fixtures/math-gsm8k-gpt3.jsonl.gz) with their final `A: n` line removed — a model that
// forgot its answer format — and on the bundled Qwen rollouts, agreement with the labels with the default
// strategies and with the same list without `last-number`. Run after `npm run build`:
//   node scripts/math-last-number.mjs
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { EXTRACT_STRATEGIES, verifyMath } from "../dist/verifiers/math/index.js";

const gz = (f) =>
  gunzipSync(readFileSync(new URL(f, import.meta.url)))
    .toString("utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
const jsonl = (f) =>
  readFileSync(new URL(f, import.meta.url), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
const withoutLast = EXTRACT_STRATEGIES.filter((s) => s !== "last-number");

async function measure(name, rows) {
  for (const [label, opts] of [
    ["default (with last-number)", {}],
    ["without last-number", { extract: withoutLast }],
  ]) {
    let agree = 0;
    let fp = 0;
    let unscorable = 0;
    for (const r of rows) {
      const res = await verifyMath(r.completion, r.reference, opts);
      const got = res.score === 1;
      if (got === r.label) agree++;
      if (got && !r.label) fp++;
      if (res.status === "unscorable") unscorable++;
    }
    console.log(
      `${name}, ${label}: agreement ${agree}/${rows.length}, false positives ${fp}, unscorable ${unscorable}`,
    );
  }
}

const gpt3 = gz("../test/fixtures/math-gsm8k-gpt3.jsonl.gz").map((r) => ({
  ...r,
  completion: r.completion.replace(/\nA:[^\n]*$/, ""),
}));
await measure("GSM8K GPT-3 solutions without their A: line (5 276)", gpt3);
const qwen = jsonl("../examples/data/math-rollouts.jsonl").map((r) => ({
  completion: r.completion,
  reference: r.reference,
  label: r.labels.peer_correct,
}));
await measure("bundled Qwen rollouts (800)", qwen);
