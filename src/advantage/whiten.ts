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
 * @param src where the values are read (default `x` itself): `x` then receives the whitened `src` (NaN where `src`
 *   is NaN), with no copy of `src` into `x` first.
 */
export function whitenInPlace(x: Float64Array, o: WhitenOptions, weights?: Float64Array, src = x): void {
  const n = src.length;
  let x0 = NaN;
  for (let i = 0; i < n && x0 !== x0; i++) x0 = src[i]!;
  // one pass: total weight, and the weighted sums of d = x − x0 and d² (shifted by the first value, so the
  // one-pass variance keeps its accuracy: |x0 − μ| is of the order of σ for advantages); then one pass to apply.
  // Each loop is a small function of its own: long loops in one big function are optimized on stack replacement,
  // and that code deoptimized at the first comparison after the loop on every call (a 3× slower whitening).
  const acc = new Float64Array(3);
  if (weights) weightedSums(src, x0, weights, acc);
  else plainSums(src, x0, acc);
  const [w, s, q] = acc as unknown as [number, number, number];
  if (w === 0) {
    if (x !== src) x.set(src); // nothing to whiten: left as it is
    return;
  }
  if (allEqual(src, x0, q)) {
    zeroAll(src, x); // all values equal: exactly 0 (no spread to whiten)
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
  centerScaleAll(src, x, mean, scale);
}

/**
 * acc ← [Σ w, Σ w·d, Σ w·d²] over the non-null values, d = x − x0. Two interleaved partial sums each (even and odd
 * positions), added at the end: one chain of dependent additions per sum was the loop's whole cost.
 */
function weightedSums(x: Float64Array, x0: number, weights: Float64Array, acc: Float64Array): void {
  weightedSumsDense(x, x0, weights, acc);
  if (acc[0] === acc[0] && acc[1] === acc[1] && acc[2] === acc[2]) return;
  weightedSumsSkipping(x, x0, weights, acc); // a null (NaN) value is in the batch: skip it
}

/**
 * {@link weightedSums} of a batch without nulls, no branch per value: a NaN value (a null) makes the sums NaN, and
 * {@link weightedSums} then runs the skipping loop. Same operations in the same order as that loop, so the same sums.
 */
function weightedSumsDense(x: Float64Array, x0: number, weights: Float64Array, acc: Float64Array): void {
  let w0 = 0;
  let s0 = 0;
  let q0 = 0;
  let w1 = 0;
  let s1 = 0;
  let q1 = 0;
  const n = x.length;
  let i = 0;
  for (; i + 1 < n; i += 2) {
    const wu = weights[i]!;
    const wv = weights[i + 1]!;
    const du = x[i]! - x0;
    const dv = x[i + 1]! - x0;
    w0 += wu;
    s0 += wu * du;
    q0 += wu * du * du;
    w1 += wv;
    s1 += wv * dv;
    q1 += wv * dv * dv;
  }
  if (i < n) {
    const wi = weights[i]!;
    const d = x[i]! - x0;
    w0 += wi;
    s0 += wi * d;
    q0 += wi * d * d;
  }
  acc[0] = w0 + w1;
  acc[1] = s0 + s1;
  acc[2] = q0 + q1;
}

/** {@link weightedSums} skipping the null (NaN) values. */
function weightedSumsSkipping(x: Float64Array, x0: number, weights: Float64Array, acc: Float64Array): void {
  let w0 = 0;
  let s0 = 0;
  let q0 = 0;
  let w1 = 0;
  let s1 = 0;
  let q1 = 0;
  const n = x.length;
  let i = 0;
  for (; i + 1 < n; i += 2) {
    const u = x[i]!;
    const v = x[i + 1]!;
    if (u === u) {
      const wi = weights[i]!;
      const d = u - x0;
      w0 += wi;
      s0 += wi * d;
      q0 += wi * d * d;
    }
    if (v === v) {
      const wi = weights[i + 1]!;
      const d = v - x0;
      w1 += wi;
      s1 += wi * d;
      q1 += wi * d * d;
    }
  }
  if (i < n && x[i] === x[i]) {
    const wi = weights[i]!;
    const d = x[i]! - x0;
    w0 += wi;
    s0 += wi * d;
    q0 += wi * d * d;
  }
  acc[0] = w0 + w1;
  acc[1] = s0 + s1;
  acc[2] = q0 + q1;
}

/**
 * acc ← [count, Σ d, Σ d²] over the non-null values, d = x − x0, in two interleaved partial sums as
 * {@link weightedSums} (a loop of its own: a per-value `weights ? … : 1` ran 3× slower).
 */
function plainSums(x: Float64Array, x0: number, acc: Float64Array): void {
  plainSumsDense(x, x0, acc);
  if (acc[1] === acc[1] && acc[2] === acc[2]) return;
  plainSumsSkipping(x, x0, acc); // a null (NaN) value is in the batch: skip it
}

/** {@link plainSums} of a batch without nulls, no branch per value (as {@link weightedSumsDense}). */
function plainSumsDense(x: Float64Array, x0: number, acc: Float64Array): void {
  let s0 = 0;
  let q0 = 0;
  let s1 = 0;
  let q1 = 0;
  const n = x.length;
  let i = 0;
  for (; i + 1 < n; i += 2) {
    const du = x[i]! - x0;
    const dv = x[i + 1]! - x0;
    s0 += du;
    q0 += du * du;
    s1 += dv;
    q1 += dv * dv;
  }
  let w = i;
  if (i < n) {
    const d = x[i]! - x0;
    s0 += d;
    q0 += d * d;
    w++;
  }
  acc[0] = w;
  acc[1] = s0 + s1;
  acc[2] = q0 + q1;
}

/** {@link plainSums} skipping the null (NaN) values. */
function plainSumsSkipping(x: Float64Array, x0: number, acc: Float64Array): void {
  let w0 = 0;
  let s0 = 0;
  let q0 = 0;
  let w1 = 0;
  let s1 = 0;
  let q1 = 0;
  const n = x.length;
  let i = 0;
  for (; i + 1 < n; i += 2) {
    const u = x[i]!;
    const v = x[i + 1]!;
    if (u === u) {
      const d = u - x0;
      w0++;
      s0 += d;
      q0 += d * d;
    }
    if (v === v) {
      const d = v - x0;
      w1++;
      s1 += d;
      q1 += d * d;
    }
  }
  if (i < n && x[i] === x[i]) {
    const d = x[i]! - x0;
    w0++;
    s0 += d;
    q0 += d * d;
  }
  acc[0] = w0 + w1;
  acc[1] = s0 + s1;
  acc[2] = q0 + q1;
}

/** dst ← 0 for the non-null values, NaN elsewhere (`dst` may be `src`). */
function zeroAll(src: Float64Array, dst: Float64Array): void {
  for (let i = 0; i < src.length; i++) dst[i] = src[i] === src[i] ? 0 : NaN;
}

/** dst ← (src − mean)·scale for the non-null values, NaN elsewhere (`dst` may be `src`). */
function centerScaleAll(src: Float64Array, dst: Float64Array, mean: number, scale: number): void {
  for (let i = 0; i < src.length; i++) {
    dst[i] = (src[i]! - mean) * scale; // a null (NaN) stays NaN
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
