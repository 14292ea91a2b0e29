import type { GroupIndex } from "./groups.js";

/**
 * Per-group statistics of the non-null (non-NaN) values of one column, as parallel arrays of shape [groups.count]
 * (structure of arrays). Written once, used by every estimator and by the advantage diagnostics.
 */
export interface GroupStats {
  /** Number of non-null values in the group. */
  n: Int32Array;
  /** Mean of the non-null values (weighted when weights were given); NaN when n = 0. */
  mean: Float64Array;
  /** Σ w (v − mean)² over the non-null values (w = 1 without weights): n · population variance. */
  m2: Float64Array;
  /** Smallest and largest non-null value (+∞ / −∞ when n = 0). `min === max` decides a flat group exactly. */
  min: Float64Array;
  max: Float64Array;
  /** Σ w over the non-null values (only with weights). */
  weight?: Float64Array;
}

/**
 * One pass over each group: count, mean, squared deviations, min and max of the non-null values.
 * Sums are taken around the group's first non-null value x0 (Σ(v − x0), Σ(v − x0)²), which keeps the one-pass
 * variance accurate for rewards and makes a flat group exact: all values equal → mean = x0, m2 = 0.
 * With `weights` (shape [n], ≥ 0, e.g. response lengths) the mean and m2 are weighted; a group whose weights sum
 * to 0 falls back to the plain mean.
 * @param values shape [n], NaN = null (left out).
 * @returns {@link GroupStats}, each array of shape [groups.count].
 */
export function groupStats(values: Float64Array, groups: GroupIndex, weights?: Float64Array): GroupStats {
  const st = emptyStats(groups.count, weights !== undefined);
  for (let g = 0; g < groups.count; g++) accumulateGroup(values, groups, g, st, weights);
  return st;
}

/** Zeroed {@link GroupStats} for `count` groups (with a `weight` array when `weighted`). */
export function emptyStats(count: number, weighted = false): GroupStats {
  const st: GroupStats = {
    n: new Int32Array(count),
    mean: new Float64Array(count),
    m2: new Float64Array(count),
    min: new Float64Array(count),
    max: new Float64Array(count),
  };
  if (weighted) st.weight = new Float64Array(count);
  return st;
}

/**
 * The one per-group accumulation: fills `st` at index `at` (default `g`) from group g's non-null values (see
 * {@link groupStats}); `at = 0` with a one-group `st` is a scratch that costs no [G]-sized arrays. Estimators that apply a group's statistics right after computing them (the centered
 * kernel) call it group by group, so the group's values are read twice while they are in cache.
 */
