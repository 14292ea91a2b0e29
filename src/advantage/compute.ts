import { buildGroupIndex } from "./groups.js";
import type { AdvantageInput, EstimatorDefinition } from "./types.js";

/**
 * Runs an estimator over a batch given per-rollout rewards and dense group ids.
 * @param rewards shape [n], NaN for null rewards.
 * @param groupIds shape [n], dense ids in [0, G).
 * @returns advantages, shape [n], NaN where undefined (null reward).
 */
export function computeAdvantages(
  estimator: EstimatorDefinition<unknown>,
  options: unknown,
  rewards: Float64Array,
  groupIds: ArrayLike<number>,
  extra: Omit<AdvantageInput, "rewards" | "groups"> = {},
): Float64Array {
  return estimator.compute({ rewards, groups: buildGroupIndex(groupIds), ...extra }, options);
}

/** NaN → null for JSON output. */
export function nullable(x: number): number | null {
  return Number.isNaN(x) ? null : x;
}
