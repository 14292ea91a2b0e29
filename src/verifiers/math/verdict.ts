/** How a verdict was reached: `fast` (exact rationals), `cas` (compute-engine, exact),
 * `sampling` (numeric evaluation at random points), `string` (normalized text equality). */
export type Method = "fast" | "cas" | "sampling" | "string";

/** Outcome of comparing a gold answer with a predicted one. `multiple_answers`: the prediction is an
 * enumeration of several values where the gold is a single value (scored 0, never 1). */
export type Outcome = true | false | "undecidable" | "parse_error" | "multiple_answers";

/** An outcome and the method that decided it. */
export interface Verdict {
  outcome: Outcome;
  method: Method;
}

/** Numeric settings used by the comparisons (a subset of the verifier options). */
export interface CompareSettings {
  percent: "equal-fraction" | "strict";
  relTol: number;
  samplePoints: number;
  sampleTol: number;
  seed: number;
  maxBits: number;
}

/** Thrown by comparisons that need the CAS before it is loaded; the caller loads it and retries. */
export class NeedCas extends Error {
  constructor() {
    super("compute-engine not loaded yet");
  }
}

/** Decimal places of a decimal literal: `3.14` → 2, `1000.0` → 1, `.5` → 1; 0 without a point. */
export function decimalPlaces(s: string): number {
  const m = /\.(\d+)/.exec(s);
  return m ? m[1]!.length : 0;
}

/**
 * How close an exact prediction must be to a decimal gold: `relTol` relative, and never looser than half a unit in
 * the gold's last stated place — `1000.0` means 1000 ± 0.05, so 1001 and 1000.5 are not it, while `3.14` still
 * accepts `22/7` (|Δ| = 0.0029 ≤ min(0.00314, 0.005)). The half unit is exclusive (72.55 is not `72.5`).
 */
export function decimalBound(gold: number, places: number, relTol: number): number {
  return Math.min(relTol * Math.abs(gold), 0.5 * 10 ** -places * (1 - 1e-9));
}
