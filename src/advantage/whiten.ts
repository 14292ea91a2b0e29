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
  // Each loop is a small function of its own: long loops in one big function are optimized on stack replacement,
  // and that code deoptimized at the first comparison after the loop on every call (a 3× slower whitening).
  const acc = new Float64Array(3);
  if (weights) weightedSums(x, x0, weights, acc);
  else plainSums(x, x0, acc);
  const [w, s, q] = acc as unknown as [number, number, number];
  if (w === 0) return;
  if (allEqual(x, x0, q)) {
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
  centerScaleAll(x, mean, scale);
}

/** acc ← [Σ w, Σ w·d, Σ w·d²] over the non-null values, d = x − x0. */
function weightedSums(x: Float64Array, x0: number, weights: Float64Array, acc: Float64Array): void {
  let w = 0;
  let s = 0;
  let q = 0;
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!;
    if (v !== v) continue;
    const wi = weights[i]!;
    const d = v - x0;
    w += wi;
    s += wi * d;
    q += wi * d * d;
  }
  acc[0] = w;
  acc[1] = s;
  acc[2] = q;
}

/** acc ← [count, Σ d, Σ d²] over the non-null values, d = x − x0 (a loop of its own: a per-value `weights ? … : 1` ran 3× slower). */
function plainSums(x: Float64Array, x0: number, acc: Float64Array): void {
  let w = 0;
  let s = 0;
  let q = 0;
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!;
    if (v !== v) continue;
    const d = v - x0;
    w++;
    s += d;
    q += d * d;
  }
  acc[0] = w;
  acc[1] = s;
  acc[2] = q;
}

/** x ← (x − mean)·scale for the non-null values. */
function centerScaleAll(x: Float64Array, mean: number, scale: number): void {
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!;
    if (v === v) x[i] = (v - mean) * scale;
  }
}

/**
 * Whether every non-null value of `x` equals `x0`, given q = Σw(x − x0)²: q > 0 proves a spread; else each value
 * is compared (a per-value min/max would cost two mispredicted branches per value on real data). A function of its
 * own, called every time: a never-run loop inlined into {@link whitenInPlace} has no type feedback and deoptimized it.
 */
function allEqual(x: Float64Array, x0: number, q: number): boolean {
  if (q > 0) return false;
  for (let i = 0; i < x.length; i++) if (x[i] === x[i] && x[i] !== x0) return false;
  return true;
}
