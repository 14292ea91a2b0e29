import { z } from "zod";
import { filterOption } from "./filter.js";
import { centerScale } from "./kernel.js";
import type { AdvantageInput, EstimatorDefinition } from "./types.js";

export const rlooOptions = z.strictObject({
  /** A group with one non-null reward: `zero` (default) or `raw` (advantage = reward, verl's rule). */
  singleton: z.enum(["zero", "raw"]).default("zero"),
  filter: filterOption,
});
export type RlooOptions = z.infer<typeof rlooOptions>;

/**
 * REINFORCE leave-one-out (Ahmadian et al. 2024, arXiv 2402.14740; verl `compute_rloo_outcome_advantage`):
 * A_i = r_i − mean_{j≠i} r_j = n/(n−1) · (r_i − mean_g), over the group's non-null rewards.
 * Singleton: verl's loop function gives r (`raw`); its vectorized registration gives 0, as OpenRLHF's
 * (Σr − r)/(n − 1) = 0/0 is replaced here (`zero`).
 * Example: rewards [1, 0, 0, 1] → mean 0.5 → [0.666667, −0.666667, −0.666667, 0.666667].
 * @returns advantages, shape [n]; NaN where the reward is null.
 */
export function rloo(input: AdvantageInput, o: RlooOptions, out?: Float64Array): Float64Array {
  const { rewards, groups } = input;
  return centerScale(
    rewards,
    groups,
    undefined,
    { center: "leave-one-out", scale: "none", singleton: o.singleton === "raw" ? 1 : 0 },
    out,
  );
}

export const rlooEstimator: EstimatorDefinition<RlooOptions> = {
  name: "rloo",
  summary: "RLOO: r − mean of the other group members",
  options: rlooOptions,
  compute: rloo,
  batchStatistics: () => undefined,
};
