import type { z } from "zod";
import type { GroupIndex } from "./groups.js";

/**
 * What an estimator reads. Null rewards are NaN and are excluded from their group's statistics;
 * their advantage is NaN (written as `null`).
 */
export interface AdvantageInput {
  /** Scalar reward per rollout, shape [n]. */
  rewards: Float64Array;
  groups: GroupIndex;
  /** Per-component scores for multi-reward estimators (GDPO …): names[k] → scores[k], shape [n] each; NaN = unscorable. */
  components?: { names: string[]; scores: Float64Array[] };
  /** Completion length per rollout (tokens), shape [n], for length-aware estimators (`opo`, token-weighted whitening). */
  lengths?: Float64Array;
  /** Dense stratum id per rollout, shape [n], for `stratified` (strata are nested inside groups). */
  strata?: Int32Array;
}

/** Extra inputs an estimator needs beyond rewards and groups. */
export type EstimatorNeed = "components" | "lengths" | "strata";

/** An advantage estimator, registered under the name verl uses for it (`grpo`, `rloo` …). */
export interface EstimatorDefinition<O = unknown> {
  name: string;
  summary: string;
  options: z.ZodType<O>;
  /** Inputs beyond rewards and groups that `compute` requires (absent: none). */
  needs?: readonly EstimatorNeed[];
  /** Optional inputs `compute` reads when present (e.g. lengths for `whiten: auto`); collectors gather them. */
  uses?: readonly EstimatorNeed[];
  /**
   * Why, with these options, a group's advantages depend on rollouts outside the group (a std or a whitening over
   * the whole batch …), in a few words; `undefined` when each group's advantages are a function of that group's
   * rollouts alone. `rewardkit score --shard` splits a run by group, so it refuses an estimator that returns a
   * reason; absent (a plugin that does not say) is allowed there and `rewardkit merge` checks the advantages.
   */
  batchStatistics?(options: O): string | undefined;
  /**
   * Returns one advantage per rollout, shape [n]; NaN where the reward is null. Pure. `out` (optional, length n):
   * a buffer the estimator may write into and return instead of allocating 8 bytes × n (numpy's `out=`; a fresh
   * large typed array costs its page faults every call). Either way, use the returned array.
   */
  compute(input: AdvantageInput, options: O, out?: Float64Array): Float64Array;
}
