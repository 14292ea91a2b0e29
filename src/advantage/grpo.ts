import { z } from "zod";
import { singletonFactor, singletonOption } from "./common.js";
import { filterOption } from "./filter.js";
import { groupStats } from "./group-stats.js";
import type { GroupStats } from "./group-stats.js";
import { centerScale } from "./kernel.js";
import type { AdvantageInput, EstimatorDefinition } from "./types.js";

export const grpoOptions = z.strictObject({
  /** Group baseline: `mean` of the group (GRPO), or `leave-one-out` (mean of the other members; NeMo-RL). */
  baseline: z.enum(["mean", "leave-one-out"]).default("mean"),
  /** Std used to scale: `unbiased` (n−1; verl, TRL, OpenRLHF, NeMo-RL), `population` (n; open-instruct), `none` (Dr.GRPO). */
  std: z.enum(["unbiased", "population", "none"]).default("unbiased"),
  /**
   * Which rewards the std is taken over: `group` (all non-null members) or `others` (the members other than
   * the rollout itself, as NeMo-RL does with its leave-one-out baseline; the unbiased std then divides by m − 1, m = n − 1).
   */
  stdOver: z.enum(["group", "others"]).default("group"),
  /**
   * `group` (default): the std of the rollout's group; `batch`: one std of every non-null reward in the batch
   * (TRL `scale_rewards="batch"`: group mean, batch std; `stdOver` does not apply).
   */
  scale: z.enum(["group", "batch"]).default("group"),
  /** ε added to the std in the denominator (verl 1e-6, TRL 1e-4, OpenRLHF 1e-9, open-instruct 1e-8). */
  epsilon: z.number().nonnegative().default(1e-6),
  /** `always`: divide by σ + ε (verl, TRL, OpenRLHF, open-instruct); `positive-std`: divide by σ + ε only where σ > 0, else leave r − b (NeMo-RL). */
  epsilonWhere: z.enum(["always", "positive-std"]).default("always"),
  /** A group with one non-null reward: `zero` (default), `raw` (= r), `unit` (μ = 0, σ = 1: r/(1 + ε); verl). */
  singleton: singletonOption,
  filter: filterOption,
});
export type GrpoOptions = z.infer<typeof grpoOptions>;

/**
 * Group-relative advantages (GRPO, Shao et al. 2024, arXiv 2402.03300, §4.1.2).
 *
 * A_i = (r_i − b_i) / (σ_i + ε), where for group g with non-null rewards r_1 … r_n:
 * - b_i = μ_g = (1/n) Σ_j r_j (`baseline: mean`), or b_i = (1/(n−1)) Σ_{j≠i} r_j (`leave-one-out`);
 * - σ_i = sqrt(Σ_j (r_j − μ)² / (n − 1)) (`unbiased`) or / n (`population`) over the group (`stdOver: group`),
 *   or over the n − 1 others around b_i (`stdOver: others`), or over the whole batch (`scale: batch`, TRL);
 *   `std: none` gives A_i = r_i − b_i (Dr.GRPO, Liu et al. 2025, arXiv 2503.20783);
 * - `epsilonWhere: positive-std` divides only where σ_i > 0 (NeMo-RL), `always` divides by σ_i + ε everywhere.
 * A group whose non-null rewards are all equal gets exactly 0 (decided exactly; in fp32 the peers give up to
 * ±0.1, OpenRLHF +59.6 for eight 0.7s: docs/advantages.md). Singleton groups follow `singleton`. Null rewards
 * (NaN) are left out of the statistics and get NaN.
 *
 * Peers (see `presets.ts`): verl `core_algos.compute_grpo_outcome_advantage` (unbiased, ε = 1e-6, singleton
 * μ = 0, σ = 1); TRL `GRPOTrainer._generate_and_score_completions` (unbiased, 1e-4); OpenRLHF
 * `experience_maker` `group_norm` (unbiased, 1e-9); NeMo-RL `calculate_baseline_and_std_per_prompt`
 * (leave-one-out baseline and std, 1e-6 only where σ > 0); open-instruct `data_loader` `standard`
 * (population std, 1e-8).
 *
 * Example (verl): rewards [1, 0, 0, 1] → μ 0.5, unbiased σ 0.57735 → [0.866024, −0.866024, −0.866024, 0.866024].
 * @param input rewards shape [n] (NaN = null), groups over the n positions.
 * @param out optional output buffer, shape [n] (group-std and batch-std scaling with a mean baseline).
 * @param stats `groupStats(input.rewards, input.groups)` when the caller has it already.
 * @returns advantages, shape [n].
 */
