import { z } from "zod";
import { countNonNull } from "./common.js";
import { filterOption } from "./filter.js";
import { centerScale } from "./kernel.js";
import type { AdvantageInput, EstimatorDefinition } from "./types.js";

export const gpgOptions = z.strictObject({
  /** Normalizer f_norm (verl default 1). */
  fNorm: z.number().positive().default(1),
  /** A group with one non-null reward: `zero` (default) or `raw` (baseline 0, giving α·r; verl). */
  singleton: z.enum(["zero", "raw"]).default("zero"),
  filter: filterOption,
});
export type GpgOptions = z.infer<typeof gpgOptions>;

/**
 * Group Policy Gradient (GPG, Chu et al. 2025, arXiv 2504.02546; verl `core_algos.compute_gpg_outcome_advantage`):
 * α = B / max(1, #{i : r_i ≠ 0}) over the whole batch (B = number of non-null rewards),
 * A_i = α (r_i − μ_g) / f_norm. No std division.
 * @returns advantages, shape [n]; NaN where the reward is null.
 */
export function gpg(input: AdvantageInput, o: GpgOptions, out?: Float64Array): Float64Array {
  const { rewards, groups } = input;
  const { nonNull: b, nonZero: nonzero } = countNonNull(rewards);
  const alpha = b / Math.max(1, nonzero) / o.fNorm;
  return centerScale(
    rewards,
    groups,
    undefined,
    { center: "mean", scale: "none", factor: alpha, singleton: o.singleton === "raw" ? alpha : 0 },
    out,
  );
}

export const gpgEstimator: EstimatorDefinition<GpgOptions> = {
  name: "gpg",
  summary: "GPG: α·(r − group mean)/f_norm, α = batch size / #non-zero rewards",
  options: gpgOptions,
  compute: gpg,
  batchStatistics: () => "α counts the non-zero rewards of the whole batch",
};
