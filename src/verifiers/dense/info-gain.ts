import { z } from "zod";
import { unscorable } from "../../core/types.js";
import type { ComponentResult, Rollout } from "../../core/types.js";
import type { VerifierDefinition, VerifyFn } from "../types.js";
import type { ModelClient } from "../../client/client.js";
import { LIKELIHOOD_FORMS, formValue, logprobProblem } from "../likelihood/forms.js";
import { potentialsFor, shapeRewards, shapingOption } from "../process/shaping.js";
import { endpointOptions, fetchLogprobs, logprobEndpoint, requireEndpoint } from "./teacher.js";
import type { LogprobEndpoint } from "./teacher.js";
import { denseResult, noNegZero } from "./tokens.js";
import { rolloutOutcome } from "../process/outcome.js";

/** How the gold answer's token log-probs ℓ_1..ℓ_L become its "probability" P at a turn boundary. */
export const BELIEF_FORMS = ["geo-prob", ...LIKELIHOOD_FORMS] as const;
export type BeliefForm = (typeof BELIEF_FORMS)[number];

const options = z
  .strictObject({
    /**
     * `rollout` (default): `gold_logprobs` from the rollout; `http`: fetched from the endpoint at `baseUrl`, one
     * request per turn boundary with the token ids `prompt_ids ++ completion_ids[0 : turn_token_offsets[t−1]] ++
     * gold_ids`.
     */
    source: z.enum(["rollout", "http"]).default("rollout"),
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
    /** The endpoint (source `http`): `baseUrl`, `model`, `api`, `extraBody` and the client limits of `judge`. */
    ...endpointOptions,
  })
  .superRefine(requireEndpoint);
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

/** The rollout's `gold_logprobs`, checked for presence and against the chat completion's assistant turns. */
function fromRollout(rollout: Rollout, o: InfoGainOptions): ComponentResult {
  const gold = rollout.gold_logprobs;
  if (!Array.isArray(gold) || gold.length === 0)
    return unscorable("logprob_error", { field: "gold_logprobs", error: "missing" });
  const turns = assistantTurns(rollout);
  if (turns !== undefined && turns !== gold.length)
    return unscorable("length_mismatch", { lengths: { gold_logprobs: gold.length, assistant_turns: turns } });
  return score(rollout, gold, o);
}

