// Builds examples/data/dense-rollouts.jsonl from test/fixtures/tgi-logprob-snapshots (TGI integration-test
// snapshots, commit db931fcf, Apache-2.0): real per-token log-probs of one token sequence under two different
// servings of a model. Run once from the repository root; the output is committed.
//
// Two recorded /generate responses form a pair when they come from different snapshot folders (different models,
// quantizations or kernels) and have the same prefill token ids and the same generated token ids: the second
// serving's log-probs are then teacher-forced log-probs of the first one's tokens, as on-policy distillation needs.
// Per pair, one rollout:
// - completion = the student's `generated_text`, completion_ids = the generated token ids (special tokens included:
//   they are sampled tokens), prompt = the decoded prefill when recorded, else null;
// - student_logprobs / policy_logprobs = the first folder's log-probs, teacher_logprobs / ref_logprobs = the second's;
// - id = `<student file>#<k>~<teacher folder>`, group = the student's file.
// Pairs where any generated token has a null log-prob are skipped.
import { writeFileSync } from "node:fs";
import { snapshotFiles } from "./tgi-snapshots.mjs";

const root = new URL("../test/fixtures/tgi-logprob-snapshots/__snapshots__/", import.meta.url);
const out = new URL("../examples/data/dense-rollouts.jsonl", import.meta.url);

const responses = [];
for (const { dir, file, items } of snapshotFiles(root)) {
  items.forEach((it, k) => {
    if (!it || typeof it !== "object" || !it.details || !Array.isArray(it.details.tokens)) return;
    const d = it.details;
    const prefill = Array.isArray(d.prefill) ? d.prefill : [];
    responses.push({
      dir,
      file: `${dir}/${file.replace(/\.json$/, "")}`,
      k,
      text: it.generated_text,
      key: JSON.stringify([prefill.map((p) => p.id), d.tokens.map((t) => t.id)]),
      prompt: prefill.length > 1 ? prefill.map((p) => p.text).join("") : null,
      ids: d.tokens.map((t) => t.id),
      lps: d.tokens.map((t) => t.logprob),
    });
  });
}
const rows = [];
const seen = new Set();
let skipped = 0;
for (const s of responses) {
  for (const t of responses) {
    if (t.dir === s.dir || t.key !== s.key) continue;
    const pair = `${s.file}#${s.k}~${t.dir}`;
    if (seen.has(pair)) continue; // the teacher folder's other files repeat the same log-probs
    seen.add(pair);
    if ([...s.lps, ...t.lps].some((x) => typeof x !== "number")) {
      skipped++;
      continue;
    }
    rows.push({
      id: pair,
      group: s.file,
      prompt: s.prompt,
      completion: s.text,
      completion_ids: s.ids,
      student_logprobs: s.lps,
      teacher_logprobs: t.lps,
      policy_logprobs: s.lps,
      ref_logprobs: t.lps,
      metadata: {
        source: `text-generation-inference@db931fcf integration-tests/models/__snapshots__/${s.file}.json #${s.k}`,
        teacher: `${t.file}.json #${t.k}`,
      },
    });
  }
}
writeFileSync(out, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
console.log(
  `wrote ${rows.length} rollouts (${rows.reduce((n, r) => n + r.completion_ids.length, 0)} tokens), skipped ${skipped}`,
);
