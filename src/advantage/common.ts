import { z } from "zod";
import type { GroupIndex } from "./groups.js";
import type { AdvantageInput, EstimatorNeed } from "./types.js";

/**
 * `filter` option shared by every estimator. `zero_variance` drops the groups whose non-null rewards are all
 * equal (a singleton included) before anything is computed — DAPO's dynamic sampling (Yu et al. 2025,
 * arXiv 2503.14476, §3.2: keep groups with 0 < #correct < G), open-instruct `filter_zero_std_samples`.
 * Dropped rollouts get a null advantage and do not enter batch statistics (whitening, GPG's α).
 */
export const filterOption = z.enum(["none", "zero_variance"]).default("none");

/**
 * Singleton rule: what a group with one non-null reward gets.
 * - `zero`: 0 (no comparison possible; rewardkit's default);
 * - `raw`: the reward itself (baseline 0: verl's RLOO, OPO, REINFORCE++-baseline, GPG);
 * - `unit`: baseline 0 and std 1, i.e. r / (1 + ε) when the estimator divides by a std, else r (verl's GRPO).
 */
export const singletonOption = z.enum(["zero", "raw", "unit"]).default("zero");
export type SingletonRule = z.infer<typeof singletonOption>;

/**
 * Per-group flag: 1 where the group's non-null rewards are all equal (zero variance, a singleton included)
 * or the group has no non-null reward. Shape [groups.count].
 */
export function zeroVarianceGroups(rewards: Float64Array, groups: GroupIndex): Uint8Array {
  const flags = new Uint8Array(groups.count);
  const { order, offsets } = groups;
  for (let g = 0; g < groups.count; g++) {
    let first = NaN;
    let flat = 1;
    for (let k = offsets[g]!; k < offsets[g + 1]!; k++) {
      const r = rewards[order[k]!]!;
      if (Number.isNaN(r)) continue;
      if (Number.isNaN(first)) first = r;
      else if (r !== first) {
        flat = 0;
        break;
      }
    }
    flags[g] = flat;
  }
  return flags;
}

/** `input` with the rewards of zero-variance groups set to null (NaN); `dropped` counts the rollouts nulled. */
export function dropZeroVariance(input: AdvantageInput): { input: AdvantageInput; dropped: number } {
  const flags = zeroVarianceGroups(input.rewards, input.groups);
  const rewards = input.rewards.slice();
  const { order, offsets } = input.groups;
  let dropped = 0;
  for (let g = 0; g < input.groups.count; g++) {
    if (!flags[g]) continue;
    for (let k = offsets[g]!; k < offsets[g + 1]!; k++) {
      const i = order[k]!;
      if (!Number.isNaN(rewards[i]!)) dropped++;
      rewards[i] = NaN;
    }
  }
  return { input: { ...input, rewards }, dropped };
}

/** Batch-whitening convention. */
export interface WhitenOptions {
  /** `unbiased` (divide the squared deviations by W − 1) or `population` (by W), W = total weight. */
  variance: "unbiased" | "population";
  /**
   * How ε enters: `sqrt-var` (x − μ)/sqrt(var + ε) (verl `masked_whiten`, ε = 1e-8); `clamp-var`
   * (x − μ)/sqrt(max(var, ε)) (OpenRLHF); `std-plus` (x − μ)/(sqrt(var) + ε) (TRL).
   */
  epsilonMode: "sqrt-var" | "clamp-var" | "std-plus";
  epsilon: number;
}

/**
 * Whitens `x` over the whole batch in place, skipping NaN: x ← (x − μ)/s.
 * With `weights` (shape [n], e.g. response lengths) the mean and variance are weighted as verl's token-level
 * `masked_whiten` over a response mask would weigh them (each rollout counted once per token; the unbiased
 * correction then uses the total token count W). Without weights every rollout counts once.
 * All values equal: every value becomes exactly 0. Total weight ≤ 1 with `unbiased`: values are only centered.
 */
