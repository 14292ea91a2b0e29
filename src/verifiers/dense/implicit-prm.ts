import { z } from "zod";
import { unscorable } from "../../core/types.js";
import type { ComponentResult, Rollout } from "../../core/types.js";
import type { VerifierDefinition } from "../types.js";
import { STEP_AGGREGATIONS } from "../process/aggregate.js";
import { tokenSpans } from "../process/token-spans.js";
import { alignedLogprobs, denseResult, noNegZero, summarize } from "./tokens.js";

const STEP_NAMES = Object.keys(STEP_AGGREGATIONS) as [string, ...string[]];

const options = z.strictObject({
  /** β of r_t = β·(log π_φ − log π_ref) (PRIME's default 0.05). */
  beta: z.number().finite().positive().default(0.05),
  /** Without step boundaries: the score is the `sum` (default: PRIME's implicit outcome reward) or `mean`. */
  score: z.enum(["sum", "mean"]).default("sum"),
  /**
   * With `step_token_offsets` on the rollout: how the step rewards (each the sum of its tokens' rewards) become the
   * score, any `process` aggregation (`min`, `clip-delta` …; default `sum`).
   */
  aggregate: z.enum(STEP_NAMES).default("sum"),
  /** η of `clip` / `clip-delta` (the top of the step-reward range). */
  eta: z.number().finite().default(0),
  /** `first-error`: a step is wrong below this. */
  threshold: z.number().finite().default(0),
  /** Use the rollout's `step_token_offsets` when present (default true). */
  steps: z.boolean().default(true),
});
export type ImplicitPrmOptions = z.infer<typeof options>;

/**
 * PRIME's implicit process reward per token: r_t = β·(log π_φ(y_t | x, y_<t) − log π_ref(y_t | x, y_<t)), natural-log
 * units, range (−∞, ∞). Example: β 0.5, policy [−1, −1], ref [−2, −0.5] → [0.5, −0.25].
 * @param policy shape [T]; @param ref shape [T], same T.
 */
export function implicitTokenRewards(policy: readonly number[], ref: readonly number[], beta: number): number[] {
  return policy.map((lp, t) => noNegZero(beta * (lp - ref[t]!)));
}

/** Step rewards: Σ of the token rewards inside each `[start, end)` span (Yuan et al. 2024: q_k − q_{k−1}). */
export function stepSums(rewards: readonly number[], spans: readonly [number, number][]): number[] {
  return spans.map(([s, e]) => noNegZero(summarize(rewards.slice(s, e), "sum")));
}

function scored(rollout: Rollout, rewards: number[], o: ImplicitPrmOptions): ComponentResult {
  const offsets = rollout.step_token_offsets;
  const details: Record<string, unknown> = { tokens: rewards.length };
  let score: number;
  if (o.steps && offsets !== undefined && offsets !== null) {
    const count = Array.isArray(offsets) ? offsets.length : 0;
    const sp = tokenSpans(offsets, count, rewards.length);
    if ("problem" in sp) return unscorable("invalid_steps", { ...details, problem: sp.problem });
    if (count === 0) return unscorable("invalid_steps", { ...details, problem: "no steps" });
    const steps = stepSums(rewards, sp.spans);
    const agg = STEP_AGGREGATIONS[o.aggregate]!.aggregate(steps, { threshold: o.threshold, eta: o.eta });
    score = agg.score;
    Object.assign(details, { steps: count, step_scores: steps, step_rewards: agg.stepRewards });
  } else score = summarize(rewards, o.score);
  return denseResult(score, details, "token_rewards", rewards);
}

/**
 * `implicit-prm`: PRIME's implicit process reward from two log-prob arrays of the completion's tokens,
 * `policy_logprobs` (the implicit PRM π_φ, in PRIME an online-updated copy of the policy) and `ref_logprobs` (π_ref):
 * `token_rewards` r_t = β·(log π_φ − log π_ref). The score is Σ_t r_t (= β·log π_φ(y)/π_ref(y), the implicit
 * outcome reward; `mean` as an option), or, when the rollout gives `step_token_offsets`, the `aggregate` of the
 * step rewards (each Σ of its tokens) through the `process` aggregations (`min`, `clip-delta` …), recorded in
 * `details.step_scores` / `step_rewards`. Missing log-probs: `logprob_error`; lengths that differ from each other or
 * from `completion_ids`: `length_mismatch`.
 *
 * Sources: Cui et al. 2025, *Process Reinforcement through Implicit Rewards* (PRIME, arXiv 2502.01456, Eq. 3);
 * Yuan et al. 2024, *Free Process Rewards without Process Labels* (step reward = Σ of its tokens' β log-ratios).
 */
export const implicitPrmVerifier: VerifierDefinition<ImplicitPrmOptions> = {
  type: "implicit-prm",
  summary:
    "PRIME implicit process reward: token_rewards β·(log π_φ − log π_ref), score their sum (or a process aggregation over step_token_offsets)",
  options,
  isolation: "inline",
  defaultPassThreshold: 0,
  defaultTimeoutMs: 10_000,
  reads: ["policy_logprobs", "ref_logprobs", "completion_ids", "step_token_offsets"],
  cacheable: false, // the arithmetic costs less than a cache key over two log-prob arrays
  create(o) {
    return ({ rollout }) => {
      const lp = alignedLogprobs(rollout, [
        ["policy_logprobs", rollout.policy_logprobs],
        ["ref_logprobs", rollout.ref_logprobs],
      ]);
      if (!Array.isArray(lp)) return lp;
      return scored(rollout, implicitTokenRewards(lp[0]!, lp[1]!, o.beta), o);
    };
  },
};
