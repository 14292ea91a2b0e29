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
  /** Per-component scores for multi-reward estimators (GDPO …): names[k] → scores[k], shape [n] each. */
  components?: { names: string[]; scores: Float64Array[] };
  /** Completion length per rollout (tokens), for length-aware estimators. */
  lengths?: Float64Array;
}

/** An advantage estimator, registered under the name verl uses for it (`grpo`, `rloo` …). */
export interface EstimatorDefinition<O = unknown> {
  name: string;
  summary: string;
  options: z.ZodType<O>;
  /** Returns one advantage per rollout, shape [n]; NaN where the reward is null. Pure. */
  compute(input: AdvantageInput, options: O): Float64Array;
}
