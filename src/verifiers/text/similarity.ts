import { ok, unscorable } from "../../core/types.js";
import type { ComponentResult } from "../../core/types.js";
import { referenceStrings } from "./normalize.js";

/**
 * Shared shape of the similarity verifiers: the reference is a string, number or array of acceptable strings;
 * the score is the best similarity over them, in [0, 1]; 1 → `ok(1)`, below 1 → `ok(s, "no_match")` only when
 * it is 0 (a partial similarity is a score, not a failure). Missing → `no_reference`, other shapes → `invalid_reference`.
 */
export function bestOver(reference: unknown, score: (ref: string) => number): ComponentResult {
  const refs = referenceStrings(reference);
  if (refs === undefined) return unscorable("no_reference");
  if (refs === null) return unscorable("invalid_reference", { expected: "string, number or array of strings" });
  let best = 0;
  let bestRef = 0;
  refs.forEach((r, i) => {
    const s = score(r);
    if (s > best) {
      best = s;
      bestRef = i;
    }
  });
  const details = refs.length > 1 ? { reference: bestRef } : undefined;
  return best === 0 ? ok(0, "no_match", details) : ok(best, undefined, details);
}

/** Multiset intersection size of two token lists. */
export function overlap<T>(a: readonly T[], b: readonly T[]): number {
  const counts = new Map<T, number>();
  for (const x of b) counts.set(x, (counts.get(x) ?? 0) + 1);
  let n = 0;
  for (const x of a) {
    const c = counts.get(x);
    if (c) {
      n++;
      counts.set(x, c - 1);
    }
  }
  return n;
}

/** Harmonic mean of precision and recall; 0 when both are 0. */
export function fMeasure(p: number, r: number): number {
  return p + r === 0 ? 0 : (2 * p * r) / (p + r);
}
