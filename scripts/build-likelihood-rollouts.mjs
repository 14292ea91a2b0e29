// Converts ../shared/data/tgi-logprob-snapshots (TGI integration-test snapshots, commit db931fcf) into
// examples/data/likelihood-rollouts.jsonl: one rollout per recorded /generate response, with the real per-token
// log-probs of its generated tokens as `reference_logprobs`. Run once from the repository root; the output is committed.
//
// - id = `<dir>/<file>#<k>`, group = `<dir>/<file>` (the responses of one snapshot answer the same request).
// - completion = `generated_text`; reference = the generated tokens' texts joined (the span the log-probs belong to).
// - reference_logprobs = `details.tokens[].logprob` without special tokens (EOS and friends are not part of the
//   answer text, and TGI gives some of them a null log-prob); responses with no such token or a null log-prob on a
//   non-special token are skipped.
// - prompt = the decoded prefill tokens when the snapshot recorded them (decoder_input_details) and they hold the
//   prompt; null otherwise (TGI's snapshots do not store the request).
// - completion_tokens = `details.generated_tokens`.
import { writeFileSync } from "node:fs";
import { snapshotFiles } from "./tgi-snapshots.mjs";

const root = new URL("../../shared/data/tgi-logprob-snapshots/__snapshots__/", import.meta.url);
const out = new URL("../examples/data/likelihood-rollouts.jsonl", import.meta.url);

const rows = [];
let skipped = 0;
for (const { dir, file, items: all } of snapshotFiles(root)) {
  const items = all.filter((it) => it && typeof it === "object" && it.details && Array.isArray(it.details.tokens));
  const group = `${dir}/${file.replace(/\.json$/, "")}`;
  items.forEach((it, k) => {
    const d = it.details;
    const toks = d.tokens.filter((t) => !t.special);
    if (toks.length === 0 || toks.some((t) => typeof t.logprob !== "number" || !Number.isFinite(t.logprob))) {
      skipped++;
      return;
    }
    const prefill = Array.isArray(d.prefill) ? d.prefill : [];
    // Encoder-decoder models (mt0, t5) prefill only the decoder start token `<pad>`: that is not the prompt.
    const prompt = prefill.length > 1 ? prefill.map((p) => p.text).join("") : null;
    rows.push({
      id: `${group}#${k}`,
      group,
      prompt,
      completion: it.generated_text,
      reference: toks.map((t) => t.text).join(""),
      reference_logprobs: toks.map((t) => t.logprob),
      completion_tokens: d.generated_tokens,
      metadata: {
        source: `text-generation-inference@db931fcf integration-tests/models/__snapshots__/${dir}/${file}`,
        finish_reason: d.finish_reason,
        special_tokens_dropped: d.tokens.length - toks.length,
        seed: d.seed ?? null,
      },
    });
  });
}
writeFileSync(out, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
console.log(
  `wrote ${rows.length} rollouts (${rows.reduce((n, r) => n + r.reference_logprobs.length, 0)} token log-probs), skipped ${skipped}`,
);
