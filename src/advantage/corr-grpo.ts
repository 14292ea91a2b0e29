import { z } from "zod";
import { batchNormalize, batchNormOption, batchNormStatistics, batchOptions } from "./batch-norm.js";
import { componentColumns, componentOptions, unscorableRows, zerosUnlessNull } from "./components.js";
import { filterOption } from "./filter.js";
import { accumulateGroup, emptyStats } from "./group-stats.js";
import type { GroupStats } from "./group-stats.js";
import type { AdvantageInput, EstimatorDefinition } from "./types.js";

export const corrGrpoOptions = z.strictObject({
  ...componentOptions,
  /** ε inside the square root of the normalizer (the authors' code: 1e-6). */
  epsilon: z.number().nonnegative().default(1e-6),
  ...batchOptions,
  batchNorm: batchNormOption.default("none"),
  filter: filterOption,
});
export type CorrGrpoOptions = z.infer<typeof corrGrpoOptions>;

/**
 * CorrGRPO ("CorrGRPO: Correlation-Normalized GRPO for Multi-Reward Learning", arXiv 2609.36820), following the
 * authors' core implementation (the paper's Appendix B, Listing 1), per group g:
 *   s'_{ik} = w_k s_{ik}                                     (fixed weights are absorbed into the components)
 *   c_i = Σ_k (s'_{ik} − mean_g s'_k)                        (the centered total, unchanged)
 *   D_g = Σ_{k,l active} ρ(s'_k, s'_l),  ρ_kk = 1            (Pearson correlations of the weighted components)
 *   A_i = c_i / sqrt(max(D_g, 0) + ε)                       (ε inside the root, as in the listing)
 * A component is active in a group when its weighted scores vary there (a constant one gets zero rows and
 * columns). Since ρ(w_k s_k, w_l s_l) = sign(w_k w_l) ρ(s_k, s_l), the weights never scale the denominator: only
 * their signs enter it. ε inside the root bounds |A| by |c|/sqrt(ε) when D_g ≈ 0 (two components moving in
 * opposite directions at n = 2: ±150 for a = [1, 0], b = [0.2, 0.9], not ±150 000 as with ε outside).
 * All components inactive → 0. Correlations use the rollouts where both scores are non-null; A keeps the
 * reward's units (set `batchNorm: sqrt-var` for a scale-free result). Null handling as in `gdpo`.
 * @returns advantages, shape [n].
 */
export function corrGrpo(input: AdvantageInput, o: CorrGrpoOptions, buffer?: Float64Array): Float64Array {
  const cols = componentColumns("corr_grpo", input, o.components, o.weights);
  const scores = cols.scores;
  const K = scores.length;
  const w = cols.weights;
  const out = zerosUnlessNull(input.rewards, cols.scored, buffer);
  const { groups } = input;
  const { order, offsets } = groups;
  // each group's statistics are accumulated right before the group is used (its scores are then in cache)
  const stats = scores.map(() => emptyStats(1)); // one group's statistics at a time, per component
  const counts = new Array<number>(K).fill(0);
  let anyPairwise = false;
  const active = new Uint8Array(K);
  const mu = new Float64Array(K);
  const { rewards } = input;
  for (let g = 0; g < groups.count; g++) {
    const start = offsets[g]!;
    const end = offsets[g + 1]!;
    let any = false;
    let scoredHere = 0;
    for (let j = start; j < end; j++) if (rewards[order[j]!] === rewards[order[j]!]) scoredHere++;
    let pairwise = false;
    for (let k = 0; k < K; k++) {
      const st = stats[k]!;
      accumulateGroup(scores[k]!, groups, g, st, undefined, 0);
      counts[k]! += st.n[0]!;
      if (st.n[0]! < scoredHere) pairwise = true; // an unscorable score here: correlations over the pairs present
      active[k] = w[k] !== 0 && st.max[0]! > st.min[0]! ? 1 : 0;
      mu[k] = st.mean[0]!;
      if (active[k]) any = true;
    }
    if (pairwise) anyPairwise = true;
    if (!any) continue; // every scored rollout stays at 0
    // the centered weighted total c_i, component by component into the group's slice of out (in cache)
    for (let k = 0; k < K; k++) {
      if (!active[k]) continue;
      const sk = scores[k]!;
      const m = mu[k]!;
      const f = w[k]!;
      for (let j = start; j < end; j++) {
        const i = order[j]!;
        const v = sk[i]!;
        if (v === v && rewards[i] === rewards[i]) out[i]! += f * (v - m);
      }
    }
    // D: Σ of the correlation matrix of the active components (ρ_kk = 1), each pair in its own tight loop
    let D = 0;
    for (let k = 0; k < K; k++) {
      if (!active[k]) continue;
      D += 1;
      for (let l = k + 1; l < K; l++) {
        if (!active[l]) continue;
        const rho = pairwise
          ? pearson(scores[k]!, scores[l]!, order, start, end)
          : correlation(crossSum(scores[k]!, mu[k]!, scores[l]!, mu[l]!, order, start, end), stats[k]!, stats[l]!, 0);
        D += 2 * Math.sign(w[k]! * w[l]!) * rho;
      }
    }
    const inv = 1 / Math.sqrt(Math.max(D, 0) + o.epsilon);
    for (let j = start; j < end; j++) out[order[j]!]! *= inv; // NaN (null reward) stays NaN
  }
  batchNormalize(out, input, o, "corr_grpo", anyPairwise ? unscorableRows(input, cols, counts) : undefined);
  return out;
}

/** Σ (a − ma)(b − mb) over the segment (no null scores in it). */
function crossSum(
  a: Float64Array,
  ma: number,
  b: Float64Array,
  mb: number,
  order: Int32Array,
  start: number,
  end: number,
): number {
  let c = 0;
  for (let j = start; j < end; j++) {
    const i = order[j]!;
    c += (a[i]! - ma) * (b[i]! - mb);
  }
  return c;
}

/** ρ from a cross-product sum and the two columns' m2 in group g, clamped to [−1, 1]. */
function correlation(cross: number, a: GroupStats, b: GroupStats, g: number): number {
  const den = Math.sqrt(a.m2[g]! * b.m2[g]!);
  return den > 0 ? Math.max(-1, Math.min(1, cross / den)) : 0;
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
  return caa > 0 && cbb > 0 ? Math.max(-1, Math.min(1, cab / Math.sqrt(caa * cbb))) : 0;
}

export const corrGrpoEstimator: EstimatorDefinition<CorrGrpoOptions> = {
  name: "corr_grpo",
  summary: "CorrGRPO: centered weighted total over sqrt(Σ ρ_kl + ε), ρ of the weighted components (authors' code)",
  options: corrGrpoOptions,
  needs: ["components"],
  uses: ["lengths"],
  compute: corrGrpo,
  batchStatistics: batchNormStatistics,
};
