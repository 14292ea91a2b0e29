import { z } from "zod";
import { segmentStats } from "./groups.js";
import type { AdvantageInput, EstimatorDefinition } from "./types.js";

export const grpoOptions = z.strictObject({
  /** Group baseline: `mean` of the group (GRPO), or `leave-one-out` (mean of the other members; NeMo-RL). */
  baseline: z.enum(["mean", "leave-one-out"]).default("mean"),
  /** Std used to scale: `unbiased` (n−1; verl, TRL, OpenRLHF), `population` (n; open-instruct), `none` (Dr.GRPO). */
  std: z.enum(["unbiased", "population", "none"]).default("unbiased"),
  /** ε added to the std in the denominator (verl 1e-6, TRL 1e-4, OpenRLHF 1e-9). */
  epsilon: z.number().nonnegative().default(1e-6),
  /** A group with one non-null reward: `zero` (default: no comparison possible) or `raw` (advantage = reward, verl's RLOO rule). */
  singleton: z.enum(["zero", "raw"]).default("zero"),
});
export type GrpoOptions = z.infer<typeof grpoOptions>;

/**
 * Group-relative advantages (GRPO, Shao et al. 2024, arXiv 2402.03300, §4.1.2; verl `compute_grpo_outcome_advantage`):
 * A_i = (r_i − b_i) / (σ_g + ε), with b_i the group mean (or the leave-one-out mean), σ_g the group std with
 * the chosen convention, or A_i = r_i − b_i with `std: none` (Dr.GRPO, Liu et al. 2025, arXiv 2503.20783).
 * Null rewards (NaN) are left out of the group statistics and get NaN.
 * Example (verl): rewards [1, 0, 0, 1] → mean 0.5, unbiased std 0.57735 → [0.866024, −0.866024, −0.866024, 0.866024].
 * @returns advantages, shape [n].
 */
export function grpo(input: AdvantageInput, o: GrpoOptions): Float64Array {
  const { rewards, groups } = input;
  const out = new Float64Array(rewards.length).fill(NaN);
  const { order, offsets } = groups;
  for (let g = 0; g < groups.count; g++) {
    const start = offsets[g]!;
    const end = offsets[g + 1]!;
    const { n, mean, m2 } = segmentStats(rewards, order, start, end);
    if (n === 0) continue;
    const std = o.std === "none" ? 0 : Math.sqrt(m2 / (o.std === "unbiased" ? n - 1 : n));
    const denom = o.std === "none" ? 1 : std + o.epsilon;
    for (let k = start; k < end; k++) {
      const i = order[k]!;
      const r = rewards[i]!;
      if (Number.isNaN(r)) continue;
      if (n === 1) {
        out[i] = o.singleton === "raw" ? r : 0;
        continue;
      }
      const baseline = o.baseline === "mean" ? mean : (mean * n - r) / (n - 1);
      out[i] = (r - baseline) / denom;
    }
  }
  return out;
}

/** `grpo` in the estimator registry. */
export const grpoEstimator: EstimatorDefinition<GrpoOptions> = {
  name: "grpo",
  summary: "GRPO: (r − group mean) / (group std + ε), with explicit std/ε/baseline conventions",
  options: grpoOptions,
  compute: grpo,
};

/** `dr_grpo`: GRPO without std scaling (Dr.GRPO, arXiv 2503.20783): A_i = r_i − mean_g. */
export const drGrpoEstimator: EstimatorDefinition<GrpoOptions> = {
  name: "dr_grpo",
  summary: "Dr.GRPO: r − group mean (no std division)",
  options: grpoOptions.extend({ std: z.literal("none").default("none") }),
  compute: grpo,
};
