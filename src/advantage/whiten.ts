/** Batch-whitening convention. */
export interface WhitenOptions {
  /** `unbiased` (divide the squared deviations by W − 1) or `population` (by W), W = total weight. */
  variance: "unbiased" | "population";
  /**
   * How ε enters: `sqrt-var` (x − μ)/sqrt(var + ε) (verl `masked_whiten`, ε = 1e-8); `clamp-var`
   * (x − μ)/sqrt(max(var, ε)) (OpenRLHF); `std-plus` (x − μ)/(sqrt(var) + ε) (TRL, NeMo-RL with ε = 0).
   */
  epsilonMode: "sqrt-var" | "clamp-var" | "std-plus";
  epsilon: number;
}

/**
 * Whitens `x` over the whole batch in place, skipping NaN: x ← (x − μ)/s.
 * With `weights` (shape [n], e.g. response lengths) the mean and variance are weighted as verl's token-level
 * `masked_whiten` over a response mask weighs them (each rollout counted once per token; the unbiased
 * correction then uses the total token count W; OpenRLHF's population variance divides by W). Without weights
 * every rollout counts once. All values equal: every value becomes exactly 0 (the peers give (x − μ)·rsqrt(ε),
 * rounding residue times 1e4). Total weight ≤ 1 with `unbiased`: values are only centered.
 */
export function whitenInPlace(x: Float64Array, o: WhitenOptions, weights?: Float64Array): void {
  const n = x.length;
  let x0 = NaN;
  for (let i = 0; i < n && x0 !== x0; i++) x0 = x[i]!;
  // one pass: total weight, and the weighted sums of d = x − x0 and d² (shifted by the first value, so the
  // one-pass variance keeps its accuracy: |x0 − μ| is of the order of σ for advantages); then one pass to apply.
  let w = 0;
  let s = 0;
  let q = 0;
  let lo = Infinity;
  let hi = -Infinity;
  // Separate loops with and without weights keep each one monomorphic (a per-element `weights ? … : 1` ran 3× slower).
  if (weights) {
    for (let i = 0; i < n; i++) {
      const v = x[i]!;
      if (v !== v) continue;
      const wi = weights[i]!;
      const d = v - x0;
      w += wi;
      s += wi * d;
      q += wi * d * d;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  } else {
    for (let i = 0; i < n; i++) {
      const v = x[i]!;
      if (v !== v) continue;
      const d = v - x0;
      w++;
      s += d;
      q += d * d;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  if (w === 0) return;
  if (!(hi > lo)) {
    // all values equal: exactly 0 (no spread to whiten)
    for (let i = 0; i < n; i++) if (x[i] === x[i]) x[i] = 0;
    return;
  }
  const dm = s / w;
  const mean = x0 + dm;
  const m2 = Math.max(0, q - s * dm);
  const dof = o.variance === "unbiased" ? w - 1 : w;
  const variance = dof > 0 ? m2 / dof : NaN;
  let scale: number;
  if (Number.isNaN(variance)) scale = 1;
  else if (o.epsilonMode === "sqrt-var") scale = 1 / Math.sqrt(variance + o.epsilon);
  else if (o.epsilonMode === "clamp-var") scale = 1 / Math.sqrt(Math.max(variance, o.epsilon));
  else scale = 1 / (Math.sqrt(variance) + o.epsilon);
  for (let i = 0; i < n; i++) {
    const v = x[i]!;
    if (v === v) x[i] = (v - mean) * scale;
  }
}
