import { z } from "zod";
import { componentOptions, filterOption, maskByReward, requireInputs, selectComponents, singletonOption, whitenInPlace, zerosUnlessNull } from "./common.js";
import { grpo, grpoOptions } from "./grpo.js";
import type { AdvantageInput, EstimatorDefinition } from "./types.js";

/** Batch-normalization options shared by the multi-component estimators that end with one. */
export const batchOptions = {
  /**
   * Final normalization over the batch: `sqrt-var` (x − μ)/sqrt(var + ε) (verl `masked_whiten`), `std-plus`
   * (x − μ)/(σ + ε) (TRL), `clamp-var` (x − μ)/sqrt(max(var, ε)) (OpenRLHF), `none`.
   */
  batchNorm: z.enum(["sqrt-var", "std-plus", "clamp-var", "none"]).default("sqrt-var"),
  /** Batch variance: `unbiased` (verl, TRL) or `population`. */
  batchVariance: z.enum(["unbiased", "population"]).default("unbiased"),
  /** ε of the batch normalization (verl 1e-8, TRL 1e-4). */
  batchEpsilon: z.number().nonnegative().default(1e-8),
  /** Batch statistics per `rollout` or per `token` (weighted by response length; verl's exact token-level whitening). */
  whiten: z.enum(["rollout", "token"]).default("rollout"),
};

/** Applies the batch step of {@link batchOptions} in place. */
export function batchNormalize(x: Float64Array, input: AdvantageInput, o: { batchNorm: string; batchVariance: "unbiased" | "population"; batchEpsilon: number; whiten: string }, name: string): void {
  if (o.batchNorm === "none") return;
  if (o.whiten === "token") requireInputs(name, input, ["lengths"]);
  whitenInPlace(x, { variance: o.batchVariance, epsilonMode: o.batchNorm as "sqrt-var" | "std-plus" | "clamp-var", epsilon: o.batchEpsilon }, o.whiten === "token" ? input.lengths : undefined);
}

export const gdpoOptions = z.strictObject({
  ...componentOptions,
  /** Per-component group std: `unbiased` (verl, TRL) or `population`. */
  std: z.enum(["unbiased", "population"]).default("unbiased"),
  /** Per-component ε added to the group std (verl 1e-6, TRL 1e-4). */
  epsilon: z.number().nonnegative().default(1e-6),
  /** Per-component singleton rule (verl: `unit`, its GRPO rule μ = 0, σ = 1). */
  singleton: singletonOption,
  ...batchOptions,
  filter: filterOption,
});
export type GdpoOptions = z.infer<typeof gdpoOptions>;

/**
 * Group reward-Decoupled normalization Policy Optimization (GDPO, arXiv 2601.05242; verl `gdpo` estimator,
 * PR #5503; TRL `multi_objective_aggregation="normalize_then_sum"`, PR #4785).
 *
 * For each component k with scores s_{ik} (shape [n] each), in each group g:
 *   â_{ik} = (s_{ik} − μ_{gk}) / (σ_{gk} + ε)            (the GRPO normalization per component)
 *   x_i = Σ_k w_k â_{ik}                                    (weights default 1, `weights: {name: w}`)
 *   A_i = (x_i − mean_B(x)) / sqrt(var_B(x) + ε_B)          (verl: masked_whiten, unbiased, ε_B = 1e-8)
 *      or (x_i − mean_B(x)) / (σ_B(x) + ε_B)               (TRL: unbiased, ε_B = 1e-4)
 * Batch whitening is per rollout; it equals verl's token-weighted whitening when all response lengths are equal,
 * up to the Bessel factor sqrt(L(N − 1)/(N·L − 1)) (see `reinforce_pp_baseline`); `whiten: token` weighs by lengths.
 *
 * Null handling: rollouts with a null reward are left out of every statistic and get NaN; an unscorable
 * component (NaN score) of a scored rollout is left out of that component's group statistics and contributes 0
 * (TRL's nansum).
 * @param input rewards shape [n] (only its nulls are read), components.scores K × [n].
 * @returns advantages, shape [n].
 */
export function gdpo(input: AdvantageInput, o: GdpoOptions): Float64Array {
  requireInputs("gdpo", input, ["components"]);
  const sel = selectComponents(input, o.components, o.weights);
  const scores = maskByReward(input.rewards, sel.scores);
  const n = input.rewards.length;
  const x = zerosUnlessNull(input.rewards);
  const per = grpoOptions.parse({ std: o.std, epsilon: o.epsilon, singleton: o.singleton });
  sel.scores.forEach((_, k) => {
    const a = grpo({ rewards: scores[k]!, groups: input.groups }, per);
    const w = sel.weights[k]!;
    for (let i = 0; i < n; i++) {
      const v = a[i]!;
      if (v === v) x[i]! += w * v;
    }
  });
  batchNormalize(x, input, o, "gdpo");
  return x;
}

export const gdpoEstimator: EstimatorDefinition<GdpoOptions> = {
  name: "gdpo",
  summary: "GDPO: GRPO-normalize each component, weighted sum, whiten over the batch",
  options: gdpoOptions,
  needs: ["components"],
  compute: gdpo,
};
