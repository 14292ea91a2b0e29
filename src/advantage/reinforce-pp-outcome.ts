import { z } from "zod";
import { whitenOption, whitenWeights } from "./batch-norm.js";
import { filterOption } from "./filter.js";
import type { AdvantageInput, EstimatorDefinition } from "./types.js";
import { whitenInPlace } from "./whiten.js";

export const reinforcePpOptions = z.strictObject({
  /** Batch variance: `unbiased` (verl `masked_whiten`) or `population`. */
  variance: z.enum(["unbiased", "population"]).default("unbiased"),
  /** How ε enters the whitening: `sqrt-var` (verl), `clamp-var`, `std-plus`. */
  epsilonMode: z.enum(["sqrt-var", "clamp-var", "std-plus"]).default("sqrt-var"),
  /** Whitening ε (verl: 1e-8). */
  epsilon: z.number().nonnegative().default(1e-8),
  /**
   * Batch statistics per `rollout` (each counted once; default), per `token` (weighted by response length, needs
   * lengths: verl's `masked_whiten` over the response mask, exactly), or `auto` (per token when lengths are known).
   */
  whiten: whitenOption.default("rollout"),
  filter: filterOption,
});
export type ReinforcePpOptions = z.infer<typeof reinforcePpOptions>;

/**
 * REINFORCE++ without a baseline (Hu et al. 2025, arXiv 2501.03262; verl
 * `core_algos.compute_reinforce_plus_plus_outcome_advantage`): the return of every response token is the outcome
 * reward (γ = 1, verl's default), whitened over the batch: A_i = (r_i − mean(r)) / sqrt(var(r) + ε), ε = 1e-8,
 * unbiased variance. Groups play no part: the baseline is the batch mean. verl whitens over tokens, so rollout i
 * counts L_i times; `whiten: token` reproduces that from response lengths.
 * Example: rewards [1, 0, 0, 1] → mean 0.5, unbiased var 1/3 → [0.866025, −0.866025, −0.866025, 0.866025].
 * @param input rewards shape [n] (NaN = null, left out of the statistics); `lengths` shape [n] for token whitening.
 * @returns advantages, shape [n]; NaN where the reward is null.
 */
export function reinforcePp(input: AdvantageInput, o: ReinforcePpOptions, out?: Float64Array): Float64Array {
  const weights = whitenWeights("reinforce_pp", input, o.whiten);
  const n = input.rewards.length;
  const x = out !== undefined && out.length === n ? out : new Float64Array(n);
  whitenInPlace(x, o, weights, input.rewards); // reads the rewards, writes x: no copy first
  return x;
}

export const reinforcePpEstimator: EstimatorDefinition<ReinforcePpOptions> = {
  name: "reinforce_pp",
  summary: "REINFORCE++: the outcome reward whitened over the batch (no group baseline)",
  options: reinforcePpOptions,
  uses: ["lengths"],
  compute: reinforcePp,
  batchStatistics: () => "the rewards are whitened over the whole batch",
};
