import { z } from "zod";
import { requireInputs } from "./common.js";
import { filterOption } from "./filter.js";
import { groupStats } from "./group-stats.js";
import { centerScale } from "./kernel.js";
import type { AdvantageInput, EstimatorDefinition } from "./types.js";

export const opoOptions = z.strictObject({
  /** A group with one non-null reward: `zero` (default) or `raw` (baseline 0, verl). */
  singleton: z.enum(["zero", "raw"]).default("zero"),
  filter: filterOption,
});
export type OpoOptions = z.infer<typeof opoOptions>;

/**
 * On-Policy RL with Optimal reward baseline (OPO, Hao et al. 2025, arXiv 2505.23585; verl
 * `core_algos.compute_opo_outcome_advantage`): the length-weighted group baseline
 * b_g = Σ_j L_j r_j / Σ_j L_j over the group's non-null rewards, A_i = r_i − b_g (no std division).
 * With Σ L_j = 0 the plain mean is used. Singleton: verl uses b = 0 (`raw`).
 * Invariant under a common positive scaling of the lengths; equal lengths reduce it to Dr.GRPO.
 * @param input rewards shape [n], lengths shape [n] (response tokens, ≥ 0).
 * @returns advantages, shape [n].
 * @throws RangeError on a negative or non-numeric length of a rollout with a reward.
 */
export function opo(input: AdvantageInput, o: OpoOptions): Float64Array {
  requireInputs("opo", input, ["lengths"]);
  const { rewards, groups } = input;
  const lengths = input.lengths!;
  for (let i = 0; i < rewards.length; i++) {
    if (rewards[i] === rewards[i] && !(lengths[i]! >= 0))
      throw new RangeError(`opo: response length at ${i} must be a non-negative number, got ${lengths[i]}`);
  }
  const st = groupStats(rewards, groups, lengths);
  // the weighted mean is the baseline; a flat group stays exactly 0 (min = max), a singleton follows the rule
  return centerScale(rewards, groups, st, { center: "mean", scale: "none", singleton: o.singleton === "raw" ? 1 : 0 });
}

export const opoEstimator: EstimatorDefinition<OpoOptions> = {
  name: "opo",
  summary: "OPO: r − length-weighted group mean",
  options: opoOptions,
  needs: ["lengths"],
  compute: opo,
  batchStatistics: () => undefined,
};
