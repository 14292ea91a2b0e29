import { groupStats } from "../advantage/group-stats.js";
import type { AdvantageInput } from "../advantage/types.js";

/** Per-run advantage diagnostics (`rewardkit advantages --diagnostics`). */
export interface AdvantageDiagnostics {
  /** Rollouts in the batch. */
  count: number;
  /** Rollouts with a null advantage (null reward or filtered out). */
  nullCount: number;
  /** Mean and population std of the non-null advantages. */
  mean: number | null;
  std: number | null;
  /** Share of non-null advantages that are exactly 0 (no learning signal). */
  zeroFraction: number | null;
  /**
   * Effective sample size of the batch's learning signal, Kish's formula on |A|: (Σ|A_i|)² / Σ A_i² —
   * equals the number of rollouts when every |A| is equal and falls towards 1 as a few rollouts dominate; 0 when
   * every advantage is 0. `essFraction` = ess / non-null count.
   */
  ess: number;
  essFraction: number | null;
  groups: {
    count: number;
    /** Groups with exactly one non-null reward. */
    singletons: number;
    /** Groups whose non-null rewards are all equal (≥ 2 of them): no signal under GRPO; `filter: zero_variance` drops them. */
    zeroVariance: number;
    zeroVarianceFraction: number | null;
  };
  /**
   * Advantage collapse (GDPO, arXiv 2601.05242 §3): within a group, rollouts with distinct component-score vectors
   * that receive the same advantage (e.g. (1, 0) and (0, 1) under a summed reward). Counted over the groups'
   * rollouts with a non-null advantage; equality is exact. `rate` = 1 − distinctAdvantages / distinctVectors.
   * Absent without components.
   */
  collapse?: { collapsedGroups: number; distinctVectors: number; distinctAdvantages: number; rate: number | null };
  /** Pearson correlation between components over rollouts where both are non-null (null where undefined). */
  componentCorrelation?: { names: string[]; matrix: (number | null)[][] };
}

/**
 * Computes {@link AdvantageDiagnostics} for one batch.
 * @param input the estimator's input (rewards, groups, optional components), shapes [n].
 * @param adv advantages, shape [n] (NaN = null).
 */
export function advantageDiagnostics(input: AdvantageInput, adv: Float64Array): AdvantageDiagnostics {
  const n = adv.length;
  let m = 0;
  let sum = 0;
  let zeros = 0;
  let abs = 0;
  let sq = 0;
  for (let i = 0; i < n; i++) {
    const a = adv[i]!;
    if (a !== a) continue;
    m++;
    sum += a;
    if (a === 0) zeros++;
    abs += Math.abs(a);
    sq += a * a;
  }
  const mean = m > 0 ? sum / m : NaN;
  let m2 = 0;
  for (let i = 0; i < n; i++) {
    const a = adv[i]!;
    if (a === a) m2 += (a - mean) * (a - mean);
  }
  const ess = sq > 0 ? (abs * abs) / sq : 0;

  const { groups, rewards } = input;
  const st = groupStats(rewards, groups);
  let singletons = 0;
  let zeroVar = 0;
  let multi = 0;
  for (let g = 0; g < groups.count; g++) {
    const c = st.n[g]!;
    if (c === 1) singletons++;
    if (c >= 2) {
      multi++;
      if (!(st.max[g]! > st.min[g]!)) zeroVar++;
    }
  }
  const out: AdvantageDiagnostics = {
    count: n,
    nullCount: n - m,
    mean: m > 0 ? mean : null,
    std: m > 0 ? Math.sqrt(m2 / m) : null,
    zeroFraction: m > 0 ? zeros / m : null,
    ess,
    essFraction: m > 0 ? ess / m : null,
    groups: {
      count: groups.count,
      singletons,
      zeroVariance: zeroVar,
      zeroVarianceFraction: multi > 0 ? zeroVar / multi : null,
    },
  };

  const comps = input.components;
  if (comps && comps.names.length > 0) {
    let collapsedGroups = 0;
    let vectors = 0;
    let values = 0;
    for (let g = 0; g < groups.count; g++) {
      const byAdv = new Map<number, Set<string>>();
      for (let k = groups.offsets[g]!; k < groups.offsets[g + 1]!; k++) {
        const i = groups.order[k]!;
        const a = adv[i]!;
        if (a !== a) continue;
        const key = comps.scores.map((s) => String(s[i])).join(",");
        let set = byAdv.get(a);
        if (!set) byAdv.set(a, (set = new Set()));
        set.add(key);
      }
      let collapsed = false;
      const all = new Set<string>();
      for (const set of byAdv.values()) {
        if (set.size > 1) collapsed = true;
        for (const v of set) all.add(v);
      }
      vectors += all.size;
      values += byAdv.size;
      if (collapsed) collapsedGroups++;
    }
    out.collapse = {
      collapsedGroups,
      distinctVectors: vectors,
      distinctAdvantages: values,
      rate: vectors > 0 ? Math.max(0, 1 - values / vectors) : null,
    };
    out.componentCorrelation = { names: [...comps.names], matrix: correlationMatrix(comps.scores) };
  }
  return out;
}

/** Pearson correlation matrix of columns (pairwise over rows where both are non-NaN). */
export function correlationMatrix(cols: Float64Array[]): (number | null)[][] {
  const K = cols.length;
  const out: (number | null)[][] = Array.from({ length: K }, () => new Array<number | null>(K).fill(null));
  for (let a = 0; a < K; a++) {
    for (let b = a; b < K; b++) {
      const x = cols[a]!;
      const y = cols[b]!;
      let n = 0;
      let sx = 0;
      let sy = 0;
      for (let i = 0; i < x.length; i++) {
        if (Number.isNaN(x[i]!) || Number.isNaN(y[i]!)) continue;
        n++;
        sx += x[i]!;
        sy += y[i]!;
      }
      if (n < 2) continue;
      const mx = sx / n;
      const my = sy / n;
      let cxy = 0;
      let cxx = 0;
      let cyy = 0;
      for (let i = 0; i < x.length; i++) {
        if (Number.isNaN(x[i]!) || Number.isNaN(y[i]!)) continue;
        cxy += (x[i]! - mx) * (y[i]! - my);
        cxx += (x[i]! - mx) ** 2;
        cyy += (y[i]! - my) ** 2;
      }
      const r = cxx > 0 && cyy > 0 ? cxy / Math.sqrt(cxx * cyy) : null;
      out[a]![b] = r;
      out[b]![a] = r;
    }
  }
  return out;
}

/** One line for stderr: mean/std, zero share, ESS, zero-variance groups, collapse. */
export function formatAdvantageDiagnostics(d: AdvantageDiagnostics): string {
  const f = (x: number | null, p = 4): string => (x === null ? "n/a" : Number(x.toFixed(p)).toString());
  const parts = [
    `mean ${f(d.mean)}`,
    `std ${f(d.std)}`,
    `zero ${f(d.zeroFraction === null ? null : d.zeroFraction * 100, 1)}%`,
    `ESS ${f(d.ess, 1)}${d.essFraction === null ? "" : ` (${f(d.essFraction * 100, 1)}%)`}`,
    `zero-variance groups ${d.groups.zeroVariance}/${d.groups.count}`,
  ];
  if (d.groups.singletons) parts.push(`singletons ${d.groups.singletons}`);
  if (d.collapse) parts.push(`collapsed groups ${d.collapse.collapsedGroups}`);
  return parts.join(", ");
}
