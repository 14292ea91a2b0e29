/**
 * Monte-Carlo step values (Math-Shepherd, Wang et al. 2024; PAV, Setlur et al. 2024): from each step prefix of a
 * solution, N continuations are sampled to the end and their outcomes checked; the prefix's value is estimated from
 * the successes, and a step's *progress* is the value it adds. These become the `process` component's step scores.
 */
import { z } from "zod";

/** The `monteCarlo:` option of `process`. */
export const monteCarloOption = z.strictObject({
  /**
   * `soft` (default): the success rate s/n (Math-Shepherd's soft estimation); `hard`: 1 when any continuation
   * succeeded, else 0 (its hard estimation); `posterior`: the Beta-Binomial posterior mean (α + s)/(α + β + n).
   */
  estimate: z.enum(["soft", "hard", "posterior"]).default("soft"),
  /** `value` (default): the step score is the value of the prefix through the step; `progress`: v_k − v_{k−1} (PAV). */
  score: z.enum(["value", "progress"]).default("value"),
  /** A continuation succeeded when its outcome reward is ≥ this (booleans are 1/0; default 1). */
  successThreshold: z.number().finite().default(1),
  /** Beta(α, β) prior of `posterior` (default α = β = 1: uniform, Laplace's rule of succession). */
  prior: z.strictObject({ alpha: z.number().positive(), beta: z.number().positive() }).default({ alpha: 1, beta: 1 }),
});
export type MonteCarloOptions = z.infer<typeof monteCarloOption>;

/**
 * The value of one prefix from its continuations' outcomes; null when it has none (except `posterior`, which then
 * gives the prior mean α/(α + β)).
 * Example: outcomes [1, 0, 0, 1] → soft 0.5, hard 1, posterior (Beta(1, 1)) (1 + 2)/(2 + 4) = 0.5;
 * [1] → soft 1, hard 1, posterior 2/3.
 */
export function prefixValue(outcomes: readonly (number | boolean)[], o: MonteCarloOptions): number | null {
  let s = 0;
  for (const x of outcomes) if ((typeof x === "boolean" ? (x ? 1 : 0) : x) >= o.successThreshold) s++;
  const n = outcomes.length;
  if (o.estimate === "posterior") return (o.prior.alpha + s) / (o.prior.alpha + o.prior.beta + n);
  if (n === 0) return null;
  return o.estimate === "hard" ? (s > 0 ? 1 : 0) : s / n;
}

/**
 * Step scores of K steps from `step_rollouts`: K entries (prefixes through steps 1..K) or K + 1 (the prompt alone
 * first, needed by `progress`: v_0). `value`: v_1..v_K; `progress`: v_k − v_{k−1} (null where either is null).
 * Example (soft, progress): [[0, 1], [1, 1], [1, 0]] for K = 2 → v = [0.5, 1, 0.5] → [0.5, −0.5].
 */
export function monteCarloScores(
  runs: unknown,
  K: number,
  o: MonteCarloOptions,
): { scores: (number | null)[]; values: (number | null)[] } | { problem: string } {
  if (!Array.isArray(runs)) return { problem: "monteCarlo needs the rollout's step_rollouts" };
  if (runs.length !== K && runs.length !== K + 1)
    return {
      problem: `${runs.length} step_rollouts for ${K} steps (expected ${K}, or ${K + 1} with the prompt first)`,
    };
  if (o.score === "progress" && runs.length !== K + 1)
    return { problem: `progress needs ${K + 1} step_rollouts: the prompt alone first, then each step's prefix` };
  const values = (runs as (number | boolean)[][]).map((r) => prefixValue(r, o));
  const own = values.slice(values.length - K);
  if (o.score === "value") return { scores: own, values };
  const scores = own.map((v, k) => {
    const prev = values[k]!;
    return v === null || prev === null ? null : v - prev;
  });
  return { scores, values };
}
