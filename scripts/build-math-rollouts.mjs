// Converts ../shared/data/qwen25-math-rollouts (100 MATH problems x 8 responses, one problem per line)
// into examples/data/math-rollouts.jsonl (one rollout per line). Run once; the output is committed.
import { readFileSync, writeFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";

const src = new URL("../../shared/data/qwen25-math-rollouts/math_cot_100.jsonl.gz", import.meta.url);
const out = new URL("../examples/data/math-rollouts.jsonl", import.meta.url);
const lines = gunzipSync(readFileSync(src))
  .toString("utf8")
  .split("\n")
  .filter((l) => l.trim());
const rows = [];
for (const line of lines) {
  const p = JSON.parse(line);
  p.response.forEach((response, k) => {
    rows.push({
      id: `math-${p.idx}-${k}`,
      group: `math-${p.idx}`,
      prompt: p.question,
      completion: response,
      reference: p.answer,
      labels: { peer_correct: p.score[k], peer_pred: p.pred[k] },
      metadata: {
        level: p.level,
        source: "Qwen2.5-Math evaluation/data/eval_rm_maj_example/math_cot_100.jsonl",
        idx: p.idx,
      },
    });
  });
}
writeFileSync(out, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
console.log(`wrote ${rows.length} rollouts`);
