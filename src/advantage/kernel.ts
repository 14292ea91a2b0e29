import type { GroupIndex } from "./groups.js";

/**
 * The shared hot loop of the centered estimators: out_i = (r_i − b_g) · scale_g per group, where the group
 * statistics come from one pass over the group. Handles null (NaN) rewards, singletons (value `single(r)`) and
 * zero-variance groups (exactly 0). `mode`: 0 = r − μ, 1 = n/(n−1)(r − μ) (RLOO), 2 = (r − μ)/(σ + ε)
 * (σ unbiased when `unbiased`, else population); every mode is multiplied by `factor`.
 * @param out optional output buffer of length n (numpy's `out=`): written in full and returned; else a fresh array.
 */
export function centerScale(
  rewards: Float64Array,
  groups: GroupIndex,
  mode: 0 | 1 | 2,
  unbiased: boolean,
  eps: number,
  factor: number,
  single: (r: number) => number,
  out?: Float64Array,
): Float64Array {
  const n = rewards.length;
  if (out === undefined || out.length !== n) out = new Float64Array(n);
  const { order, offsets } = groups;
  const id = groups.identity === true;
  for (let g = 0; g < groups.count; g++) {
    const start = offsets[g]!;
    const end = offsets[g + 1]!;
    let x0 = NaN;
    for (let k = start; k < end && x0 !== x0; k++) x0 = rewards[id ? k : order[k]!]!;
    // one pass: count, shifted sum and shifted sum of squares (shift x0 keeps the cancellation harmless)
    let m = 0;
    let sum = 0;
    let sq = 0;
    let varied = 0;
    if (mode === 2) {
      for (let k = start; k < end; k++) {
        const v = rewards[id ? k : order[k]!]!;
        if (v === v) {
          const d = v - x0;
          m++;
          sum += d;
          sq += d * d;
          varied |= +(d !== 0);
        }
      }
    } else {
      // r − μ needs no spread: with all rewards equal, sum = 0, μ = x0 exactly and every r − μ is exactly 0
      for (let k = start; k < end; k++) {
        const v = rewards[id ? k : order[k]!]!;
        if (v === v) {
          m++;
          sum += v - x0;
        }
      }
      varied = 1;
    }
    if (m < 2 || varied === 0) {
      for (let k = start; k < end; k++) {
        const i = id ? k : order[k]!;
        const v = rewards[i]!;
        out[i] = v !== v ? NaN : m === 1 ? single(v) : 0;
      }
      continue;
    }
    const dm = sum / m;
    const mean = x0 + dm;
    let scale = factor;
    if (mode === 1) scale = (factor * m) / (m - 1);
    else if (mode === 2) {
      const m2 = Math.max(0, sq - sum * dm);
      scale = factor / (Math.sqrt(m2 / (unbiased ? m - 1 : m)) + eps);
    }
    for (let k = start; k < end; k++) {
      const i = id ? k : order[k]!;
      out[i] = (rewards[i]! - mean) * scale; // NaN stays NaN
    }
  }
  return out;
}
