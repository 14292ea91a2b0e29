import { z } from "zod";
import { unscorable } from "../../core/types.js";
import type { ComponentResult, Rollout } from "../../core/types.js";
import type { VerifierDefinition } from "../types.js";
import { LIKELIHOOD_FORMS, formValue, logprobProblem } from "../likelihood/forms.js";
import { potentialsFor, shapeRewards, shapingOption } from "../process/shaping.js";
import { denseResult, noNegZero } from "./tokens.js";
import { rolloutOutcome } from "../process/outcome.js";

/** How the gold answer's token log-probs ℓ_1..ℓ_L become its "probability" P at a turn boundary. */
export const BELIEF_FORMS = ["geo-prob", ...LIKELIHOOD_FORMS] as const;
export type BeliefForm = (typeof BELIEF_FORMS)[number];

const options = z.strictObject({
  /**
   * `geo-prob` (default, IGPO): exp((1/L) Σ ℓ_j), the length-normalized probability of the gold answer; or a
   * likelihood form (`mean-prob`, `seq-prob`, `logprob`, `mean-logprob`).
   */
  form: z.enum(BELIEF_FORMS).default("geo-prob"),
  /** Weight of the information-gain turns against the outcome turn (default 1). */
  gainWeight: z.number().finite().nonnegative().default(1),
  /**
   * Potential-based shaping of the turn rewards (F_t = γΦ(s_t) − Φ(s_{t−1}), Φ of the end 0): Φ from the rollout's
   * `step_potentials` (one per turn), or `step-scores`: Φ(s_t) = the belief P_t, Φ(s_0) = `initial`.
   */
  shaping: shapingOption.optional(),
});
export type InfoGainOptions = z.infer<typeof options>;

/** The belief P(a | context) in the gold answer from its token log-probs under `form`. */
export function belief(form: BeliefForm, lp: readonly number[]): number {
  return form === "geo-prob" ? Math.exp(formValue("mean-logprob", lp)) : formValue(form, lp);
}

/**
 * IGPO turn rewards for a trajectory of T turns: r_t = w·(P_t − P_{t−1}) for t = 1..T−1 and r_T = outcome, where
 * P_t is the belief after turn t (P_0: the prompt alone), so Σ_t r_t = w·(P_{T−1} − P_0) + outcome.
 * Example (geo-prob, w 1): P = [0.1, 0.4, 0.3], outcome 1 → [0.3, −0.1, 1].
 * @param beliefs P_0..P_{T−1}, shape [T], T ≥ 1.
 */
export function infoGainRewards(beliefs: readonly number[], outcome: number, w = 1): number[] {
  const out = beliefs.slice(1).map((p, k) => noNegZero(w * (p - beliefs[k]!)));
  out.push(outcome);
  return out;
}

/** Assistant turns of a chat completion, undefined for a text completion. */
function assistantTurns(rollout: Rollout): number | undefined {
  const c = rollout.completion;
  return Array.isArray(c) ? c.filter((m) => m.role === "assistant").length : undefined;
}

function score(rollout: Rollout, o: InfoGainOptions): ComponentResult {
  const gold = rollout.gold_logprobs;
  if (!Array.isArray(gold) || gold.length === 0)
    return unscorable("logprob_error", { field: "gold_logprobs", error: "missing" });
  const turns = assistantTurns(rollout);
  if (turns !== undefined && turns !== gold.length)
    return unscorable("length_mismatch", { lengths: { gold_logprobs: gold.length, assistant_turns: turns } });
  const lengths = new Set(gold.map((g) => (Array.isArray(g) ? g.length : -1)));
  if (lengths.size > 1)
    return unscorable("length_mismatch", {
      field: "gold_logprobs",
      error: "the gold answer has a different token count at different turns",
      lengths: gold.map((g) => (Array.isArray(g) ? g.length : null)),
    });
  for (let t = 0; t < gold.length; t++) {
    const problem = logprobProblem(gold[t]);
    if (problem) return unscorable("logprob_error", { field: `gold_logprobs[${t}]`, error: problem });
  }
  const outcome = rolloutOutcome(rollout);
  if (outcome === undefined) return unscorable("no_outcome");
  const beliefs = gold.map((g) => belief(o.form, g));
  const unshaped = infoGainRewards(beliefs, outcome, o.gainWeight);
  let rewards = unshaped;
  const details: Record<string, unknown> = { turns: gold.length, beliefs, outcome };
  if (o.shaping) {
    const phi = potentialsFor(o.shaping, rollout.step_potentials, [...beliefs.slice(1), outcome]);
    if ("problem" in phi) return unscorable("invalid_steps", { ...details, problem: phi.problem });
    const shaped = shapeRewards(rewards, phi, o.shaping.gamma);
    details.shaping = { gamma: o.shaping.gamma, potentials: phi, terms: shaped.terms, unshaped };
    rewards = shaped.rewards;
  }
  // the score is the unshaped sum: shaping moves credit between turns, its total −Φ(s_0) is the same for every rollout
  let s = 0;
  for (const r of unshaped) s += r;
  return denseResult(s, details, "turn_rewards", rewards);
}

/**
 * `info-gain`: IGPO's turn-level rewards for a multi-turn trajectory. From `gold_logprobs` (per turn boundary, the
 * gold answer's token log-probs given the prompt and the turns so far, computed by the trainer with the policy) the
 * belief P_t in the gold answer is formed (`form`, default IGPO's exp of the mean token log-prob); each turn but the
 * last is rewarded by its gain P_t − P_{t−1}, the last turn by the rollout's `outcome` (number, or boolean as 1/0).
 * `turn_rewards` holds the T rewards (shaped, with `shaping`); the score is their unshaped sum. Missing or
 * malformed log-probs: `logprob_error`; a turn count other than the chat completion's assistant turns, or a gold
 * answer whose token count changes between turns: `length_mismatch`; no outcome: `no_outcome`.
 *
 * Source: Wang et al. 2025, *Information Gain-based Policy Optimization: A Simple and Effective Approach for
 * Multi-Turn LLM Agents* (IGPO, arXiv 2510.14967, §3: π_θ(a | q, o_≤t) = exp((1/L) Σ_j log π_θ(a_j | …)),
 * r_t = π_θ(a | q, o_≤t) − π_θ(a | q, o_≤t−1) for t < T, r_T the outcome reward).
 */
export const infoGainVerifier: VerifierDefinition<InfoGainOptions> = {
  type: "info-gain",
  summary:
    "IGPO: per-turn information gain in the gold answer's probability (turn_rewards), the outcome on the last turn; score their sum",
  options,
  isolation: "inline",
  defaultPassThreshold: 0,
  defaultTimeoutMs: 10_000,
  reads: ["gold_logprobs", "outcome", "step_potentials"],
  cacheable: false,
  create(o) {
    return ({ rollout }) => score(rollout, o);
  },
};