export function accumulateGroup(
  values: Float64Array,
  groups: GroupIndex,
  g: number,
  st: GroupStats,
  weights?: Float64Array,
  at = g,
): void {
  const { order, offsets } = groups;
  const id = groups.identity === true;
  const start = offsets[g]!;
  const end = offsets[g + 1]!;
  let x0 = NaN;
  for (let k = start; k < end && x0 !== x0; k++) x0 = values[id ? k : order[k]!]!;
  let n = 0;
  let s = 0;
  let q = 0;
  let lo = Infinity;
  let hi = -Infinity;
  if (weights === undefined) {
    // contiguous groups read values[k] directly: a separate loop keeps it free of the order indirection
    if (id) {
      for (let k = start; k < end; k++) {
        const v = values[k]!;
        if (v === v) {
          const d = v - x0;
          n++;
          s += d;
          q += d * d;
          if (v < lo) lo = v;
          if (v > hi) hi = v;
        }
      }
    } else {
      for (let k = start; k < end; k++) {
        const v = values[order[k]!]!;
        if (v === v) {
          const d = v - x0;
          n++;
          s += d;
          q += d * d;
          if (v < lo) lo = v;
          if (v > hi) hi = v;
        }
      }
    }
    st.n[at] = n;
    st.min[at] = lo;
    st.max[at] = hi;
    if (n === 0) st.mean[at] = NaN;
    else {
      const dm = s / n;
      st.mean[at] = x0 + dm;
      st.m2[at] = hi > lo ? Math.max(0, q - s * dm) : 0;
    }
    return;
  }
  let w = 0;
  let ps = 0;
  for (let k = start; k < end; k++) {
    const i = id ? k : order[k]!;
    const v = values[i]!;
    if (v === v) {
      const wi = weights[i]!;
      const d = v - x0;
      n++;
      w += wi;
      ps += d;
      s += wi * d;
      q += wi * d * d;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  st.n[at] = n;
  st.min[at] = lo;
  st.max[at] = hi;
  st.weight![at] = w;
  if (n === 0) st.mean[at] = NaN;
  else if (w > 0) {
    const dm = s / w;
    st.mean[at] = x0 + dm;
    st.m2[at] = hi > lo ? Math.max(0, q - s * dm) : 0;
  } else st.mean[at] = x0 + ps / n;
}

/**
 * One group's count, mean and squared deviations, equal bit for bit to {@link accumulateGroup}'s, into the scratch
 * `m` (length ≥ 4): m[0] = n, m[1] = mean (NaN when n = 0), m[2] = m2, m[3] = 1 when the group is flat (n ≥ 1 and
 * every non-null value equal), else 0. It keeps no per-value min and max: on real rewards their two data-dependent
 * branches per value mispredict and cost more than the rest of the loop (3× on random scores). Flatness is still
 * decided exactly: Σ(v − x0)² > 0 proves a spread, and only when it is 0 (or NaN, with infinite values) one more
 * pass compares each value with x0. The fused kernels (`centerScale` without statistics, `gdpo`, `mo_grpo`,
 * `corr_grpo`) use it group by group while the group's values are in cache.
 */
export function groupMoments(values: Float64Array, groups: GroupIndex, g: number, m: Float64Array): void {
  const { order, offsets } = groups;
  const start = offsets[g]!;
  const end = offsets[g + 1]!;
  let n = 0;
  let s = 0;
  let q = 0;
  let x0 = NaN;
  if (groups.identity === true) {
    x0 = values[start]!;
    for (let k = start + 1; k < end && x0 !== x0; k++) x0 = values[k]!;
    for (let k = start; k < end; k++) {
      const v = values[k]!;
      if (v === v) {
        const d = v - x0;
        n++;
        s += d;
        q += d * d;
      }
    }
  } else {
    for (let k = start; k < end && x0 !== x0; k++) x0 = values[order[k]!]!;
    for (let k = start; k < end; k++) {
      const v = values[order[k]!]!;
      if (v === v) {
        const d = v - x0;
        n++;
        s += d;
        q += d * d;
      }
    }
  }
  m[0] = n;
  if (n === 0) {
    m[1] = NaN;
    m[2] = 0;
    m[3] = 0;
    return;
  }
  const flat = allEqual(values, groups, start, end, x0, q);
  const dm = s / n;
  m[1] = x0 + dm;
  m[2] = flat ? 0 : Math.max(0, q - s * dm);
  m[3] = flat ? 1 : 0;
}

/**
 * One group's count and weighted mean, equal bit for bit to {@link accumulateGroup}'s with `weights`, into the
 * scratch `m` as {@link groupMoments} writes it (m[2], the squared deviations, is not computed: NaN). A group whose
 * weights sum to 0 takes the plain mean.
 * @returns false when a non-null value has a weight that is not a non-negative number (the caller words the error).
 */
export function groupWeightedMean(
  values: Float64Array,
  weights: Float64Array,
  groups: GroupIndex,
  g: number,
  m: Float64Array,
): boolean {
  const { order, offsets } = groups;
  const id = groups.identity === true;
  const start = offsets[g]!;
  const end = offsets[g + 1]!;
  let x0 = NaN;
  for (let k = start; k < end && x0 !== x0; k++) x0 = values[id ? k : order[k]!]!;
  let n = 0;
  let w = 0;
  let ps = 0;
  let s = 0;
  let q = 0; // unweighted Σd², for the flatness test only
  let ok = true;
  for (let k = start; k < end; k++) {
    const i = id ? k : order[k]!;
    const v = values[i]!;
    if (v === v) {
      const wi = weights[i]!;
      if (!(wi >= 0)) ok = false;
      const d = v - x0;
      n++;
      w += wi;
      ps += d;
      s += wi * d;
      q += d * d;
    }
  }
  m[0] = n;
  m[1] = n === 0 ? NaN : w > 0 ? x0 + s / w : x0 + ps / n;
  m[2] = NaN;
  m[3] = n > 0 && allEqual(values, groups, start, end, x0, q) ? 1 : 0;
  return ok;
}

/**
 * Whether every non-null value of the segment equals `x0` (the min = max test of {@link accumulateGroup}), given
 * q = Σ(v − x0)² > 0 proves a spread. Called for every group (not only when q = 0): code that never ran has no
 * type feedback, and inlined into the hot loop it deoptimized the caller at its first flat group.
 */
function allEqual(
  values: Float64Array,
  groups: GroupIndex,
  start: number,
  end: number,
  x0: number,
  q: number,
): boolean {
  if (q > 0) return false;
  const id = groups.identity === true;
  for (let k = start; k < end; k++) {
    const v = values[id ? k : groups.order[k]!]!;
    if (v === v && v !== x0) return false;
  }
  return true;
}

/** 1 where the group has no non-null value or all its non-null values are equal (a singleton included). Shape [G]. */
export function flatGroups(stats: GroupStats): Uint8Array {
  const G = stats.n.length;
  const out = new Uint8Array(G);
  for (let g = 0; g < G; g++) out[g] = stats.n[g]! === 0 || !(stats.max[g]! > stats.min[g]!) ? 1 : 0;
  return out;
}