export function grpo(input: AdvantageInput, o: GrpoOptions, out?: Float64Array, stats?: GroupStats): Float64Array {
  const { rewards, groups } = input;
  const noStd = o.std === "none";
  const eps = o.epsilon;
  if (o.scale === "batch" && !noStd) {
    const sd = batchStd(rewards, o.std === "unbiased");
    const bad = o.epsilonWhere === "positive-std" && !(sd > 0);
    const factor = bad ? 1 : 1 / (sd + eps);
    return centerScale(
      rewards,
      groups,
      stats,
      { center: o.baseline, scale: "none", factor, singleton: singletonFactor(o.singleton, true, eps) },
      out,
    );
  }
  if (o.baseline === "mean" || (noStd && o.baseline === "leave-one-out")) {
    // one kernel for the common case; with a mean baseline σ > 0 in every non-flat group, so `epsilonWhere` cannot matter
    return centerScale(
      rewards,
      groups,
      stats,
      {
        center: o.baseline,
        scale: noStd ? "none" : "std",
        std: o.std === "population" ? "population" : "unbiased",
        epsilon: eps,
        singleton: singletonFactor(o.singleton, !noStd, eps),
      },
      out,
    );
  }
  return leaveOneOut(input, o, stats ?? groupStats(rewards, groups));
}

/** GRPO with a leave-one-out baseline divided by a std (NeMo-RL): per rollout, since σ can be the others'. */
function leaveOneOut(input: AdvantageInput, o: GrpoOptions, st: GroupStats): Float64Array {
  const { rewards, groups } = input;
  const res = new Float64Array(rewards.length).fill(NaN);
  const { order, offsets } = groups;
  const unbiased = o.std === "unbiased";
  const others = o.stdOver === "others";
  const eps = o.epsilon;
  const guard = o.epsilonWhere === "positive-std";
  const single = singletonFactor(o.singleton, true, eps);
  for (let g = 0; g < groups.count; g++) {
    const start = offsets[g]!;
    const end = offsets[g + 1]!;
    const n = st.n[g]!;
    if (n === 0) continue;
    const flat = !(st.max[g]! > st.min[g]!);
    const mean = st.mean[g]!;
    const sum = mean * n;
    let scale = 1;
    if (!others && n > 1 && !flat) {
      const std = Math.sqrt(st.m2[g]! / (unbiased ? n - 1 : n));
      scale = guard && !(std > 0) ? 1 : 1 / (std + eps);
    }
    for (let k = start; k < end; k++) {
      const i = order[k]!;
      const r = rewards[i]!;
      if (r !== r) continue;
      if (n === 1) res[i] = single * r;
      else if (flat) res[i] = 0;
      else {
        // r − (Σ − r)/(n − 1) = n/(n − 1)(r − μ): the RLOO form keeps the exact 0 of r = μ
        const d = (n / (n - 1)) * (r - mean);
        if (others) {
          const b = (sum - r) / (n - 1);
          const std = othersStd(rewards, order, start, end, i, b, n - 1, unbiased);
          res[i] = guard && !(std > 0) ? d : d / (std + eps);
        } else res[i] = d * scale;
      }
    }
  }
  return res;
}

/**
 * Std of the m non-null rewards of a segment other than position `self`, around their mean `b`, by two passes
 * (NeMo-RL computes sqrt((E[r²] − E[r]²)·m/(m − 1)) in fp32; equal in exact arithmetic). 0 when m − 1 = 0
 * (NeMo's nan_to_num) or when the others are all equal.
 */
function othersStd(
  rewards: Float64Array,
  order: Int32Array,
  start: number,
  end: number,
  self: number,
  b: number,
  m: number,
  unbiased: boolean,
): number {
  let m2 = 0;
  let lo = Infinity;
  let hi = -Infinity;
  for (let k = start; k < end; k++) {
    const j = order[k]!;
    const v = rewards[j]!;
    if (j !== self && v === v) {
      m2 += (v - b) * (v - b);
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  const dof = unbiased ? m - 1 : m;
  // equal others: exactly 0, so the σ > 0 guard cannot be passed by rounding residue (NeMo-RL PR #4161)
  return dof > 0 && hi > lo ? Math.sqrt(m2 / dof) : 0;
}

/** `batchStatistics` of `grpo` and `dr_grpo`: only `scale: batch` (with a std) reads other groups. */
export function grpoBatchStatistics(o: GrpoOptions): string | undefined {
  return o.scale === "batch" && o.std !== "none" ? "scale: batch divides by the std of the whole batch" : undefined;
}

/** Std of every non-null reward of the batch (two passes); 0 for fewer than two (TRL: zeros). */
function batchStd(rewards: Float64Array, unbiased: boolean): number {
  let n = 0;
  let sum = 0;
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < rewards.length; i++) {
    const v = rewards[i]!;
    if (v !== v) continue;
    n++;
    sum += v;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (n < 2 || !(hi > lo)) return 0;
  const mean = sum / n;
  let m2 = 0;
  for (let i = 0; i < rewards.length; i++) {
    const v = rewards[i]!;
    if (v === v) m2 += (v - mean) * (v - mean);
  }
  return Math.sqrt(m2 / (unbiased ? n - 1 : n));
}

/** `grpo` in the estimator registry. */
export const grpoEstimator: EstimatorDefinition<GrpoOptions> = {
  name: "grpo",
  summary: "GRPO: (r − group baseline) / (group std + ε), with explicit baseline/std/ε/singleton conventions",
  options: grpoOptions,
  compute: grpo,
  batchStatistics: grpoBatchStatistics,
};
