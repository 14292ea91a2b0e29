import { z } from "zod";
import type { VerifierDefinition } from "../types.js";
import { normalizeText, textNormalizationOptions } from "./normalize.js";
import { bestOver } from "./similarity.js";

const options = z.strictObject({ ...textNormalizationOptions });
export type LevenshteinOptions = z.infer<typeof options>;

/**
 * Levenshtein edit distance (insertions, deletions, substitutions, each cost 1) over Unicode code points.
 * Two-row dynamic programme, O(|a|·|b|) time, O(|b|) memory. Example: `levenshtein("kitten", "sitting")` → 3.
 */
export function levenshtein(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  if (x.length === 0) return y.length;
  if (y.length === 0) return x.length;
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  let cur = new Array<number>(y.length + 1);
  for (let i = 1; i <= x.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= y.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    [prev, cur] = [cur, prev];
  }
  return prev[y.length]!;
}

/**
 * Normalized Levenshtein similarity `1 − d(a, b) / max(|a|, |b|)` (autoevals' `Levenshtein` convention; two empty
 * strings → 1). Example: kitten / sitting → 1 − 3/7 = 0.571428….
 */
export function levenshteinSimilarity(a: string, b: string): number {
  const n = Math.max([...a].length, [...b].length);
  return n === 0 ? 1 : 1 - levenshtein(a, b) / n;
}

/** `levenshtein`: normalized edit similarity to the best reference, after the usual text normalization. */
export const levenshteinVerifier: VerifierDefinition<LevenshteinOptions> = {
  type: "levenshtein",
  summary: "1 − edit distance / longer length, against the best reference (case/whitespace normalized by default)",
  options,
  isolation: "worker", // quadratic in the lengths
  defaultTimeoutMs: 5000,
  create(o) {
    return ({ completion, reference }) => {
      const c = normalizeText(completion, o);
      return bestOver(reference, (r) => levenshteinSimilarity(c, normalizeText(r, o)));
    };
  },
};
