import { z } from "zod";
import { requireInputs } from "./common.js";
import { filterOption } from "./filter.js";
import { groupStats } from "./group-stats.js";
import { refineGroups } from "./groups.js";
import type { AdvantageInput, EstimatorDefinition } from "./types.js";

export const stratifiedOptions = z.strictObject({
  /** Record field (dotted path) holding the stratum key; read by the CLI into `input.strata`. */
  key: z.string().min(1).default("stratum"),
  /** Blend weight α on the stratified estimate: A = α·A_SAN + (1 − α)·A_global. */
  alpha: z.number().min(0).max(1).default(0.5),
  /** Std convention inside strata and groups: `population` (unit variance exactly; default) or `unbiased`. */
  std: z.enum(["population", "unbiased"]).default("population"),
  epsilon: z.number().nonnegative().default(1e-6),
  filter: filterOption,
});
export type StratifiedOptions = z.infer<typeof stratifiedOptions>;

/**
 * Stratified Advantage Normalization blended with the global estimator (Stratified GRPO, arXiv 2510.06214;
 * methods catalog T03; the paper's constants are unverified — α, the singleton-stratum rule and the std are
 * rewardkit's documented choices): a prompt's rollouts are partitioned into strata by a structural key (e.g.
 * number of search calls and their outcomes); advantages are normalized within each stratum only, then linearly
 * blended with the group-level (global) estimator for finite-sample stability:
 *   A_SAN_i = (r_i − μ_{g,s}) / (σ_{g,s} + ε),  A_glob_i = (r_i − μ_g) / (σ_g + ε),
 *   A_i = α A_SAN_i + (1 − α) A_glob_i.
 * With population std each stratum's A_SAN has mean 0 and (up to ε) unit variance. A stratum with a single
 * non-null reward has no within-stratum comparison: it uses A_glob alone. Singleton groups get 0; a group or
 * stratum whose rewards are all equal contributes exactly 0. Invariant under positive affine transforms of the
 * rewards (up to ε).
 * @param input rewards shape [n], strata (dense ids) shape [n].
 * @returns advantages, shape [n].
 */
export function stratified(input: AdvantageInput, o: StratifiedOptions): Float64Array {
  requireInputs("stratified", input, ["strata"]);
  const { rewards, groups } = input;
  const sub = refineGroups(groups, input.strata!);
  const all = groupStats(rewards, groups);
  const by = groupStats(rewards, sub.index);
  const unbiased = o.std === "unbiased";
  const scaleOf = (n: number, m2: number, flat: boolean): number =>
    flat || n < 2 ? 0 : 1 / (Math.sqrt(m2 / (unbiased ? n - 1 : n)) + o.epsilon);
  const out = new Float64Array(rewards.length).fill(NaN);
  for (let g = 0; g < groups.count; g++) {
    const mean = all.mean[g]!;
    const globalScale = scaleOf(all.n[g]!, all.m2[g]!, !(all.max[g]! > all.min[g]!));
    for (let k = groups.offsets[g]!; k < groups.offsets[g + 1]!; k++) {
      const i = groups.order[k]!;
      const r = rewards[i]!;
      if (r !== r) continue;
      const glob = (r - mean) * globalScale;
      const s = sub.ids[i]!;
      const m = by.n[s]!;
      if (m < 2) {
        out[i] = glob;
        continue;
      }
      const san = (r - by.mean[s]!) * scaleOf(m, by.m2[s]!, !(by.max[s]! > by.min[s]!));
      out[i] = o.alpha * san + (1 - o.alpha) * glob;
    }
  }
  return out;
}

export const stratifiedEstimator: EstimatorDefinition<StratifiedOptions> = {
  name: "stratified",
  summary: "Stratified GRPO: normalize within strata of a key field, blended with the group-level estimate",
  options: stratifiedOptions,
  needs: ["strata"],
  compute: stratified,
  batchStatistics: () => undefined,
};
