import { z } from "zod";
import { batchNormalize, batchNormOption, batchOptions } from "./batch-norm.js";
import { componentColumns, componentOptions, nonNullCounts, unscorableRows, zerosUnlessNull } from "./components.js";
import { filterOption } from "./filter.js";
import { groupStats } from "./group-stats.js";
import { inverseSqrtPsd } from "./linalg.js";
import type { AdvantageInput, EstimatorDefinition } from "./types.js";

export const rdpoOptions = z.strictObject({
  ...componentOptions,
  /** Eigenvalues ≤ tol·λ_max of a covariance are dropped (pseudo-inverse within the active subspace). */
  tolerance: z.number().positive().default(1e-10),
  ...batchOptions,
  batchNorm: batchNormOption.default("none"),
  filter: filterOption,
});
export type RdpoOptions = z.infer<typeof rdpoOptions>;

/**
 * Reward-Decorrelated Policy Optimization (RDPO, arXiv 2605.13641, methods catalog T07). **Experimental**: no
 * paper body or code could be read, so everything below is rewardkit's own interpretation of the abstract:
 * (1) Magnitude-Aware Quantile normalization stabilizes prompt-level advantage allocation across binary,
 * fractional and continuous rewards; (2) Mahalanobis whitening within each active reward subspace removes
 * correlation redundancy before aggregation.
 *
 * rewardkit's documented interpretation:
 * 1. Quantile: in group g, q_{ik} = (R_{ik} − 1/2)/n_{gk} − 1/2 ∈ (−1/2, 1/2), R = mid-rank (ties averaged) of
 *    s_{ik} among the n_{gk} non-null scores; q sums to 0 in the group.
 *    Magnitude-aware: u_{ik} = m_{gk} · q_{ik} with m_{gk} = (max_g s_k − min_g s_k)/(max_B s_k − min_B s_k), the
 *    group's spread relative to the component's batch range — a binary reward that splits the group keeps full
 *    quantiles (m = 1), a continuous reward that barely varies in the group gets proportionally small ones.
 * 2. Active subspace of group g: the components with m_{gk} > 0. Covariance C = (1/N) Σ_i u_i u_iᵀ pooled over the
 *    batch (u is group-centered). For each group, z_i = (C_AA)^{-1/2} u_{i,A}, the symmetric (ZCA) Mahalanobis
 *    whitening restricted to the active components A (pseudo-inverse: eigenvalues ≤ tol·λ_max dropped); ZCA keeps
 *    each whitened coordinate aligned with its component so the weights keep their meaning.
 * 3. Aggregate: A_i = Σ_{k∈A} w_k z_{ik}; optional `batchNorm`.
 * Properties: centered in every group, permutation-equivariant, invariant under any positive affine transform
 * of each component (quantiles and m are), unscorable scores give u = 0.
 * @returns advantages, shape [n].
 */
