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

/** 1 where the group has no non-null value or all its non-null values are equal (a singleton included). Shape [G]. */
export function flatGroups(stats: GroupStats): Uint8Array {
  const G = stats.n.length;
  const out = new Uint8Array(G);
  for (let g = 0; g < G; g++) out[g] = stats.n[g]! === 0 || !(stats.max[g]! > stats.min[g]!) ? 1 : 0;
  return out;
}