export function whitenInPlace(x: Float64Array, o: WhitenOptions, weights?: Float64Array): void {
  const n = x.length;
  let w = 0;
  let sum = 0;
  let lo = Infinity;
  let hi = -Infinity;
  // Separate loops with and without weights keep each one monomorphic (a per-element `weights ? … : 1` ran 3× slower).
  if (weights) {
    for (let i = 0; i < n; i++) {
      const v = x[i]!;
      if (v !== v) continue;
      const wi = weights[i]!;
      w += wi;
      sum += wi * v;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  } else {
    for (let i = 0; i < n; i++) {
      const v = x[i]!;
      if (v !== v) continue;
      w++;
      sum += v;
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
  const mean = sum / w;
  let m2 = 0;
  if (weights) {
    for (let i = 0; i < n; i++) {
      const v = x[i]!;
      if (v !== v) continue;
      const d = v - mean;
      m2 += weights[i]! * d * d;
    }
  } else {
    for (let i = 0; i < n; i++) {
      const v = x[i]!;
      if (v !== v) continue;
      const d = v - mean;
      m2 += d * d;
    }
  }
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

/** Throws a clear error when `input` lacks what an estimator needs. */
export function requireInputs(name: string, input: AdvantageInput, needs: readonly EstimatorNeed[]): void {
  for (const need of needs) {
    const have = need === "components" ? input.components && input.components.names.length > 0 : input[need] !== undefined;
    if (!have) {
      const how =
        need === "components"
          ? "per-component scores (the scored file's `components`)"
          : need === "lengths"
            ? "response lengths (`completion_tokens`, or --length-field)"
            : "a stratum key per rollout (--set key=<field>)";
      throw new Error(`estimator ${name} needs ${how}`);
    }
  }
}

/** Selected component columns and their weights for a multi-component estimator. */
export interface ComponentSelection {
  names: string[];
  scores: Float64Array[];
  weights: number[];
}

/**
 * Picks components (all, or the listed `names` in that order) and their weights (default 1).
 * @throws Error naming the known components on an unknown name in `names` or `weights`.
 */
export function selectComponents(input: AdvantageInput, names: readonly string[] | undefined, weights: Record<string, number>): ComponentSelection {
  const c = input.components ?? { names: [], scores: [] };
  const known = new Map(c.names.map((n, k) => [n, k]));
  for (const n of [...(names ?? []), ...Object.keys(weights)]) {
    if (!known.has(n)) throw new Error(`unknown component "${n}"; known: ${c.names.join(", ") || "none"}`);
  }
  const picked = names && names.length > 0 ? [...names] : [...c.names];
  return { names: picked, scores: picked.map((n) => c.scores[known.get(n)!]!), weights: picked.map((n) => weights[n] ?? 1) };
}

/** Component options shared by the multi-component estimators. */
export const componentOptions = {
  /** Components to use, in order (default: every component in the input). */
  components: z.array(z.string().min(1)).optional(),
  /** Weight per component name (default 1 each). */
  weights: z.record(z.string(), z.number().finite()).default({}),
};

/**
 * The starting advantages of a multi-component estimator, shape [n]: NaN where the reward is null (those rollouts
 * get no advantage), 0 elsewhere (each component then adds its term).
 */
export function zerosUnlessNull(rewards: Float64Array): Float64Array {
  const out = new Float64Array(rewards.length);
  for (let i = 0; i < rewards.length; i++) if (Number.isNaN(rewards[i]!)) out[i] = NaN;
  return out;
}

/**
 * Component score matrix restricted to rollouts with a non-null reward: scores of rollouts whose reward is null
 * become NaN so they enter no statistic. Returns fresh arrays.
 */
export function maskByReward(rewards: Float64Array, scores: Float64Array[]): Float64Array[] {
  return scores.map((s) => {
    const out = s.slice();
    for (let i = 0; i < out.length; i++) if (Number.isNaN(rewards[i]!)) out[i] = NaN;
    return out;
  });
}
