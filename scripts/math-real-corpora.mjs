// Builds the labelled real-model-output corpora of the math verifier (run once; the outputs are committed):
//   test/fixtures/math-gsm8k-gpt3.jsonl.gz   GPT-3 (6B / 175B, fine-tuned / verifier-ranked) solutions of the
//                                            GSM8K test set with OpenAI's is_correct labels (5 276 rows)
//   test/fixtures/math-gaokao-mcq.jsonl.gz   GPT-4-0314 answers to GAOKAO-Bench multiple-choice questions with
//                                            the repo's extracted letter (the 467 items with one answer)
//   test/fixtures/math-gsm8k-golds.jsonl.gz  GSM8K test solutions (body + gold), from which the tests write
//                                            answers in the GPT-3 / money / trailing-noun styles
// Usage: node scripts/math-real-corpora.mjs <grade-school-math checkout> [shared data folder, default ../shared/data]
//   the checkout is openai/grade-school-math at 3101c7d5072418e28b9008a6636bde82a006892c (MIT).
import { readFileSync, writeFileSync } from "node:fs";
import { gzipSync, gunzipSync } from "node:zlib";
import { join } from "node:path";

const [gsmRepo, data = new URL("../../shared/data", import.meta.url).pathname] = process.argv.slice(2);
if (!gsmRepo) throw new Error("usage: node scripts/math-real-corpora.mjs <grade-school-math checkout> [shared data]");
const out = (name, rows) => {
  const file = new URL(`../test/fixtures/${name}`, import.meta.url);
  writeFileSync(file, gzipSync(rows.map((r) => JSON.stringify(r)).join("\n") + "\n", { level: 9 }));
  console.log(`${name}: ${rows.length} rows`);
};

// GSM8K GPT-3 solutions. The gold is the number after `A: ` on the last line of `ground_truth`.
const MODELS = ["6b_finetuning", "6b_verification", "175b_finetuning", "175b_verification"];
const gpt3 = [];
readFileSync(join(gsmRepo, "grade_school_math/data/example_model_solutions.jsonl"), "utf8")
  .split("\n")
  .filter((l) => l.trim())
  .forEach((l, i) => {
    const r = JSON.parse(l);
    const gold = /A:\s*(.+)\s*$/.exec(r.ground_truth)?.[1]?.trim().replace(/,/g, "");
    if (gold === undefined) throw new Error(`row ${i}: no gold in ground_truth`);
    for (const m of MODELS)
      gpt3.push({ id: `gsm-${i}-${m}`, source: m, completion: r[m].solution, reference: gold, label: r[m].is_correct });
  });
out("math-gsm8k-gpt3.jsonl.gz", gpt3);

// GAOKAO-Bench multiple choice: items whose extracted answer is one string (one letter, or several for physics).
const gaokao = [];
for (const part of ["Math_I", "Math_II", "Physics"]) {
  const file = join(data, `gaokao-bench-gpt4-math/gpt-4-0314_2010-2022_${part}_MCQs.json.gz`);
  for (const e of JSON.parse(gunzipSync(readFileSync(file)).toString("utf8")).example) {
    if (e.model_answer.length !== 1) continue;
    gaokao.push({
      id: `${part}-${e.index}`,
      source: part,
      completion: e.model_output,
      reference: e.model_answer[0],
      standard: e.standard_answer.join(""),
    });
  }
}
out("math-gaokao-mcq.jsonl.gz", gaokao);

// GSM8K test golds: the human solution's body (calculator notes kept) and its final answer.
const golds = readFileSync(join(data, "gsm8k/test.jsonl"), "utf8")
  .split("\n")
  .filter((l) => l.trim())
  .map((l, i) => {
    const r = JSON.parse(l);
    const [body, gold] = r.answer.split("####");
    return { id: `gsm-${i}`, body: body.trimEnd(), gold: gold.trim() };
  });
out("math-gsm8k-golds.jsonl.gz", golds);
