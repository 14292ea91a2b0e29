import { z } from "zod";
import type { VerifierDefinition } from "../types.js";
import { bestOver, fMeasure, overlap } from "./similarity.js";

const options = z.strictObject({});
export type F1Options = z.infer<typeof options>;

// Python's string.punctuation, which the SQuAD script strips
const PUNCT = new Set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");

/**
 * SQuAD answer normalization (the official v1.1/v2.0 evaluation script's `normalize_answer`): lower-case,
 * drop ASCII punctuation, drop the articles a/an/the, collapse whitespace.
 * Example: `squadNormalize("The  Eiffel-Tower!")` → `"eiffeltower"`.
 */
export function squadNormalize(s: string): string {
  const lower = s.toLowerCase();
  let noPunct = "";
  for (const ch of lower) if (!PUNCT.has(ch)) noPunct += ch;
  return noPunct
    .replace(/\b(a|an|the)\b/g, " ")
    .split(/\s+/)
    .filter(Boolean)
    .join(" ");
}

/**
 * SQuAD token F1 (v2.0 script's `compute_f1`): tokens of the normalized texts, `common` = multiset overlap,
 * P = common/|pred|, R = common/|gold|, F1 = 2PR/(P+R); when either side has no tokens, 1 if both are empty else 0.
 * Example: pred "the cat sat", gold "a cat sat down" → tokens [cat, sat] vs [cat, sat, down]: P = 1, R = 2/3, F1 = 0.8.
 */
export function squadF1(prediction: string, gold: string): number {
  const p = squadNormalize(prediction).split(" ").filter(Boolean);
  const g = squadNormalize(gold).split(" ").filter(Boolean);
  if (p.length === 0 || g.length === 0) return p.length === g.length ? 1 : 0;
  const common = overlap(p, g);
  return common === 0 ? 0 : fMeasure(common / p.length, common / g.length);
}

/** `f1`: SQuAD token F1 between the completion and the best of the references, in [0, 1]. */
export const f1Verifier: VerifierDefinition<F1Options> = {
  type: "f1",
  summary: "SQuAD token F1 (normalized: lower-case, no punctuation or articles) against the best reference",
  options,
  isolation: "inline",
  defaultTimeoutMs: 1000,
  create() {
    return ({ completion, reference }) => bestOver(reference, (r) => squadF1(completion, r));
  },
};
