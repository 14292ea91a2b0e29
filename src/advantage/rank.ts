import { z } from "zod";
import { filterOption } from "./filter.js";
import type { AdvantageInput, EstimatorDefinition } from "./types.js";

export const rankOptions = z.strictObject({
  /**
   * `unit`: centered ranks scaled to [−1, 1] by (n − 1)/2 (default); `gopo`: GOPO's map
   * 2 − 4(ρ − 1)/(n − 1) ∈ [−2, 2] (ρ = descending rank), twice `unit`; `none`: centered ranks R_i − (n + 1)/2.
   */
  scale: z.enum(["unit", "gopo", "none"]).default("unit"),
  filter: filterOption,
});
export type RankOptions = z.infer<typeof rankOptions>;

/**
 * Rank-based group advantages (GOPO, Group Ordinal Policy Optimization, arXiv 2602.03876; methods catalog T08):
 * only the within-group order of the rewards is used, magnitudes are discarded.
 * R_i = 1-based ascending mid-rank of r_i among the group's n non-null rewards;
 * `scale: unit`: A_i = (2 R_i − (n + 1)) / (n − 1) ∈ [−1, 1];
 * `scale: gopo`: A_i = 2 − 4(ρ_i − 1)/(n − 1) with ρ_i = n + 1 − R_i the descending rank, ∈ [−2, 2]: GOPO's code
 * (`friendshipkim/gopo` `src/open_r1/grpo_trainer.py`, `advantage == "ranking"`, commit 02e2b9f: a double
 * `argsort(descending=True)`), exactly on untied rewards; `scale: none`: R_i − (n + 1)/2.
 * Ties: GOPO breaks them by sort order, so tied rollouts get different advantages (`[1, 0, 0, 1]` →
 * [2, −0.67, −2, 0.67]); rewardkit gives them the average (mid) rank, so tied rollouts get equal advantages and an
 * all-tied group gets 0 (`[1, 0, 0, 1]` → gopo [1.33, −1.33, −1.33, 1.33]) — a documented departure: an arbitrary
 * order is noise the policy would be trained on.
 * Advantages sum to 0 in every group and are invariant under any strictly increasing transform of the rewards.
 * Singletons get 0 (GOPO: 0/0).
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
    const scale = n < 2 ? 0 : o.scale === "unit" ? 2 / (n - 1) : o.scale === "gopo" ? 4 / (n - 1) : 1;
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
  summary: "Rank-based (GOPO): centered mid-ranks within the group, scaled to [−1, 1] (or GOPO's [−2, 2])",
  options: rankOptions,
  compute: rank,
  batchStatistics: () => undefined,
};
