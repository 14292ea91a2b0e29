// Reduces ../shared/data/reward-bench-bon (RewardBench AlpacaEval best-of-16 annotations, Apache-2.0; see the
// SOURCE.md copied beside the output) to what the judge-preference test reads: instruction, the recorded
// preference and the judge token's top-5 log-probs. Output: test/fixtures/reward-bench-bon/judgments.jsonl.gz.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { gunzipSync, gzipSync } from "node:zlib";

const src = new URL("../../shared/data/reward-bench-bon/", import.meta.url);
const outDir = new URL("../test/fixtures/reward-bench-bon/", import.meta.url);
mkdirSync(outDir, { recursive: true });
const lines = [];
for (let i = 0; i <= 10; i++) {
  const rows = JSON.parse(
    gunzipSync(readFileSync(new URL(`tulu-2-dpo-13b.${i}/annotations.json.gz`, src))).toString("utf8"),
  );
  for (const r of rows) {
    const content = r.raw_completion?.logprobs?.content;
    lines.push(
      JSON.stringify({
        sample: i,
        instruction: r.instruction,
        preference: r.preference,
        raw_completion: content
          ? { logprobs: { content: content.map((c) => ({ token: c.token, top_logprobs: c.top_logprobs })) } }
          : null,
      }),
    );
  }
}
writeFileSync(new URL("judgments.jsonl.gz", outDir), gzipSync(lines.join("\n") + "\n", { level: 9 }));
copyFileSync(new URL("SOURCE.md", src), new URL("SOURCE.md", outDir));
console.log(`wrote ${lines.length} judgments`);
