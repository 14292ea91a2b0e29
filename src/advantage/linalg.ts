/**
 * Eigen-decomposition of a small symmetric matrix by cyclic Jacobi rotations.
 * @param a row-major k×k symmetric matrix (not modified).
 * @returns eigenvalues `values` (length k) and eigenvectors as the columns of row-major `vectors` (k×k).
 */
export function symmetricEigen(a: Float64Array, k: number): { values: Float64Array; vectors: Float64Array } {
  const m = a.slice();
  const v = new Float64Array(k * k);
  for (let i = 0; i < k; i++) v[i * k + i] = 1;
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < k; p++) for (let q = p + 1; q < k; q++) off += m[p * k + q]! * m[p * k + q]!;
    if (off < 1e-30) break;
    for (let p = 0; p < k; p++) {
      for (let q = p + 1; q < k; q++) {
        const apq = m[p * k + q]!;
        if (apq === 0) continue;
        const app = m[p * k + p]!;
        const aqq = m[q * k + q]!;
        const theta = (aqq - app) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let r = 0; r < k; r++) {
          const mrp = m[r * k + p]!;
          const mrq = m[r * k + q]!;
          m[r * k + p] = c * mrp - s * mrq;
          m[r * k + q] = s * mrp + c * mrq;
        }
        for (let r = 0; r < k; r++) {
          const mpr = m[p * k + r]!;
          const mqr = m[q * k + r]!;
          m[p * k + r] = c * mpr - s * mqr;
          m[q * k + r] = s * mpr + c * mqr;
        }
        for (let r = 0; r < k; r++) {
          const vrp = v[r * k + p]!;
          const vrq = v[r * k + q]!;
          v[r * k + p] = c * vrp - s * vrq;
          v[r * k + q] = s * vrp + c * vrq;
        }
      }
    }
  }
  const values = new Float64Array(k);
  for (let i = 0; i < k; i++) values[i] = m[i * k + i]!;
  return { values, vectors: v };
}

/**
 * Symmetric (ZCA) inverse square root Σ^{-1/2} = V diag(λ^{-1/2}) Vᵀ of a PSD matrix, restricted to its range:
 * eigenvalues ≤ `tol`·λ_max are treated as 0 (a pseudo-inverse), so whitening acts within the active subspace.
 * @param a row-major k×k symmetric PSD matrix.
 * @returns row-major k×k matrix.
 */
export function inverseSqrtPsd(a: Float64Array, k: number, tol = 1e-10): Float64Array {
  const { values, vectors } = symmetricEigen(a, k);
  let max = 0;
  for (const x of values) if (x > max) max = x;
  const out = new Float64Array(k * k);
  if (max <= 0) return out;
  for (let e = 0; e < k; e++) {
    const lam = values[e]!;
    if (!(lam > tol * max)) continue;
    const f = 1 / Math.sqrt(lam);
    for (let r = 0; r < k; r++)
      for (let c = 0; c < k; c++) out[r * k + c]! += f * vectors[r * k + e]! * vectors[c * k + e]!;
  }
  return out;
}
