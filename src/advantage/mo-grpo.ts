import { z } from "zod";
import { batchNormalize, batchNormOption, batchNormStatistics, batchOptions } from "./batch-norm.js";
import { componentColumns, componentOptions, unscorableRows, zerosUnlessNull } from "./components.js";
import { filterOption } from "./filter.js";
import { groupMoments } from "./group-stats.js";
import { applyMoments } from "./kernel.js";
import type { AdvantageInput, EstimatorDefinition } from "./types.js";

export const moGrpoOptions = z.strictObject({
  ...componentOptions,
  /** Std each component is divided by within its group: `population` (default) or `unbiased`. */
  std: z.enum(["population", "unbiased"]).default("population"),
  epsilon: z.number().nonnegative().default(1e-6),
  ...batchOptions,
  batchNorm: batchNormOption.default("none"),
  filter: filterOption,
});
export type MoGrpoOptions = z.infer<typeof moGrpoOptions>;

/**
 * MO-GRPO (multi-objective GRPO, arXiv 2509.22047, methods catalog T05). **Interpretation** (only the abstract
 * and third-party summaries could be read): "a simple normalization method to reweight the reward functions
 * automatically according to the variances of their values", so that all reward functions contribute evenly while
 * the order of preferences is kept. rewardkit reweights each component by the inverse of its within-group std:
 *   A_i = Σ_k w_k (s_{ik} − μ_{gk}) / (σ_{gk} + ε),   σ population by default,
 * so every component with variance contributes exactly unit within-group variance, and each map s ↦ (s − μ)/σ is
 * strictly increasing (with one component the order of A equals the order of r). Unverified: whether the paper
 * re-standardizes the sum within the group (here only batch-wide, `batchNorm`), and its std convention.
 * Components without variance in a group contribute 0. Null handling as in `gdpo`.
 * @param input components.scores K × [n]; rewards shape [n] (nulls only).
 * @returns advantages, shape [n].
 */
export function moGrpo(input: AdvantageInput, o: MoGrpoOptions, buffer?: Float64Array): Float64Array {
  const cols = componentColumns("mo_grpo", input, o.components, o.weights);
  const out = zerosUnlessNull(input.rewards, cols.scored, buffer);
  const { groups } = input;
  const K = cols.scores.length;
  const counts = new Array<number>(K).fill(0);
  const m = new Float64Array(4); // one group's statistics at a time (groupMoments)
  const per = { center: "mean", scale: "std", std: o.std, epsilon: o.epsilon, singleton: 0 } as const;
  for (let g = 0; g < groups.count; g++) {
    for (let k = 0; k < K; k++) {
      groupMoments(cols.scores[k]!, groups, g, m);
      counts[k]! += m[0]!;
      applyMoments(cols.scores[k]!, groups, g, m, per, out, cols.weights[k]!, true);
    }
  }
  batchNormalize(out, input, o, "mo_grpo", unscorableRows(input, cols, counts));
  return out;
}

export const moGrpoEstimator: EstimatorDefinition<MoGrpoOptions> = {
  name: "mo_grpo",
  summary: "MO-GRPO: each component reweighted by its inverse within-group std, then summed",
  options: moGrpoOptions,
  needs: ["components"],
  uses: ["lengths"],
  compute: moGrpo,
  batchStatistics: batchNormStatistics,
};
