import { z } from "zod";
import { filterOption, requireInputs } from "./common.js";
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
 * @param input rewards shape [n], lengths shape [n] (response tokens).
 * @returns advantages, shape [n].
 */
export function opo(input: AdvantageInput, o: OpoOptions): Float64Array {
  requireInputs("opo", input, ["lengths"]);
  const { rewards, groups } = input;
  const lengths = input.lengths!;
  const out = new Float64Array(rewards.length).fill(NaN);
  for (let g = 0; g < groups.count; g++) {
    const start = groups.offsets[g]!;
    const end = groups.offsets[g + 1]!;
    let n = 0;
    let sum = 0;
    let lsum = 0;
    let lrsum = 0;
    for (let k = start; k < end; k++) {
      const i = groups.order[k]!;
      const r = rewards[i]!;
      if (r !== r) continue;
      const l = lengths[i]!;
      if (!(l >= 0)) throw new RangeError(`opo: response length at ${i} must be a non-negative number, got ${l}`);
      n++;
      sum += r;
      lsum += l;
      lrsum += l * r;
    }
    if (n === 0) continue;
    const b = lsum > 0 ? lrsum / lsum : sum / n;
    for (let k = start; k < end; k++) {
      const i = groups.order[k]!;
      const r = rewards[i]!;
      if (r !== r) continue;
      out[i] = n === 1 ? (o.singleton === "raw" ? r : 0) : r - b;
    }
  }
  return out;
}

export const opoEstimator: EstimatorDefinition<OpoOptions> = {
  name: "opo",
  summary: "OPO: r − length-weighted group mean",
  options: opoOptions,
  needs: ["lengths"],
  compute: opo,
};
