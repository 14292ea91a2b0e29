import { z } from "zod";
import type { Rollout } from "../../core/types.js";

/** Options every length verifier shares: the unit lengths are counted in. */
export const lengthUnitOptions = {
  /**
   * `tokens` (default): the rollout's `completion_tokens`, else the length of its `completion_ids`, else the
   * approximation ceil(UTF-16 characters / `charsPerToken`) (reported as `details.lengthSource`); `chars`: code points.
   */
  unit: z.enum(["tokens", "chars"]).default("tokens"),
  /** Characters per token of the approximation (default 4, as `overlong`). */
  charsPerToken: z.number().positive().default(4),
};

/** A completion's length and where it came from (`completion_tokens`, `completion_ids`, `approx_chars_per_token`, `chars`). */
export interface MeasuredLength {
  length: number;
  source: "completion_tokens" | "completion_ids" | "approx_chars_per_token" | "chars";
}

/** Rollout fields a length verifier reads (for the verdict cache key). */
export const LENGTH_READS = ["completion_tokens", "completion_ids"] as const;

/**
 * The completion's length in `unit`: the sampler's `completion_tokens` when it is a non-negative finite number, else
 * `completion_ids.length` (TRL's `len(completion_ids)`), else ceil(characters / charsPerToken).
 */
export function measureLength(
  completion: string,
  rollout: Rollout,
  o: { unit: "tokens" | "chars"; charsPerToken: number },
): MeasuredLength {
  if (o.unit === "chars") return { length: [...completion].length, source: "chars" };
  const n = rollout.completion_tokens;
  if (typeof n === "number" && Number.isFinite(n) && n >= 0) return { length: n, source: "completion_tokens" };
  const ids = rollout.completion_ids;
  if (Array.isArray(ids)) return { length: ids.length, source: "completion_ids" };
  return { length: Math.ceil(completion.length / o.charsPerToken), source: "approx_chars_per_token" };
}

/** Unscorable reasons that come from the reference, not the completion: the gold cannot be read. */
const REFERENCE_SIDE: ReadonlySet<string> = new Set(["no_reference", "invalid_reference"]);

/**
 * Correctness of a rollout for the length rewards, from its correctness component's verdict: passed (score ≥ the
 * component's pass threshold) or not; `null` only when the *reference* cannot be read (`no_reference`,
 * `invalid_reference`), as TRL skips an example whose gold does not parse. An answer the verifier cannot read or
 * decide (`no_answer`, `parse_error`, `undecidable`, a timeout …) counts as **wrong**, as TRL counts an unparseable
 * answer: otherwise refusing to answer, or hedging in a form the parser rejects, would escape the wrong-answer
 * curve (cosine 0 instead of −1 … −0.5 — a red-team finding).
 */
export function correctnessOf(result: { score: number | null; reason?: string }, threshold: number): boolean | null {
  if (result.score !== null) return result.score >= threshold;
  return result.reason !== undefined && REFERENCE_SIDE.has(result.reason) ? null : false;
}
