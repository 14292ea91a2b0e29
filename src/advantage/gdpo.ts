import { z } from "zod";
import { batchNormalize, batchNormStatistics, batchOptions } from "./batch-norm.js";
import { singletonFactor, singletonOption } from "./common.js";
import { componentColumns, componentOptions, nonNullCounts, unscorableRows, zerosUnlessNull } from "./components.js";
import { filterOption } from "./filter.js";
import { groupMoments, groupStats } from "./group-stats.js";
import { grpo, grpoOptions } from "./grpo.js";
import { applyMoments } from "./kernel.js";
import type { AdvantageInput, EstimatorDefinition } from "./types.js";

export const gdpoOptions = z.strictObject({
  ...componentOptions,
  /** Per-component baseline: the group `mean` (verl, TRL) or `leave-one-out` (NeMo-RL's default). */
  baseline: z.enum(["mean", "leave-one-out"]).default("mean"),
  /** Per-component group std: `unbiased` (verl, TRL, NeMo-RL) or `population`. */
  std: z.enum(["unbiased", "population"]).default("unbiased"),
  /** Per-component std over the `group` or, with a leave-one-out baseline, over the `others` (NeMo-RL). */
  stdOver: z.enum(["group", "others"]).default("group"),
  /** Per-component ε added to the group std (verl 1e-6, TRL 1e-4, NeMo-RL 1e-6). */
  epsilon: z.number().nonnegative().default(1e-6),
  /** Per-component: divide by σ + ε `always`, or only where σ > 0 (`positive-std`, NeMo-RL). */
  epsilonWhere: z.enum(["always", "positive-std"]).default("always"),
  /** Per-component singleton rule (verl: `unit`, its GRPO rule μ = 0, σ = 1). */
  singleton: singletonOption,
  ...batchOptions,
  filter: filterOption,
});
export type GdpoOptions = z.infer<typeof gdpoOptions>;

/**
 * Group reward-Decoupled normalization Policy Optimization (GDPO, arXiv 2601.05242; verl
 * `core_algos.compute_gdpo_outcome_advantage`, PR #5503; TRL `multi_objective_aggregation="normalize_then_sum"`,
 * PR #4785; NeMo-RL `GDPOAdvantageEstimator`).
 *
 * For each component k with scores s_{ik} (shape [n] each), in each group g:
 *   â_{ik} = (s_{ik} − b_{gk}) / (σ_{gk} + ε)              (the GRPO normalization per component; NeMo-RL: leave-one-out)
 *   x_i = Σ_k w_k â_{ik}                                    (weights default 1, `weights: {name: w}`)
 *   A_i = (x_i − mean_B(x)) / sqrt(var_B(x) + ε_B)          (verl: masked_whiten over tokens, unbiased, ε_B = 1e-8)
 *      or (x_i − mean_B(x)) / (σ_B(x) + ε_B)               (TRL: unbiased, ε_B = 1e-4; NeMo-RL: ε_B = 0, per rollout)
 * `whiten: token` weighs the batch statistics by response length (verl's `masked_whiten` exactly); the `verl`
 * preset uses `auto` (per token when lengths are known, else per rollout).
 *
 * Null handling: rollouts with a null reward are left out of every statistic and get NaN. An unscorable component
 * (NaN score) of a scored rollout is left out of that component's group statistics and contributes 0 (TRL's
 * nanmean/nansum); a scored rollout whose every component is unscorable is left out of the batch statistics and
 * gets 0 (TRL's `unscorable_mask`). Under `onUnscorable: zero` the engine hands unscorable components in as 0.
 * @param input rewards shape [n] (only its nulls are read), components.scores K × [n].
 * @returns advantages, shape [n].
 */
export function gdpo(input: AdvantageInput, o: GdpoOptions, out?: Float64Array): Float64Array {
  const cols = componentColumns("gdpo", input, o.components, o.weights);
  const x = zerosUnlessNull(input.rewards, cols.scored, out);
  const { groups } = input;
  const fast = o.baseline === "mean";
  const K = cols.scores.length;
  const counts = new Array<number>(K).fill(0);
  const grpoOpts = fast
    ? undefined
    : grpoOptions.parse({
        baseline: o.baseline,
        std: o.std,
        stdOver: o.stdOver,
        epsilon: o.epsilon,
        epsilonWhere: o.epsilonWhere,
        singleton: o.singleton,
      });
  if (fast) {
    // group-major: each group's slice of x stays in cache while every component adds its term
    const per = {
      center: "mean",
      scale: "std",
      std: o.std,
      epsilon: o.epsilon,
      singleton: singletonFactor(o.singleton, true, o.epsilon),
    } as const;
    const m = new Float64Array(4); // one group's statistics at a time (groupMoments)
    for (let g = 0; g < groups.count; g++) {
      for (let k = 0; k < K; k++) {
        groupMoments(cols.scores[k]!, groups, g, m);
        counts[k]! += m[0]!;
        applyMoments(cols.scores[k]!, groups, g, m, per, x, cols.weights[k]!, true);
      }
    }
  } else {
    cols.scores.forEach((s, k) => {
      const stats = groupStats(s, groups);
      counts[k] = nonNullCounts([stats])[0]!;
      const a = grpo({ rewards: s, groups }, grpoOpts!, undefined, stats);
      const weight = cols.weights[k]!;
      for (let i = 0; i < a.length; i++) if (a[i] === a[i]) x[i]! += weight * a[i]!;
    });
  }
  batchNormalize(x, input, o, "gdpo", unscorableRows(input, cols, counts));
  return x;
}

export const gdpoEstimator: EstimatorDefinition<GdpoOptions> = {
  name: "gdpo",
  summary: "GDPO: GRPO-normalize each component, weighted sum, whiten over the batch",
  options: gdpoOptions,
  needs: ["components"],
  uses: ["lengths"],
  compute: gdpo,
  batchStatistics: batchNormStatistics,
};
