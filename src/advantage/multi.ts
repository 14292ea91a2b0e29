import { z } from "zod";
import { componentOptions, filterOption, maskByReward, requireInputs, selectComponents, zerosUnlessNull } from "./common.js";
import { batchNormalize, batchOptions } from "./gdpo.js";
import { inverseSqrtPsd } from "./linalg.js";
import type { AdvantageInput, EstimatorDefinition } from "./types.js";

/** Per-(group, component) statistics over non-null scores of rollouts with a non-null reward. */
interface ColStats {
  n: number;
  mean: number;
  /** Σ (s − mean)². */
  m2: number;
  /** True when at least two non-null scores differ (decided exactly, not from a rounded m2). */
  varies: boolean;
}

function colStats(s: Float64Array, order: Int32Array, start: number, end: number): ColStats {
  let n = 0;
  let sum = 0;
  let lo = Infinity;
  let hi = -Infinity;
  for (let k = start; k < end; k++) {
    const v = s[order[k]!]!;
    if (v === v) {
      n++;
      sum += v;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  const mean = n > 0 ? sum / n : NaN;
  let m2 = 0;
  for (let k = start; k < end; k++) {
    const v = s[order[k]!]!;
    if (v === v) m2 += (v - mean) * (v - mean);
  }
  return { n, mean, m2, varies: hi > lo };
}

// ───────────────────────────── MO-GRPO ─────────────────────────────

export const moGrpoOptions = z.strictObject({
  ...componentOptions,
  /** Std each component is divided by within its group: `population` (default) or `unbiased`. */
  std: z.enum(["population", "unbiased"]).default("population"),
  epsilon: z.number().nonnegative().default(1e-6),
  ...batchOptions,
  batchNorm: z.enum(["sqrt-var", "std-plus", "clamp-var", "none"]).default("none"),
  filter: filterOption,
});
export type MoGrpoOptions = z.infer<typeof moGrpoOptions>;

/**
 * MO-GRPO (multi-objective GRPO, methods catalog T05). Only the abstract is available: "a simple normalization
 * method to reweight the reward functions automatically according to the variances of their values", shown to
 * make all reward functions contribute evenly to the loss while preserving the order of preferences.
 *
 * rewardkit's documented interpretation: each component is reweighted by the inverse of its within-group
 * standard deviation before summing,
 *   A_i = Σ_k w_k (s_{ik} − μ_{gk}) / (σ_{gk} + ε),   σ population by default,
 * so every component with variance contributes exactly unit within-group variance (even contribution), and each
 * component's map s ↦ (s − μ)/σ is strictly increasing (its preference order is kept; with one component the
 * order of A equals the order of r). Components without variance in a group contribute 0. No batch step by
 * default (`batchNorm` as in `gdpo` is available). Invariant under positive affine transforms of each component
 * (up to ε). Null handling as in `gdpo`.
 * @param input components.scores K × [n]; rewards shape [n] (nulls only).
 * @returns advantages, shape [n].
 */
export function moGrpo(input: AdvantageInput, o: MoGrpoOptions): Float64Array {
  requireInputs("mo_grpo", input, ["components"]);
  const sel = selectComponents(input, o.components, o.weights);
  const scores = maskByReward(input.rewards, sel.scores);
  const out = zerosUnlessNull(input.rewards);
  const { order, offsets } = input.groups;
  for (let g = 0; g < input.groups.count; g++) {
    const start = offsets[g]!;
    const end = offsets[g + 1]!;
    scores.forEach((s, k) => {
      const st = colStats(s, order, start, end);
      if (!st.varies) return;
      const sd = Math.sqrt(st.m2 / (o.std === "unbiased" ? st.n - 1 : st.n));
      const f = sel.weights[k]! / (sd + o.epsilon);
      for (let j = start; j < end; j++) {
        const i = order[j]!;
        const v = s[i]!;
        if (v === v) out[i]! += f * (v - st.mean);
      }
    });
  }
  batchNormalize(out, input, o, "mo_grpo");
  return out;
}

export const moGrpoEstimator: EstimatorDefinition<MoGrpoOptions> = {
  name: "mo_grpo",
  summary: "MO-GRPO: each component reweighted by its inverse within-group std, then summed",
  options: moGrpoOptions,
  needs: ["components"],
  compute: moGrpo,
};

// ───────────────────────────── CorrGRPO ─────────────────────────────

export const corrGrpoOptions = z.strictObject({
  ...componentOptions,
  epsilon: z.number().nonnegative().default(1e-6),
  ...batchOptions,
  batchNorm: z.enum(["sqrt-var", "std-plus", "clamp-var", "none"]).default("none"),
  filter: filterOption,
});
export type CorrGrpoOptions = z.infer<typeof corrGrpoOptions>;

/**
 * CorrGRPO (methods catalog T06). Only the abstract is available: GRPO's normalizer for a summed multi-reward,
 * Var(Σ_k w_k s_k) = Σ_k Σ_l w_k w_l Cov_kl, is dominated by correlated large-scale components; CorrGRPO
 * normalizes the pairwise covariances into Pearson correlations and keeps the centered total reward unchanged.
 *
 * rewardkit's documented interpretation, per group g:
 *   c_i = Σ_k w_k (s_{ik} − μ_{gk})                         (the centered total, unchanged)
 *   D_g = Σ_{k,l ∈ active} w_k w_l ρ_{kl},  ρ_kk = 1        (correlations instead of covariances)
 *   A_i = c_i / (sqrt(max(D_g, 0)) + ε)
 * where ρ_kl is the within-group Pearson correlation (population moments over the rollouts where both scores are
 * non-null) and a component is active when it has variance in the group (an inactive one has c-contribution 0
 * and no defined ρ). D_g is dimensionless, so A keeps the reward's units like Dr.GRPO; invariant under
 * per-component shifts and permutations, and scales with a common scaling of all components (set
 * `batchNorm: sqrt-var` for a scale-free result). All components inactive → 0.
 * @returns advantages, shape [n].
 */
export function corrGrpo(input: AdvantageInput, o: CorrGrpoOptions): Float64Array {
  requireInputs("corr_grpo", input, ["components"]);
  const sel = selectComponents(input, o.components, o.weights);
  const scores = maskByReward(input.rewards, sel.scores);
  const K = scores.length;
  const out = zerosUnlessNull(input.rewards);
  const { order, offsets } = input.groups;
  const means = new Float64Array(K);
  const active = new Uint8Array(K);
  for (let g = 0; g < input.groups.count; g++) {
    const start = offsets[g]!;
    const end = offsets[g + 1]!;
    for (let k = 0; k < K; k++) {
      const st = colStats(scores[k]!, order, start, end);
      means[k] = st.mean;
      active[k] = st.varies ? 1 : 0;
    }
    let d = 0;
    for (let k = 0; k < K; k++) {
      if (!active[k]) continue;
      d += sel.weights[k]! * sel.weights[k]!;
      for (let l = k + 1; l < K; l++) {
        if (!active[l]) continue;
        d += 2 * sel.weights[k]! * sel.weights[l]! * pearson(scores[k]!, scores[l]!, order, start, end);
      }
    }
    const denom = Math.sqrt(Math.max(d, 0)) + o.epsilon;
    for (let j = start; j < end; j++) {
      const i = order[j]!;
      if (Number.isNaN(input.rewards[i]!)) continue;
      let c = 0;
      for (let k = 0; k < K; k++) {
        const v = scores[k]![i]!;
        if (active[k] && v === v) c += sel.weights[k]! * (v - means[k]!);
      }
      out[i] = c === 0 ? 0 : c / denom;
    }
  }
  batchNormalize(out, input, o, "corr_grpo");
  return out;
}

/** Pearson correlation of two columns over the segment's rollouts where both are non-null; 0 when undefined. */
function pearson(a: Float64Array, b: Float64Array, order: Int32Array, start: number, end: number): number {
  let n = 0;
  let sa = 0;
  let sb = 0;
  for (let k = start; k < end; k++) {
    const i = order[k]!;
    const x = a[i]!;
    const y = b[i]!;
    if (x === x && y === y) {
      n++;
      sa += x;
      sb += y;
    }
  }
  if (n < 2) return 0;
  const ma = sa / n;
  const mb = sb / n;
  let cab = 0;
  let caa = 0;
  let cbb = 0;
  for (let k = start; k < end; k++) {
    const i = order[k]!;
    const x = a[i]!;
    const y = b[i]!;
    if (x === x && y === y) {
      cab += (x - ma) * (y - mb);
      caa += (x - ma) * (x - ma);
      cbb += (y - mb) * (y - mb);
    }
  }
  return caa > 0 && cbb > 0 ? cab / Math.sqrt(caa * cbb) : 0;
}

export const corrGrpoEstimator: EstimatorDefinition<CorrGrpoOptions> = {
  name: "corr_grpo",
  summary: "CorrGRPO: centered total reward over sqrt(Σ w_k w_l ρ_kl) (correlation-based spread)",
  options: corrGrpoOptions,
  needs: ["components"],
  compute: corrGrpo,
};

// ───────────────────────────── RDPO ─────────────────────────────

export const rdpoOptions = z.strictObject({
  ...componentOptions,
  /** Eigenvalues ≤ tol·λ_max of a covariance are dropped (pseudo-inverse within the active subspace). */
  tolerance: z.number().positive().default(1e-10),
  ...batchOptions,
  batchNorm: z.enum(["sqrt-var", "std-plus", "clamp-var", "none"]).default("none"),
  filter: filterOption,
});
export type RdpoOptions = z.infer<typeof rdpoOptions>;

/**
 * Reward-Decorrelated Policy Optimization (RDPO, methods catalog T07). Only the abstract is available:
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
export function rdpo(input: AdvantageInput, o: RdpoOptions): Float64Array {
  requireInputs("rdpo", input, ["components"]);
  const sel = selectComponents(input, o.components, o.weights);
  const scores = maskByReward(input.rewards, sel.scores);
  const K = scores.length;
  if (K > 30) throw new RangeError(`rdpo supports at most 30 components, got ${K}`);
  const n = input.rewards.length;
  const { order, offsets } = input.groups;
  // batch ranges
  const range = scores.map((s) => {
    let lo = Infinity;
    let hi = -Infinity;
    for (const v of s) {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
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
      let m = 0;
      let lo = Infinity;
      let hi = -Infinity;
      for (let j = start; j < end; j++) {
        const i = order[j]!;
        const v = s[i]!;
        if (v !== v) continue;
        idx[m++] = i;
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
      if (m < 2 || !(hi > lo) || range[k] === 0) continue;
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
  const out = zerosUnlessNull(input.rewards);
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
  batchNormalize(out, input, o, "rdpo");
  return out;
}

export const rdpoEstimator: EstimatorDefinition<RdpoOptions> = {
  name: "rdpo",
  summary: "RDPO: magnitude-aware quantiles, ZCA-Mahalanobis whitening in the active subspace, weighted sum",
  options: rdpoOptions,
  needs: ["components"],
  compute: rdpo,
};
