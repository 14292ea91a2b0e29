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
