/**
 * Per-token advantages from an outcome advantage and dense components' token rewards (`advantage.tokens` in a spec,
 * docs/dense.md). Pure arithmetic over plain arrays.
 */
import { z } from "zod";

/** The `tokens:` key of a spec's `advantage:` block. */
export const tokenAdvantagesOption = z.strictObject({
  /** Dense component name → coefficient λ_c of its token rewards (at least one). */
  components: z
    .record(z.string().min(1), z.number().finite())
    .refine((c) => Object.keys(c).length > 0, "name at least one component"),
  /** `false` (default): each token adds its own reward; `true`: the return-to-go Σ_{s≥t} r_s (PRIME, γ = 1). */
  returns: z.boolean().default(false),
});
export type TokenAdvantagesOptions = z.infer<typeof tokenAdvantagesOption>;

/**
 * Token advantages of one rollout with outcome advantage A (the spec's estimator on the reward) and token rewards
 * r^c_1..r^c_T of each named component c, with coefficients λ_c:
 *
 * - per token (default): A_t = A + Σ_c λ_c · r^c_t. verl's on-policy distillation with task rewards sums the outcome
 *   policy-gradient loss and λ × the policy-gradient loss whose advantages are the token rewards
 *   (`distillation/losses.py`, `use_task_rewards` + `use_policy_gradient`); one loss with A_t is that sum for the
 *   same importance ratio. With A = 0 it is Thinking Machines' on-policy distillation (advantage = −reverse KL).
 * - `returns`: A_t = A + Σ_c λ_c · Σ_{s=t}^{T} r^c_s, the undiscounted return-to-go of the dense rewards added to the
 *   outcome advantage (PRIME, Cui et al. 2025, §3.3, γ = 1; PRIME also subtracts a leave-one-out baseline from the
 *   process rewards, not done here).
 *
 * Example: A = 0.5, λ = 1, r = [0.5, −1, 0] → per token [1, −0.5, 0.5]; returns [0, −0.5, 0.5].
 * @param rewards one array per component, all of length T.
 * @throws RangeError when the arrays differ in length.
 */
export function tokenAdvantages(
  outcome: number,
  rewards: ReadonlyArray<readonly number[]>,
  coefs: readonly number[],
  returns: boolean,
): number[] {
  const T = rewards[0]?.length ?? 0;
  if (rewards.some((r) => r.length !== T))
    throw new RangeError(`token rewards of lengths ${rewards.map((r) => r.length).join(", ")}`);
  const out = new Array<number>(T).fill(outcome);
  rewards.forEach((r, c) => {
    const lambda = coefs[c]!;
    let tail = 0;
    for (let t = T - 1; t >= 0; t--) {
      tail = returns ? tail + r[t]! : r[t]!;
      out[t] = out[t]! + lambda * tail;
    }
  });
  return out;
}
