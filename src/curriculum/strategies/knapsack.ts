import { normalize } from "./types.js";
import type { StrategyDefinition } from "./types.js";

/** f(n) = 1 − pⁿ − (1 − p)ⁿ for n ≥ 1, f(0) = 0: the probability that a group of n has both outcomes. */
export function mixedProbability(p: number, n: number): number {
  return n === 0 ? 0 : 1 - Math.pow(p, n) - Math.pow(1 - p, n);
}

/**
 * Distributes `budget` rollouts over prompts with success probabilities `ps`, in multiples of `unit` (≥ 2), at most
 * `cap` each, maximising Σᵢ f(nᵢ) with f = {@link mixedProbability}: the expected number of prompts whose group
 * carries a learning signal (GRPO's advantage is 0 in a group of one outcome).
 *
 * Algorithm: greedy by marginal gain. Start from nᵢ = 0; repeatedly give one unit to the prompt with the largest
 * gain Fᵢ(uᵢ + 1) − Fᵢ(uᵢ), Fᵢ(u) = f(u·unit), among those below their cap, until the budget has no unit left or
 * no gain is positive (ties: the earlier prompt). O((B / unit) · P).
 *
 * Optimality: with q = p(1 − p) and s_j = pʲ + (1 − p)ʲ (s₀ = 2, s₁ = 1, non-increasing), f(n + 1) − f(n) = q·s_{n−1}
 * for n ≥ 1, so f is concave on n ≥ 1; f(1) = f(0) = 0 breaks concavity at 0, which is why rollouts go in units of
 * k ≥ 2: F(1) − F(0) = q·Σ_{j=0}^{k−2} s_j ≥ q·(2 + (k − 2)s_{k−1}) ≥ q·k·s_{k−1} ≥ F(2) − F(1), and later unit gains
 * are sums of k consecutive non-increasing terms. So every Fᵢ is concave on u ≥ 0, and for a separable concave
 * objective under one budget and box constraints the greedy allocation is optimal (Gross 1956; Ibaraki & Katoh,
 * "Resource Allocation Problems", 1988, §4.1): an exchange argument shows any allocation can be turned into the
 * greedy one without lowering the objective. The test checks it against brute force.
 * @returns rollouts per prompt (multiples of `unit`, ≤ cap, summing to ≤ budget).
 */
export function allocate(ps: readonly number[], budget: number, cap: number, unit: number): number[] {
  const units = ps.map(() => 0);
  const maxUnits = Math.floor(cap / unit);
  const gain = (i: number): number =>
    mixedProbability(ps[i]!, (units[i]! + 1) * unit) - mixedProbability(ps[i]!, units[i]! * unit);
  for (let left = Math.floor(budget / unit); left > 0; left--) {
    let best = -1;
    let bestGain = 0;
    for (let i = 0; i < ps.length; i++) {
      if (units[i]! >= maxUnits) continue;
      const g = gain(i);
      if (g > bestGain + 1e-15) {
        best = i;
        bestGain = g;
      }
    }
    if (best < 0) break;
    units[best]!++;
  }
  return units.map((u) => u * unit);
}

/**
 * `knapsack`: a rollout budget spread over prompts to maximise the expected number of groups with signal
 * ({@link allocate}); weight = the prompt's share of the budget, and `rollouts` its count. p = the pass rate, or the
 * Beta posterior mean with `smooth` (then a prompt never solved still gets rollouts while the budget lasts).
 * Defaults: budget 8 per prompt, cap 16, unit 2.
 */
export const knapsack: StrategyDefinition = {
  name: "knapsack",
  summary: "spreads a rollout budget to maximise Σ P(group has both outcomes), greedy by marginal gain (optimal)",
  weigh(rows, params) {
    const unit = params.unit ?? 2;
    const ps = rows.map((r) => (params.smooth ? r.posterior_mean : r.pass_rate));
    const n = allocate(ps, params.budget ?? 8 * rows.length, params.cap ?? 16, unit);
    return normalize(n).map((weight, i) => ({ weight, extra: { rollouts: n[i]! } }));
  },
};
