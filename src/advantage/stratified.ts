import { z } from "zod";
import { requireInputs } from "./common.js";
import { filterOption } from "./filter.js";
import { groupMoments } from "./group-stats.js";
import type { GroupIndex } from "./groups.js";
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
export function stratified(input: AdvantageInput, o: StratifiedOptions, out?: Float64Array): Float64Array {
  requireInputs("stratified", input, ["strata"]);
  const { rewards, groups } = input;
  const strata = input.strata!;
  const n = rewards.length;
  if (out === undefined || out.length !== n) out = new Float64Array(n);
  let S = 1;
  for (let i = 0; i < n; i++) {
    const s = strata[i]!;
    if (s < 0) throw new RangeError(`stratified: stratum id at ${i} must be a non-negative integer, got ${s}`);
    if (s >= S) S = s + 1;
  }
  // One group at a time, in two passes over its members while they are in cache: the group's and each stratum's
  // statistics (strata numbered in order of first appearance inside the group: `slotOf`, valid where `stampOf`
  // is the group), then the advantages. No [n]-sized sub-group index, no Map, one scale per stratum.
  const { order, offsets } = groups;
  const id = groups.identity === true;
  let size = 0;
  for (let g = 0; g < groups.count; g++) size = Math.max(size, offsets[g + 1]! - offsets[g]!);
  const slotOf = new Int32Array(S);
  const stampOf = new Int32Array(S).fill(-1);
  const slotAt = new Int32Array(size); // member k − start → its stratum's slot
  const sub: StratumScratch = {
    n: new Int32Array(size),
    x0: new Float64Array(size),
    s: new Float64Array(size),
    q: new Float64Array(size),
    mean: new Float64Array(size),
    scale: new Float64Array(size),
  };
  const unbiased = o.std === "unbiased";
  const eps = o.epsilon;
  const alpha = o.alpha;
  const m = new Float64Array(4);
  const { n: sn, x0: sx0, s: ss, q: sq, mean: smean, scale: sscale } = sub;
  for (let g = 0; g < groups.count; g++) {
    const start = offsets[g]!;
    const end = offsets[g + 1]!;
    groupMoments(rewards, groups, g, m);
    const gn = m[0]!;
    const mean = m[1]!;
    const globalScale = m[3] === 1 || gn < 2 ? 0 : 1 / (Math.sqrt(m[2]! / (unbiased ? gn - 1 : gn)) + eps);
    let slots = 0;
    for (let k = start; k < end; k++) {
      const i = id ? k : order[k]!;
      const v = rewards[i]!;
      if (v !== v) continue;
      const st = strata[i]!;
      let j: number;
      if (stampOf[st] === g) j = slotOf[st]!;
      else {
        stampOf[st] = g;
        j = slotOf[st] = slots++;
        sn[j] = 0;
        sx0[j] = v;
        ss[j] = 0;
        sq[j] = 0;
      }
      slotAt[k - start] = j;
      const d = v - sx0[j]!;
      sn[j]!++;
      ss[j]! += d;
      sq[j]! += d * d;
    }
    for (let j = 0; j < slots; j++) {
      const c = sn[j]!;
      if (c < 2) continue; // A_glob alone
      const dm = ss[j]! / c;
      smean[j] = sx0[j]! + dm;
      const flat = stratumFlat(rewards, groups, start, end, slotAt, j, sub);
      const m2 = flat ? 0 : Math.max(0, sq[j]! - ss[j]! * dm);
      sscale[j] = flat ? 0 : 1 / (Math.sqrt(m2 / (unbiased ? c - 1 : c)) + eps);
    }
    for (let k = start; k < end; k++) {
      const i = id ? k : order[k]!;
      const r = rewards[i]!;
      if (r !== r) {
        out[i] = NaN;
        continue;
      }
      const glob = (r - mean) * globalScale;
      const j = slotAt[k - start]!;
      if (sn[j]! < 2) {
        out[i] = glob;
        continue;
      }
      const san = (r - smean[j]!) * sscale[j]!;
      out[i] = alpha * san + (1 - alpha) * glob;
    }
  }
  return out;
}

/** Per-stratum sums of one group, by slot: count, first value x0, Σ(v − x0), Σ(v − x0)², then mean and 1/(σ + ε). */
interface StratumScratch {
  n: Int32Array;
  x0: Float64Array;
  s: Float64Array;
  q: Float64Array;
  mean: Float64Array;
  scale: Float64Array;
}

/**
 * Whether every non-null reward of stratum slot `j` in the group equals its first (exactly, as min = max):
 * Σ(v − x0)² > 0 proves a spread; otherwise the members are compared. A function called for every stratum, so
 * the comparison loop never sits unexecuted (without type feedback) inside the hot loop.
 */
function stratumFlat(
  rewards: Float64Array,
  groups: GroupIndex,
  start: number,
  end: number,
  slotAt: Int32Array,
  j: number,
  sub: StratumScratch,
): boolean {
  if (sub.q[j]! > 0) return false;
  const x0 = sub.x0[j]!;
  for (let k = start; k < end; k++) {
    const v = rewards[groups.identity === true ? k : groups.order[k]!]!;
    if (v === v && slotAt[k - start] === j && v !== x0) return false;
  }
  return true;
}

export const stratifiedEstimator: EstimatorDefinition<StratifiedOptions> = {
  name: "stratified",
  summary: "Stratified GRPO: normalize within strata of a key field, blended with the group-level estimate",
  options: stratifiedOptions,
  needs: ["strata"],
  compute: stratified,
  batchStatistics: () => undefined,
};