export function rdpo(input: AdvantageInput, o: RdpoOptions, buffer?: Float64Array): Float64Array {
  const sel = componentColumns("rdpo", input, o.components, o.weights);
  const scores = sel.scores;
  const K = scores.length;
  if (K > 30) throw new RangeError(`rdpo supports at most 30 components, got ${K}`);
  const n = input.rewards.length;
  const { order, offsets } = input.groups;
  const stats = scores.map((s) => groupStats(s, input.groups));
  // each component's range over the batch, from the per-group ranges
  const range = stats.map((st) => {
    let lo = Infinity;
    let hi = -Infinity;
    for (let g = 0; g < input.groups.count; g++) {
      if (st.min[g]! < lo) lo = st.min[g]!;
      if (st.max[g]! > hi) hi = st.max[g]!;
    }
    return hi > lo ? hi - lo : 0;
  });
  const u = scores.map(() => new Float64Array(n));
  const activeMask = new Int32Array(input.groups.count);
  let idx = new Int32Array(16);
  for (let g = 0; g < input.groups.count; g++) {
    const start = offsets[g]!;
    const end = offsets[g + 1]!;
    if (end - start > idx.length) idx = new Int32Array(end - start);
    for (let k = 0; k < K; k++) {
      const s = scores[k]!;
      const st = stats[k]!;
      const lo = st.min[g]!;
      const hi = st.max[g]!;
      if (st.n[g]! < 2 || !(hi > lo) || range[k] === 0) continue;
      let m = 0;
      for (let j = start; j < end; j++) {
        const i = order[j]!;
        if (s[i] === s[i]) idx[m++] = i;
      }
      activeMask[g]! |= 1 << k;
      const mag = (hi - lo) / range[k]!;
      for (let a = 1; a < m; a++) {
        const v = idx[a]!;
        let b = a - 1;
        while (b >= 0 && s[idx[b]!]! > s[v]!) {
          idx[b + 1] = idx[b]!;
          b--;
        }
        idx[b + 1] = v;
      }
      const uk = u[k]!;
      let a = 0;
      while (a < m) {
        let b = a;
        while (b + 1 < m && s[idx[b + 1]!] === s[idx[a]!]) b++;
        const q = ((a + b) / 2 + 0.5) / m - 0.5;
        for (let t = a; t <= b; t++) uk[idx[t]!] = mag * q;
        a = b + 1;
      }
    }
  }
  let live = 0;
  for (let i = 0; i < n; i++) if (!Number.isNaN(input.rewards[i]!)) live++;
  const cov = new Float64Array(K * K);
  for (let k = 0; k < K; k++) {
    for (let l = k; l < K; l++) {
      let c = 0;
      const uk = u[k]!;
      const ul = u[l]!;
      for (let i = 0; i < n; i++) c += uk[i]! * ul[i]!;
      cov[k * K + l] = cov[l * K + k] = live > 0 ? c / live : 0;
    }
  }
  const cache = new Map<number, { comps: number[]; w: Float64Array }>();
  const out = zerosUnlessNull(input.rewards, sel.scored, buffer);
  for (let g = 0; g < input.groups.count; g++) {
    const mask = activeMask[g]!;
    if (mask === 0) continue;
    let entry = cache.get(mask);
    if (!entry) {
      const comps: number[] = [];
      for (let k = 0; k < K; k++) if (mask & (1 << k)) comps.push(k);
      const a = comps.length;
      const sub = new Float64Array(a * a);
      for (let r = 0; r < a; r++) for (let c = 0; c < a; c++) sub[r * a + c] = cov[comps[r]! * K + comps[c]!]!;
      const inv = inverseSqrtPsd(sub, a, o.tolerance);
      // effective weight on u_c: Σ_r w_r inv[r][c]
      const w = new Float64Array(a);
      for (let c = 0; c < a; c++) for (let r = 0; r < a; r++) w[c]! += sel.weights[comps[r]!]! * inv[r * a + c]!;
      entry = { comps, w };
      cache.set(mask, entry);
    }
    for (let j = offsets[g]!; j < offsets[g + 1]!; j++) {
      const i = order[j]!;
      if (Number.isNaN(input.rewards[i]!)) continue;
      let x = 0;
      for (let c = 0; c < entry.comps.length; c++) x += entry.w[c]! * u[entry.comps[c]!]![i]!;
      out[i] = x;
    }
  }
  batchNormalize(out, input, o, "rdpo", unscorableRows(input, sel, nonNullCounts(stats)));
  return out;
}

export const rdpoEstimator: EstimatorDefinition<RdpoOptions> = {
  name: "rdpo",
  summary:
    "RDPO (experimental interpretation): magnitude-aware quantiles, ZCA-Mahalanobis whitening in the active subspace, weighted sum",
  options: rdpoOptions,
  needs: ["components"],
  uses: ["lengths"],
  compute: rdpo,
  batchStatistics: () => "component ranges and the covariance are pooled over the whole batch",
};
