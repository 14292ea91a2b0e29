import { normalize } from "./types.js";
import type { StrategyDefinition } from "./types.js";

/**
 * `success-guided`: weight ∝ ε + p(1 − p), the variance of a prompt's pass/fail outcome — highest at p = 0.5,
 * lowest (ε) at p = 0 or 1, where a GRPO group has no signal. Sources: prioritized sampling by p(1 − p)
 * (Polaris / "Act Only When It Pays", GRESO, Qu et al. 2025), AdaRFT's target-difficulty sampling (Shi et al. 2025).
 * - raw (default): p = the pass rate (successes / attempts); weights are strictly ordered by p(1 − p).
 * - `smooth`: the posterior expectation E[p(1 − p)] = a′b′ / ((a′ + b′)(a′ + b′ + 1)) under Beta(a′, b′) =
 *   Beta(a + successes, b + failures): a prompt seen twice and failed twice still weighs more than one failed 50
 *   times, since less is known of it.
 * Example (ε = 0.01): pass rates 0, 0.5, 1 → raw 0.01, 0.26, 0.01 → weights 0.0357, 0.9286, 0.0357.
 */
export const successGuided: StrategyDefinition = {
  name: "success-guided",
  summary: "weight ∝ ε + p(1−p): prompts solved about half the time first",
  weigh(rows, params) {
    const eps = params.floor ?? 0.01;
    const raw = rows.map((r) => {
      if (!params.smooth) return eps + r.pass_rate * (1 - r.pass_rate);
      const a = r.posterior_mean;
      // E[p(1−p)] = mean·(1−mean)·(a′+b′)/(a′+b′+1) = mean·(1−mean) − variance
      return eps + a * (1 - a) - r.posterior_variance;
    });
    return normalize(raw).map((weight) => ({ weight }));
  },
};
