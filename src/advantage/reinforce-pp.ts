import { z } from "zod";
import { whitenOption, whitenWeights } from "./batch-norm.js";
import { filterOption } from "./filter.js";
import { centerScale } from "./kernel.js";
import type { AdvantageInput, EstimatorDefinition } from "./types.js";
import { whitenInPlace } from "./whiten.js";

export const reinforcePpBaselineOptions = z.strictObject({
  /** Batch variance: `unbiased` (verl `masked_whiten`) or `population` (OpenRLHF). */
  variance: z.enum(["unbiased", "population"]).default("unbiased"),
  /** How ε enters the whitening: `sqrt-var` (verl), `clamp-var` (OpenRLHF), `std-plus`. */
  epsilonMode: z.enum(["sqrt-var", "clamp-var", "std-plus"]).default("sqrt-var"),
  /** Whitening ε (verl and OpenRLHF: 1e-8). */
  epsilon: z.number().nonnegative().default(1e-8),
  /**
   * Batch statistics per `rollout` (each counted once; default), per `token` (weighted by response length, needs
   * lengths), or `auto` (per token when lengths are known, else per rollout; the `verl` and `openrlhf` presets).
   */
  whiten: whitenOption.default("rollout"),
  /** A group with one non-null reward: `zero` (default) or `raw` (baseline 0, verl). */
  singleton: z.enum(["zero", "raw"]).default("zero"),
  filter: filterOption,
});
export type ReinforcePpBaselineOptions = z.infer<typeof reinforcePpBaselineOptions>;

/**
 * REINFORCE++ with a group baseline (Hu et al. 2025, arXiv 2501.03262; verl
 * `core_algos.compute_reinforce_plus_plus_baseline_outcome_advantage`; OpenRLHF `reinforce_baseline`):
 * x_i = r_i − μ_g, then whitened over the batch: A_i = (x_i − mean(x)) / sqrt(var(x) + ε) (verl, ε = 1e-8,
 * unbiased var) or / sqrt(max(var_pop(x), ε)) (OpenRLHF).
 *
 * The peers whiten over tokens (verl `masked_whiten` over the response mask; OpenRLHF over the action mask):
 * rollout i counts L_i times. `whiten: token` (and `auto` with lengths, the presets) reproduces that exactly from
 * response lengths: weights L_i, W = Σ L_i, unbiased divides by W − 1, population by W. Without lengths `auto`
 * whitens per rollout, which equals the peers only when every length is the same (then up to the Bessel factor
 * sqrt(L(N − 1)/(N·L − 1)) for verl); with failures longer than successes the gap reaches 0.3–0.7.
 * @param input rewards shape [n]; `lengths` shape [n] for token whitening.
 * @returns advantages, shape [n]; NaN where the reward is null.
 */
export function reinforcePpBaseline(
  input: AdvantageInput,
  o: ReinforcePpBaselineOptions,
  out?: Float64Array,
): Float64Array {
  const weights = whitenWeights("reinforce_pp_baseline", input, o.whiten);
  const { rewards, groups } = input;
  const x = centerScale(
    rewards,
    groups,
    undefined,
    { center: "mean", scale: "none", singleton: o.singleton === "raw" ? 1 : 0 },
    out,
  );
  whitenInPlace(x, o, weights);
  return x;
}

export const reinforcePpBaselineEstimator: EstimatorDefinition<ReinforcePpBaselineOptions> = {
  name: "reinforce_pp_baseline",
  summary: "REINFORCE++-baseline: r − group mean, then whitened over the batch (per rollout or per token)",
  options: reinforcePpBaselineOptions,
  uses: ["lengths"],
  compute: reinforcePpBaseline,
  batchStatistics: () => "r − group mean is whitened over the whole batch",
};
