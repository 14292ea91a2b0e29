import type { GroupIndex } from "./groups.js";
import { accumulateGroup, groupMoments } from "./group-stats.js";
import type { GroupStats } from "./group-stats.js";

/** What {@link centerScale} computes per group, named (no positional flags). */
export interface CenterScaleOptions {
  /** `mean`: r − μ; `leave-one-out`: r − mean of the other members = n/(n − 1) · (r − μ) (RLOO). */
  center: "mean" | "leave-one-out";
  /** `none`: no division; `std`: divide by the group's std + ε (GRPO). */
  scale: "none" | "std";
  /** Std convention with `scale: std`: `unbiased` (n − 1) or `population` (n). */
  std?: "unbiased" | "population";
  /** ε added to the std (`scale: std`). */
  epsilon?: number;
  /** Every advantage is multiplied by this (GPG's α / f_norm); default 1. */
  factor?: number;
  /**
   * A group with one non-null reward gets `singleton · r` (0: no comparison; 1: the reward, baseline 0;
   * 1/(1 + ε): verl's μ = 0, σ = 1). Already multiplied by `factor` by the caller where that applies.
   */
  singleton: number;
}

/**
 * The shared hot loop of the centered estimators: out_i = (r_i − c_g) · f_g, with the group's centre c_g and
 * factor f_g derived once per group from its {@link GroupStats}. A null (NaN) reward stays NaN; a singleton
 * gives `singleton · r`; a flat group (all non-null rewards equal) gives exactly 0, whatever ε.
 * @param rewards shape [n], NaN = null.
 * @param stats `groupStats(rewards, groups)` when the caller has it; else each group's statistics are accumulated
 *   (by the same {@link accumulateGroup}) right before the group is written, while its values are in cache.
 * @param out optional output buffer of length n (numpy's `out=`): written in full and returned; else a fresh array.
 * @param fill when true, `stats` is an empty {@link GroupStats} (from `emptyStats`) that is filled group by group as
 *   the kernel goes, so the caller gets the statistics without a separate pass.
 * @param add when true, `out[i] += weight · value` for non-null rewards instead of `out[i] = value` (GDPO's
 *   weighted sum of per-component advantages, with no temporary array); NaN entries of `out` stay NaN.
 * @returns advantages, shape [n].
 */
export function centerScale(
  rewards: Float64Array,
  groups: GroupIndex,
  stats: GroupStats | undefined,
  o: CenterScaleOptions,
  out?: Float64Array,
  add?: { weight: number },
  fill = false,
): Float64Array {
  const n = rewards.length;
  if (out === undefined || out.length !== n) out = new Float64Array(n);
  const w = add ? add.weight : 1;
  if (stats === undefined) {
    // fused, with a one-group scratch: no [G]-sized allocations
    const m = new Float64Array(4);
    for (let g = 0; g < groups.count; g++) {
      groupMoments(rewards, groups, g, m);
      applyMoments(rewards, groups, g, m, o, out, w, add !== undefined);
    }
    return out;
  }
  for (let g = 0; g < groups.count; g++) {
    if (fill) accumulateGroup(rewards, groups, g, stats);
    applyGroup(rewards, groups, g, stats, o, out, w, add !== undefined);
  }
  return out;
}

/**
 * Writes group g of {@link centerScale}: out_i = w · (r_i − c_g) · f_g, or adds it (`add`: out_i += …, null
 * rewards skipped), from the statistics at index `at` of `st` (default g). Multi-component estimators call it component after component inside one group, so the
 * group's slice of `out` stays in cache across components.
 */
export function applyGroup(
  rewards: Float64Array,
  groups: GroupIndex,
  g: number,
  st: GroupStats,
  o: CenterScaleOptions,
  out: Float64Array,
  w: number,
  add: boolean,
  at = g,
): void {
  applyWith(rewards, groups, g, st.n[at]!, st.mean[at]!, st.m2[at]!, !(st.max[at]! > st.min[at]!), o, out, w, add);
}

/** {@link applyGroup} from a {@link groupMoments} scratch `m` (n, mean, m2, flat) instead of a {@link GroupStats}. */
export function applyMoments(
  rewards: Float64Array,
  groups: GroupIndex,
  g: number,
  m: Float64Array,
  o: CenterScaleOptions,
  out: Float64Array,
  w: number,
  add: boolean,
): void {
  applyWith(rewards, groups, g, m[0]!, m[1]!, m[2]!, m[3] === 1, o, out, w, add);
}

function applyWith(
  rewards: Float64Array,
  groups: GroupIndex,
  g: number,
  m: number,
  mean: number,
  m2: number,
  flat: boolean,
  o: CenterScaleOptions,
  out: Float64Array,
  w: number,
  add: boolean,
): void {
  const { order, offsets } = groups;
  const start = offsets[g]!;
  const end = offsets[g + 1]!;
  let c: number;
  let f: number;
  if (m === 0) {
    c = 0;
    f = 0;
  } else if (m === 1) {
    c = 0;
    f = o.singleton;
  } else if (flat) {
    c = mean; // = every value exactly: r − c = 0
    f = 0;
  } else {
    const factor = o.factor ?? 1;
    c = mean;
    f = o.center === "leave-one-out" ? (factor * m) / (m - 1) : factor;
    if (o.scale === "std") f /= Math.sqrt(m2 / (o.std === "population" ? m : m - 1)) + (o.epsilon ?? 0);
  }
  f *= w;
  if (groups.identity === true) {
    if (add) {
      for (let k = start; k < end; k++) {
        const v = rewards[k]!;
        if (v === v) out[k]! += (v - c) * f;
      }
    } else for (let k = start; k < end; k++) out[k] = (rewards[k]! - c) * f; // NaN stays NaN
  } else if (add) {
    for (let k = start; k < end; k++) {
      const i = order[k]!;
      const v = rewards[i]!;
      if (v === v) out[i]! += (v - c) * f;
    }
  } else {
    for (let k = start; k < end; k++) {
      const i = order[k]!;
      out[i] = (rewards[i]! - c) * f;
    }
  }
}
