// ProcessBench first-error F1 of the rule-based step checker (`process` + `stepVerifier: arithmetic`, the spec
// examples/process-arithmetic.yaml), on the bundled subsets, development (Qwen generators) vs held-out (Llama),
// next to the "always no error" and "first step is wrong" baselines. Run: npm run eval:process
import { loadProcessBench, processBenchMetrics } from "../dist/process/processbench.js";
import { firstError } from "../dist/verifiers/process/aggregate.js";
import { createScorer } from "../dist/engine/scorer.js";
import { loadSpec } from "../dist/spec/load.js";

const spec = loadSpec(new URL("../examples/process-arithmetic.yaml", import.meta.url).pathname);
const scorer = createScorer(spec, { concurrency: 1 });
const fmt = (x) => (x === null ? "  -   " : x.toFixed(4));
try {
  console.log(
    "file                 part       n   err  | arithmetic: acc_err acc_ok  F1    | 'no error' F1 | 'step 0' F1",
  );
  for (const file of ["gsm8k.json.gz", "math-every4.json.gz"]) {
    const data = await loadProcessBench(new URL(`../test/fixtures/processbench/${file}`, import.meta.url).pathname);
    const preds = new Map();
    for (const r of data) {
      const { results } = await scorer.score({
        id: r.id,
        group: r.id,
        completion: r.steps.join("\n\n"),
        steps: r.steps,
      });
      preds.set(r.id, firstError(results[0].details?.step_scores ?? [], spec.components[0].options.threshold));
    }
    for (const [part, rows] of [
      ["dev", data.filter((r) => r.generator.startsWith("Qwen"))],
      ["held-out", data.filter((r) => !r.generator.startsWith("Qwen"))],
    ]) {
      const labels = rows.map((r) => r.label);
      const m = processBenchMetrics(
        labels,
        rows.map((r) => preds.get(r.id)),
      );
      const none = processBenchMetrics(
        labels,
        rows.map(() => -1),
      );
      const zero = processBenchMetrics(
        labels,
        rows.map(() => 0),
      );
      console.log(
        `${file.padEnd(20)} ${part.padEnd(8)} ${String(rows.length).padStart(4)} ${String(m.erroneous.n).padStart(5)}  |            ${fmt(m.erroneous.accuracy)}  ${fmt(m.correct.accuracy)} ${fmt(m.f1)} |      ${fmt(none.f1)}   |    ${fmt(zero.f1)}`,
      );
    }
  }
} finally {
  await scorer.close();
}
