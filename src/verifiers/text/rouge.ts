import { z } from "zod";
import type { VerifierDefinition } from "../types.js";
import { lcsLength } from "./fuzzy.js";
import { bestOver, fMeasure, overlap } from "./similarity.js";

const options = z.strictObject({
  /** Which ROUGE number to report: `f` (default, F-measure, as OpenAI's `rouge_*` and promptfoo), `precision`, `recall`. */
  measure: z.enum(["f", "precision", "recall"]).default("f"),
});
export type RougeOptions = z.infer<typeof options>;

/**
 * The `rouge-score` package's default tokenizer (no stemming): lower-case, every run of characters outside
 * `[a-z0-9]` becomes a separator. Example: `rougeTokens("The dog's log.")` → `["the", "dog", "s", "log"]`.
 */
export function rougeTokens(s: string): string[] {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .split(" ")
    .filter(Boolean);
}

function ngramList(t: string[], n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i + n <= t.length; i++) out.push(t.slice(i, i + n).join(" "));
  return out;
}

/** Precision, recall and F of ROUGE-N (clipped n-gram overlap) of `prediction` against `target`. */
export function rougeN(
  prediction: string,
  target: string,
  n: number,
): { precision: number; recall: number; f: number } {
  const p = ngramList(rougeTokens(prediction), n);
  const t = ngramList(rougeTokens(target), n);
  const o = overlap(p, t);
  const precision = p.length ? o / p.length : 0;
  const recall = t.length ? o / t.length : 0;
  return { precision, recall, f: fMeasure(precision, recall) };
}

/**
 * ROUGE-L (sentence level): LCS of the token sequences; P = LCS/|pred|, R = LCS/|target|, F = 2PR/(P+R).
 * Published check (rouge-score, target "The quick brown fox jumps over the lazy dog", prediction
 * "The quick brown dog jumps on the log."): rouge1 F = 0.7058823529411765, rougeL F = 0.5882352941176471.
 */
export function rougeL(prediction: string, target: string): { precision: number; recall: number; f: number } {
  const p = rougeTokens(prediction);
  const t = rougeTokens(target);
  const l = lcsLength(p, t);
  const precision = p.length ? l / p.length : 0;
  const recall = t.length ? l / t.length : 0;
  return { precision, recall, f: fMeasure(precision, recall) };
}

function rougeVerifier(variant: "1" | "2" | "3" | "4" | "5" | "l"): VerifierDefinition<RougeOptions> {
  const name = variant === "l" ? "ROUGE-L" : `ROUGE-${variant}`;
  return {
    type: `rouge-${variant}`,
    summary: `${name} (rouge-score tokenization) against the best reference; F-measure by default`,
    options,
    isolation: variant === "l" ? "worker" : "inline", // LCS is quadratic
    defaultTimeoutMs: 5000,
    create(o) {
      const m = o.measure;
      return ({ completion, reference }) =>
        bestOver(
          reference,
          (r) => (variant === "l" ? rougeL(completion, r) : rougeN(completion, r, Number(variant)))[m],
        );
    },
  };
}

/** `rouge-1` … `rouge-5` and `rouge-l`, OpenAI `text_similarity`'s ROUGE metrics. Multiple references: the best. */
export const rougeVerifiers: VerifierDefinition<RougeOptions>[] = (["1", "2", "3", "4", "5", "l"] as const).map(
  rougeVerifier,
);