/** The turn rewards from T ≥ 1 arrays of the gold answer's log-probs (the rollout's, or fetched). */
function score(rollout: Rollout, gold: readonly unknown[], o: InfoGainOptions): ComponentResult {
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
  const beliefs = (gold as number[][]).map((g) => belief(o.form, g));
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
 * Why `turn_token_offsets` cannot end T turns of a completion of `n` tokens (each a non-negative integer, strictly
 * increasing from 0 so that no turn is empty, the last at most `n`), or undefined.
 */
export function turnOffsetsProblem(offsets: readonly unknown[], n: number): string | undefined {
  if (offsets.length === 0) return "no turns";
  let prev = 0;
  for (let t = 0; t < offsets.length; t++) {
    const x = offsets[t];
    if (typeof x !== "number" || !Number.isInteger(x) || x <= prev)
      return t === 0
        ? `turn_token_offsets[0] ${String(x)} is not a positive integer (the first turn ends after its tokens)`
        : `turn_token_offsets[${t}] ${String(x)} does not follow turn_token_offsets[${t - 1}] ${prev} (strictly increasing)`;
    prev = x;
  }
  if (prev > n) return `turn_token_offsets ends at ${prev}, past the ${n} completion_ids`;
  return undefined;
}

/**
 * The T token-id contexts whose belief in the gold answer is asked of the endpoint: the prompt alone, then the prompt
 * and the completion through the end of turns 1..T−1 (the last turn's end is not a belief boundary: the outcome
 * rewards it). Example: prompt [7], completion [1, 2, 3, 4, 5], offsets [2, 4, 5] → [[7], [7, 1, 2], [7, 1, 2, 3, 4]].
 */
export function beliefContexts(
  promptIds: readonly number[],
  completionIds: readonly number[],
  offsets: readonly number[],
): number[][] {
  return offsets.map((_, t) => [...promptIds, ...completionIds.slice(0, t === 0 ? 0 : offsets[t - 1])]);
}

/** Source `http`: the gold answer's log-probs after each turn boundary, one request each, then the rollout's score. */
async function fromEndpoint(
  rollout: Rollout,
  o: InfoGainOptions,
  client: ModelClient,
  ep: LogprobEndpoint,
  signal?: AbortSignal,
): Promise<ComponentResult> {
  const fields = ["prompt_ids", "completion_ids", "gold_ids", "turn_token_offsets"] as const;
  for (const field of fields)
    if (!Array.isArray(rollout[field]))
      return unscorable("missing_field", {
        field,
        error: "source http sends prompt_ids ++ completion_ids[0 : turn_token_offsets[t−1]] ++ gold_ids",
      });
  const [prompt, ids, gold, offsets] = fields.map((f) => rollout[f]!);
  if (gold!.length === 0) return unscorable("missing_field", { field: "gold_ids", error: "empty" });
  const problem = turnOffsetsProblem(offsets!, ids!.length);
  if (problem)
    return unscorable("length_mismatch", {
      field: "turn_token_offsets",
      error: problem,
      lengths: { turn_token_offsets: offsets!.length, completion_ids: ids!.length },
    });
  const turns = assistantTurns(rollout);
  if (turns !== undefined && turns !== offsets!.length)
    return unscorable("length_mismatch", {
      lengths: { turn_token_offsets: offsets!.length, assistant_turns: turns },
    });
  // before the requests: a rollout that cannot be scored costs no call
  if (rolloutOutcome(rollout) === undefined) return unscorable("no_outcome");
  const got = await Promise.all(
    beliefContexts(prompt!, ids!, offsets!).map((c) => fetchLogprobs(client, ep, c, gold!, signal)),
  );
  const bad = got.findIndex((g) => "error" in g);
  if (bad >= 0)
    return unscorable("logprob_error", {
      field: `gold_logprobs[${bad}]`,
      error: (got[bad] as { error: string }).error,
    });
  return score(
    rollout,
    got.map((g) => (g as { logprobs: number[] }).logprobs),
    o,
  );
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
 * With `source: http` the log-probs are fetched (see `teacher.ts`): for turn boundary t = 0..T−1 the endpoint scores
 * `gold_ids` after `prompt_ids ++ completion_ids[0 : turn_token_offsets[t−1]]` (t = 0: after `prompt_ids` alone), T
 * requests in parallel through the model client. A missing field: `missing_field`; offsets out of order, past the
 * completion or not one per assistant turn: `length_mismatch`; a failed request (after the client's retries) or an
 * answer for other token ids: `logprob_error`. Each rollout is scored on its own; only the client's response cache is
 * shared (the prompt-alone request of a group's rollouts is made once).
 *
 * Source: Wang et al. 2025, *Information Gain-based Policy Optimization: A Simple and Effective Approach for
 * Multi-Turn LLM Agents* (IGPO, arXiv 2510.14967, §3: π_θ(a | q, o_≤t) = exp((1/L) Σ_j log π_θ(a_j | …)),
 * r_t = π_θ(a | q, o_≤t) − π_θ(a | q, o_≤t−1) for t < T, r_T the outcome reward).
 */
export const infoGainVerifier: VerifierDefinition<InfoGainOptions> = {
  type: "info-gain",
  summary:
    "IGPO: per-turn information gain in the gold answer's probability (turn_rewards; log-probs from the rollout or a vLLM endpoint), the outcome on the last turn; score their sum",
  options,
  isolation: "inline", // arithmetic, or awaited HTTP calls under the client's own deadlines
  abortable: true,
  defaultPassThreshold: 0,
  defaultTimeoutMs: 120_000,
  reads: [
    "gold_logprobs",
    "outcome",
    "step_potentials",
    "prompt_ids",
    "completion_ids",
    "gold_ids",
    "turn_token_offsets",
  ],
  cacheable: false,
  create(o) {
    if (o.source === "rollout") return ({ rollout }) => fromRollout(rollout, o);
    const { ep, client } = logprobEndpoint("info-gain", o);
    const fn: VerifyFn = ({ rollout, signal }) => fromEndpoint(rollout, o, client, ep, signal);
    fn.usage = () => client.stats();
    return fn;
  },
};
