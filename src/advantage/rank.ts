import { z } from "zod";
import { filterOption } from "./common.js";
import type { AdvantageInput, EstimatorDefinition } from "./types.js";

export const rankOptions = z.strictObject({
  /** `unit`: centered ranks scaled to [−1, 1] by (n − 1)/2; `none`: centered ranks R_i − (n + 1)/2. */
  scale: z.enum(["unit", "none"]).default("unit"),
  filter: filterOption,
});
export type RankOptions = z.infer<typeof rankOptions>;

/**
 * Rank-based group advantages in the spirit of GOPO (Group Ordinal Policy Optimization, methods catalog T08):
 * only the within-group order of the rewards is used, magnitudes are discarded.
 * GOPO's abstract does not give the rank→advantage map; rewardkit's documented interpretation:
 * R_i = 1-based rank of r_i among the group's n non-null rewards, A_i = (2 R_i − (n + 1)) / (n − 1) ∈ [−1, 1]
 * (`scale: unit`), or R_i − (n + 1)/2 (`scale: none`).
 * Ties get the average (mid) rank, so tied rollouts get equal advantages and an all-tied group gets 0.
 * Advantages sum to 0 in every group and are invariant under any strictly increasing transform of the rewards.
 * Singletons get 0.
 * @returns advantages, shape [n]; NaN where the reward is null.
 */
export function rank(input: AdvantageInput, o: RankOptions): Float64Array {
  const { rewards, groups } = input;
  const out = new Float64Array(rewards.length).fill(NaN);
  let idx = new Int32Array(16);
  for (let g = 0; g < groups.count; g++) {
    const start = groups.offsets[g]!;
    const end = groups.offsets[g + 1]!;
    if (end - start > idx.length) idx = new Int32Array(end - start);
    let n = 0;
    for (let k = start; k < end; k++) {
      const i = groups.order[k]!;
      if (rewards[i]! === rewards[i]!) idx[n++] = i;
    }
    if (n === 0) continue;
    // insertion sort by reward (groups are small; stable)
    for (let a = 1; a < n; a++) {
      const v = idx[a]!;
      const rv = rewards[v]!;
      let b = a - 1;
      while (b >= 0 && rewards[idx[b]!]! > rv) {
        idx[b + 1] = idx[b]!;
        b--;
      }
      idx[b + 1] = v;
    }
    const center = (n + 1) / 2;
    const scale = o.scale === "unit" && n > 1 ? 2 / (n - 1) : 1;
    let a = 0;
    while (a < n) {
      let b = a;
      while (b + 1 < n && rewards[idx[b + 1]!] === rewards[idx[a]!]) b++;
      const mid = (a + b) / 2 + 1;
      for (let k = a; k <= b; k++) out[idx[k]!] = (mid - center) * scale;
      a = b + 1;
    }
  }
  return out;
}

export const rankEstimator: EstimatorDefinition<RankOptions> = {
  name: "rank",
  summary: "Rank-based (GOPO-style): centered mid-ranks within the group, scaled to [−1, 1]",
  options: rankOptions,
  compute: rank,
};
