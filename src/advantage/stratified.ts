import { z } from "zod";
import { filterOption, requireInputs } from "./common.js";
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

interface Acc {
  n: number;
  sum: number;
  m2: number;
  lo: number;
  hi: number;
}

/**
 * Stratified Advantage Normalization blended with the global estimator (Stratified GRPO, methods catalog T03):
 * a prompt's rollouts are partitioned into strata by a structural key (e.g. number of search calls and their
 * outcomes); advantages are normalized within each stratum only, then linearly blended with the group-level
 * (global) estimator for finite-sample stability:
 *   A_SAN_i = (r_i − μ_{g,s}) / (σ_{g,s} + ε),  A_glob_i = (r_i − μ_g) / (σ_g + ε),
 *   A_i = α A_SAN_i + (1 − α) A_glob_i.
 * With population std each stratum's A_SAN has mean 0 and (up to ε) unit variance. A stratum with a single
 * non-null reward has no within-stratum comparison: it uses A_glob alone. Singleton groups get 0. Invariant under
 * positive affine transforms of the rewards (up to ε).
 * @param input rewards shape [n], strata (dense ids) shape [n].
 * @returns advantages, shape [n].
 */
export function stratified(input: AdvantageInput, o: StratifiedOptions): Float64Array {
  requireInputs("stratified", input, ["strata"]);
  const { rewards, groups } = input;
  const strata = input.strata!;
  const out = new Float64Array(rewards.length).fill(NaN);
  const dof = (a: Acc): number => (o.std === "unbiased" ? a.n - 1 : a.n);
  for (let g = 0; g < groups.count; g++) {
    const start = groups.offsets[g]!;
    const end = groups.offsets[g + 1]!;
    const all: Acc = { n: 0, sum: 0, m2: 0, lo: Infinity, hi: -Infinity };
    const by = new Map<number, Acc>();
    for (let k = start; k < end; k++) {
      const i = groups.order[k]!;
      const r = rewards[i]!;
      if (r !== r) continue;
      all.n++;
      all.sum += r;
      all.lo = Math.min(all.lo, r);
      all.hi = Math.max(all.hi, r);
      let a = by.get(strata[i]!);
      if (!a) by.set(strata[i]!, (a = { n: 0, sum: 0, m2: 0, lo: Infinity, hi: -Infinity }));
      a.n++;
      a.sum += r;
      a.lo = Math.min(a.lo, r);
      a.hi = Math.max(a.hi, r);
    }
    if (all.n === 0) continue;
    const mean = all.sum / all.n;
    for (let k = start; k < end; k++) {
      const i = groups.order[k]!;
      const r = rewards[i]!;
      if (r !== r) continue;
      all.m2 += (r - mean) * (r - mean);
      const a = by.get(strata[i]!)!;
      const d = r - a.sum / a.n;
      a.m2 += d * d;
    }
    // a group or stratum whose rewards are all equal contributes exactly 0 (decided exactly, whatever ε)
    const globalScale = all.hi > all.lo ? 1 / (Math.sqrt(all.m2 / dof(all)) + o.epsilon) : 0;
    for (let k = start; k < end; k++) {
      const i = groups.order[k]!;
      const r = rewards[i]!;
      if (r !== r) continue;
      const glob = (r - mean) * globalScale;
      const a = by.get(strata[i]!)!;
      if (a.n < 2) {
        out[i] = glob;
        continue;
      }
      const san = a.hi > a.lo ? (r - a.sum / a.n) / (Math.sqrt(a.m2 / dof(a)) + o.epsilon) : 0;
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
};
