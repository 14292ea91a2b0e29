import { z } from "zod";
import { flatGroups, groupStats } from "./group-stats.js";
import type { GroupIndex } from "./groups.js";
import type { AdvantageInput } from "./types.js";

/**
 * `filter` option shared by every estimator. `zero_variance` drops the groups whose non-null rewards are all
 * equal (a singleton included) before anything is computed — DAPO's dynamic sampling (Yu et al. 2025,
 * arXiv 2503.14476, §3.2: keep groups with 0 < #correct < G), open-instruct `filter_zero_std_samples`.
 * Dropped rollouts get a null advantage (they stay in every output, with `advantage: null`) and do not enter
 * batch statistics (whitening, GPG's α).
 */
export const filterOption = z.enum(["none", "zero_variance"]).default("none");

/**
 * Per-group flag: 1 where the group's non-null rewards are all equal (zero variance, a singleton included)
 * or the group has no non-null reward. Shape [groups.count]. Decided exactly (min = max), not from a rounded std.
 */
export function zeroVarianceGroups(rewards: Float64Array, groups: GroupIndex): Uint8Array {
  return flatGroups(groupStats(rewards, groups));
}

/** `input` with the rewards of zero-variance groups set to null (NaN); `dropped` counts the rollouts nulled. */
export function dropZeroVariance(input: AdvantageInput): { input: AdvantageInput; dropped: number } {
  const flags = zeroVarianceGroups(input.rewards, input.groups);
  const rewards = input.rewards.slice();
  const { order, offsets } = input.groups;
  let dropped = 0;
  for (let g = 0; g < input.groups.count; g++) {
    if (!flags[g]) continue;
    for (let k = offsets[g]!; k < offsets[g + 1]!; k++) {
      const i = order[k]!;
      if (!Number.isNaN(rewards[i]!)) dropped++;
      rewards[i] = NaN;
    }
  }
  return { input: { ...input, rewards }, dropped };
}
