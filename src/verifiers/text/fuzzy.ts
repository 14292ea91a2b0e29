import { z } from "zod";
import type { VerifierDefinition } from "../types.js";
import { normalizeText, textNormalizationOptions } from "./normalize.js";
import { bestOver } from "./similarity.js";

const options = z.strictObject({
  ...textNormalizationOptions,
  /**
   * The rapidfuzz scorer reproduced (scores divided by 100): `ratio` (default; normalized Indel similarity),
   * `partial-ratio` (best `ratio` of the shorter text against windows of the longer), `token-sort-ratio`
   * (`ratio` of the whitespace tokens sorted), `token-set-ratio` (`ratio` over shared and differing token sets).
   */
  method: z.enum(["ratio", "partial-ratio", "token-sort-ratio", "token-set-ratio"]).default("ratio"),
});
export type FuzzyOptions = z.infer<typeof options>;

/** Longest common subsequence length over code points; O(|a|·|b|) time, O(|b|) memory. */
export function lcsLength<T>(a: readonly T[], b: readonly T[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  let prev = new Array<number>(b.length + 1).fill(0);
  let cur = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++)
      cur[j] = a[i - 1] === b[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}

/**
 * rapidfuzz `fuzz.ratio` / 100: `1 − indel(a, b) / (|a| + |b|)` = `2·LCS / (|a| + |b|)`; two empty strings → 1.
 * Example (rapidfuzz README): `ratio("this is a test", "this is a test!")` → 0.9655172413793104.
 */
export function ratio(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  const n = x.length + y.length;
  return n === 0 ? 1 : (2 * lcsLength(x, y)) / n;
}

/**
 * rapidfuzz `fuzz.partial_ratio` / 100: the best {@link ratio} of the shorter text against every window of the
 * longer one of the same length (and the shorter prefixes/suffixes at its ends).
 * Example (rapidfuzz README): `partialRatio("this is a test", "this is a test!")` → 1.
 */
export function partialRatio(a: string, b: string): number {
  let s = [...a];
  let l = [...b];
  if (s.length > l.length) [s, l] = [l, s];
  if (s.length === 0) return l.length === 0 ? 1 : 0;
  const short = s.join("");
  let best = 0;
  const consider = (w: string[]): void => {
    best = Math.max(best, ratio(short, w.join("")));
  };
  for (let k = 1; k < s.length; k++) {
    consider(l.slice(0, k));
    consider(l.slice(l.length - k));
  }
  for (let i = 0; i + s.length <= l.length && best < 1; i++) consider(l.slice(i, i + s.length));
  return best;
}

const tokens = (s: string): string[] => s.split(/\s+/).filter(Boolean);

/** rapidfuzz `fuzz.token_sort_ratio` / 100. Example (README): "fuzzy was a bear" / "fuzzy fuzzy was a bear" → 0.8421052631578947. */
export function tokenSortRatio(a: string, b: string): number {
  return ratio(tokens(a).sort().join(" "), tokens(b).sort().join(" "));
}

/**
 * rapidfuzz `fuzz.token_set_ratio` / 100: with `I` the sorted shared tokens and `D₁`, `D₂` the sorted differences,
 * 1 when the texts share tokens and one difference is empty, else max(ratio(I, I+D₁), ratio(I, I+D₂), ratio(I+D₁, I+D₂)).
 * Example (README): "fuzzy was a bear" / "fuzzy fuzzy was a bear" → 1.
 */
export function tokenSetRatio(a: string, b: string): number {
  const A = new Set(tokens(a));
  const B = new Set(tokens(b));
  const inter = [...A].filter((t) => B.has(t)).sort();
  const d1 = [...A].filter((t) => !B.has(t)).sort();
  const d2 = [...B].filter((t) => !A.has(t)).sort();
  if (inter.length > 0 && (d1.length === 0 || d2.length === 0)) return 1;
  if (inter.length === 0 && d1.length === 0 && d2.length === 0) return 1;
  const i = inter.join(" ");
  const c1 = [...inter, ...d1].join(" ");
  const c2 = [...inter, ...d2].join(" ");
  return Math.max(inter.length ? ratio(i, c1) : 0, inter.length ? ratio(i, c2) : 0, ratio(c1, c2));
}

const METHODS = {
  ratio,
  "partial-ratio": partialRatio,
  "token-sort-ratio": tokenSortRatio,
  "token-set-ratio": tokenSetRatio,
} as const;

/** `fuzzy`: rapidfuzz-style fuzzy similarity (OpenAI `text_similarity` `fuzzy_match` uses rapidfuzz) to the best reference. */
export const fuzzyVerifier: VerifierDefinition<FuzzyOptions> = {
  type: "fuzzy",
  summary:
    "rapidfuzz-style fuzzy similarity in [0, 1] (ratio, partial, token-sort, token-set) against the best reference",
  options,
  isolation: "worker", // quadratic (partial-ratio: cubic) in the lengths
  defaultTimeoutMs: 5000,
  create(o) {
    const f = METHODS[o.method];
    return ({ completion, reference }) => {
      const c = normalizeText(completion, o);
      return bestOver(reference, (r) => f(c, normalizeText(r, o)));
    };
  },
};
