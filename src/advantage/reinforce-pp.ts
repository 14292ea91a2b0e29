import { z } from "zod";
import { filterOption, requireInputs, whitenInPlace } from "./common.js";
import { centerScale } from "./kernel.js";
import type { AdvantageInput, EstimatorDefinition } from "./types.js";

export const reinforcePpBaselineOptions = z.strictObject({
  /** Batch variance: `unbiased` (verl `masked_whiten`) or `population` (OpenRLHF). */
  variance: z.enum(["unbiased", "population"]).default("unbiased"),
  /** How ε enters the whitening: `sqrt-var` (verl), `clamp-var` (OpenRLHF), `std-plus`. */
  epsilonMode: z.enum(["sqrt-var", "clamp-var", "std-plus"]).default("sqrt-var"),
  /** Whitening ε (verl and OpenRLHF: 1e-8). */
  epsilon: z.number().nonnegative().default(1e-8),
  /** Batch statistics per `rollout` (each counted once) or per `token` (weighted by response length, needs lengths). */
  whiten: z.enum(["rollout", "token"]).default("rollout"),
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
 * Batch whitening here is per rollout (`whiten: rollout`). verl whitens per token (`masked_whiten` over the
 * response mask), which weighs rollout i by its length L_i. With equal lengths L the two are equal up to the
 * Bessel correction: the mean is the same, and verl's unbiased variance divides by N·L − 1 tokens instead of
 * N − 1 rollouts, so verl's std is sqrt(L(N − 1)/(N·L − 1)) times the per-rollout one — exactly 1 for L = 1 and
 * between sqrt((N − 1)/N) ≈ 1 − 1/(2N) and 1 otherwise. `whiten: token` reproduces verl exactly from response
 * lengths (weights L_i, W = Σ L_i, unbiased divides by W − 1).
 * @param input rewards shape [n]; `lengths` shape [n] with `whiten: token`.
 * @returns advantages, shape [n]; NaN where the reward is null.
 */
export function reinforcePpBaseline(input: AdvantageInput, o: ReinforcePpBaselineOptions, out?: Float64Array): Float64Array {
  if (o.whiten === "token") requireInputs("reinforce_pp_baseline", input, ["lengths"]);
  const x = centerScale(input.rewards, input.groups, 0, false, 0, 1, o.singleton === "raw" ? (r) => r : () => 0, out);
  whitenInPlace(x, o, o.whiten === "token" ? input.lengths : undefined);
  return x;
}

export const reinforcePpBaselineEstimator: EstimatorDefinition<ReinforcePpBaselineOptions> = {
  name: "reinforce_pp_baseline",
  summary: "REINFORCE++-baseline: r − group mean, then whitened over the batch",
  options: reinforcePpBaselineOptions,
  compute: reinforcePpBaseline,
};
