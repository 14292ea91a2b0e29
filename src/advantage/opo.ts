import { z } from "zod";
import { requireInputs } from "./common.js";
import { filterOption } from "./filter.js";
import { groupWeightedMean } from "./group-stats.js";
import { applyMoments } from "./kernel.js";
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
export function opo(input: AdvantageInput, o: OpoOptions, out?: Float64Array): Float64Array {
  requireInputs("opo", input, ["lengths"]);
  const { rewards, groups } = input;
  const lengths = input.lengths!;
  const n = rewards.length;
  if (out === undefined || out.length !== n) out = new Float64Array(n);
  // the weighted mean is the baseline; a flat group stays exactly 0 (min = max), a singleton follows the rule.
  // One fused pass per group (baseline, then the group's advantages while it is in cache), no [G] arrays.
  const center = { center: "mean", scale: "none", singleton: o.singleton === "raw" ? 1 : 0 } as const;
  const m = new Float64Array(4);
  for (let g = 0; g < groups.count; g++) {
    if (!groupWeightedMean(rewards, lengths, groups, g, m)) badLength(rewards, lengths);
    applyMoments(rewards, groups, g, m, center, out, 1, false);
  }
  return out;
}

/** Throws for the first rollout (in input order) with a reward and a length that is not a non-negative number. */
function badLength(rewards: Float64Array, lengths: Float64Array): never {
  for (let i = 0; i < rewards.length; i++) {
    if (rewards[i] === rewards[i] && !(lengths[i]! >= 0))
      throw new RangeError(`opo: response length at ${i} must be a non-negative number, got ${lengths[i]}`);
  }
  throw new RangeError("opo: a response length is not a non-negative number");
}

export const opoEstimator: EstimatorDefinition<OpoOptions> = {
  name: "opo",
  summary: "OPO: r − length-weighted group mean",
  options: opoOptions,
  needs: ["lengths"],
  compute: opo,
  batchStatistics: () => undefined,
};
