/**
 * Potential-based reward shaping (Ng, Harada & Russell 1999, *Policy invariance under reward transformations*): per
 * step (or turn) k = 1..K of a trajectory s_0 → s_1 → … → s_K, the shaping reward F_k = γ·Φ(s_k) − Φ(s_{k−1}) is
 * added to the step's reward. Convention here: **Φ(s_K) = 0** (the terminal state has no potential), so with γ = 1 the
 * shaped return is Σ_k (r_k + F_k) = Σ_k r_k − Φ(s_0), and with any γ the discounted return
 * Σ_k γ^{k−1}(r_k + F_k) = Σ_k γ^{k−1} r_k − Φ(s_0): the same constant for every trajectory from s_0, so the
 * optimal policy is unchanged (Ng et al., Theorem 1) while the credit moves to the steps that raise Φ.
 */
import { z } from "zod";

/** The `shaping:` option of `process` and `info-gain`. */
export const shapingOption = z.strictObject({
  type: z.literal("potential"),
  /** γ of F = γΦ(s') − Φ(s) (default 1); the trainer's discount, so the invariance holds for its returns. */
  gamma: z.number().min(0).max(1).default(1),
  /**
   * Where Φ comes from: `rollout` (default): the rollout's `step_potentials`, Φ(s_0)..Φ(s_{K−1}), one per step; or
   * `step-scores`: Φ(s_k) = the score of step k (a PRM's or a Monte-Carlo value of the prefix through step k), and
   * Φ(s_0) = `initial`.
   */
  potential: z.enum(["rollout", "step-scores"]).default("rollout"),
  /** Φ(s_0) with `potential: step-scores` (default 0). */
  initial: z.number().finite().default(0),
});
export type ShapingOptions = z.infer<typeof shapingOption>;

/**
 * Shaping terms F_1..F_K from the potentials of the states before each step.
 * Example (γ 1): Φ = [0.2, 0.5, 0.9] (Φ(s_3) = 0) → F = [0.3, 0.4, −0.9], ΣF = −0.2 = −Φ(s_0).
 * @param potentials Φ(s_0)..Φ(s_{K−1}), shape [K].
 */
export function shapingTerms(potentials: readonly number[], gamma: number): number[] {
  const K = potentials.length;
  return potentials.map((phi, k) => {
    const next = k + 1 < K ? potentials[k + 1]! : 0;
    const f = gamma * next - phi;
    return f === 0 ? 0 : f;
  });
}

/**
 * The potentials Φ(s_0)..Φ(s_{K−1}) a shaping option asks for, or why they cannot be had.
 * @param field the rollout's `step_potentials`; @param scores the step scores (null: unscorable, counted as 0).
 */
export function potentialsFor(
  o: ShapingOptions,
  field: unknown,
  scores: readonly (number | null)[],
): number[] | { problem: string } {
  const K = scores.length;
  if (o.potential === "step-scores") return [o.initial, ...scores.slice(0, K - 1).map((s) => s ?? 0)];
  if (!Array.isArray(field)) return { problem: "shaping with potential rollout needs the rollout's step_potentials" };
  if (field.length !== K) return { problem: `${field.length} step_potentials for ${K} steps` };
  if (!field.every((x) => typeof x === "number" && Number.isFinite(x)))
    return { problem: "step_potentials must be finite numbers" };
  return field as number[];
}

/**
 * Adds the shaping terms to per-step rewards (a step without a reward counts as 0, so ΣF is kept whole).
 * @returns the shaped rewards and the terms, shape [K] each.
 */
export function shapeRewards(
  rewards: readonly (number | null)[],
  potentials: readonly number[],
  gamma: number,
): { rewards: number[]; terms: number[] } {
  const terms = shapingTerms(potentials, gamma);
  return { rewards: rewards.map((r, k) => (r ?? 0) + terms[k]!), terms };
}
