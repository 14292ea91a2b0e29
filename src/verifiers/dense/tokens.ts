/**
 * Per-token log-prob arrays of the dense rewards (`distill`, `implicit-prm`): reading two aligned arrays from a
 * rollout, and the scalar summaries of token rewards. Pure: no I/O.
 */
import { ok, unscorable } from "../../core/types.js";
import type { ComponentResult, Rollout } from "../../core/types.js";
import { logprobProblem } from "../likelihood/forms.js";

/** Two per-token log-prob arrays of one completion, aligned token by token (shape [T] each, T ≥ 1). */
export interface PairedLogprobs {
  a: number[];
  b: number[];
}

/**
 * Checks per-token log-prob arrays against each other and against the completion's tokens: every array present
 * (else `logprob_error`, `details.field`), all of one length and, when the rollout has `completion_ids`, of its
 * length (else `length_mismatch`, `details.lengths`), at least one token (else `no_completion`), and each entry a
 * finite log-prob ≤ 1e-4 (else `logprob_error`). Never truncates.
 * @param arrays field name → the value found (the rollout's, or fetched).
 * @returns the arrays in the order given, or the unscorable result.
 */
export function alignedLogprobs(
  rollout: Rollout,
  arrays: ReadonlyArray<readonly [string, unknown]>,
): number[][] | ComponentResult {
  for (const [field, v] of arrays)
    if (v === undefined || v === null) return unscorable("logprob_error", { field, error: "missing" });
  const lengths: Record<string, number> = {};
  for (const [field, v] of arrays) {
    if (!Array.isArray(v)) return unscorable("logprob_error", { field, error: "expected an array of numbers" });
    lengths[field] = v.length;
  }
  const ids = rollout.completion_ids;
  if (Array.isArray(ids)) lengths.completion_ids = ids.length;
  if (new Set(Object.values(lengths)).size > 1) return unscorable("length_mismatch", { lengths });
  if ((arrays[0]![1] as unknown[]).length === 0) return unscorable("no_completion", { lengths });
  for (const [field, v] of arrays) {
    const problem = logprobProblem(v);
    if (problem) return unscorable("logprob_error", { field, error: problem });
  }
  return arrays.map(([, v]) => v as number[]);
}

/** How a component's token rewards r_1..r_T become its score. */
export type TokenSummary = "mean" | "sum";

/** (1/T) Σ_t r_t (`mean`) or Σ_t r_t (`sum`), summed left to right; T ≥ 1. */
export function summarize(rewards: readonly number[], how: TokenSummary): number {
  let s = 0;
  for (const r of rewards) s += r;
  return how === "mean" ? s / rewards.length : s;
}

/** `x` without a negative zero (JSON keeps `-0` as `0` anyway; tests compare with `toEqual`). */
export function noNegZero(x: number): number {
  return x === 0 ? 0 : x;
}

/**
 * A dense component's result: `ok` with the score and its per-token or per-turn rewards, or `logprob_error` when the
 * score or a reward is not finite (an overflow: a huge β), never a non-finite number (JSON would write it as null).
 */
export function denseResult(
  score: number,
  details: Record<string, unknown>,
  unit: "token_rewards" | "turn_rewards",
  rewards: number[],
): ComponentResult {
  if (!Number.isFinite(score))
    return unscorable("logprob_error", { ...details, error: `score ${score} is not finite` });
  const bad = rewards.findIndex((x) => !Number.isFinite(x));
  if (bad >= 0)
    return unscorable("logprob_error", { ...details, error: `${unit}[${bad}] ${rewards[bad]} is not finite` });
  const r = ok(noNegZero(score), undefined, details);
  r[unit] = rewards;
  return r;
}
