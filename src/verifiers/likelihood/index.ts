import { z } from "zod";
import { ok, unscorable } from "../../core/types.js";
import type { ComponentResult, Rollout } from "../../core/types.js";
import type { GroupStage, VerifierDefinition } from "../types.js";
import { checkGroup, concentrationPenalty, concentrationSettings } from "../../diagnostics/concentration.js";
import { LIKELIHOOD_FORMS, clip, formValue, logprobProblem } from "./forms.js";
import { fetchReferenceLogprobs } from "./http.js";
import type { LogprobEndpoint } from "./http.js";

/** Rollout field with the reference's token log-probs computed without the reasoning (RLPR debiasing). */
export const NOREASON_FIELD = "reference_logprobs_noreason";

const options = z
  .strictObject({
    /** `logprob` (sum), `mean-logprob`, `mean-prob` (RLPR), `seq-prob` (VeriFree); see {@link formValue}. */
    form: z.enum(LIKELIHOOD_FORMS),
    /** Lower clip of the final score (after debiasing); none by default. */
    clipMin: z.number().optional(),
    /** Upper clip of the final score (after debiasing); none by default. */
    clipMax: z.number().optional(),
    /**
     * RLPR debiasing: subtract the same form computed without the reasoning (rollout field
     * `reference_logprobs_noreason`, or a second request with an empty reasoning). Default off.
     */
    debias: z.boolean().default(false),
    /** `rollout` (default): the rollout's `reference_logprobs`; `http`: fetched from `url`. */
    source: z.enum(["rollout", "http"]).default("rollout"),
    /** OpenAI-compatible completions URL (source `http`), e.g. `http://127.0.0.1:8000/v1/completions`. */
    url: z.url().optional(),
    /** Model name sent with each request (source `http`). */
    model: z.string().min(1).optional(),
    /** `prompt_logprobs` (vLLM, default) or `echo` (legacy OpenAI `echo` + `logprobs`, `max_tokens: 0`). */
    api: z.enum(["prompt_logprobs", "echo"]).default("prompt_logprobs"),
    /** `max_tokens` sent (default 1 for `prompt_logprobs`, 0 for `echo`). */
    maxTokens: z.number().int().nonnegative().optional(),
    /** Text before the reference: `{prompt}` and `{reasoning}` are replaced; the reference is appended. */
    template: z.string().default("{prompt}{reasoning}"),
    /**
     * Reasoning cut point: the reasoning is the completion up to and including the last occurrence of this marker
     * (e.g. `<answer>` or `Answer:`), so the reference takes the place of the model's own answer. Without it, or when
     * the marker is absent, the whole completion is the reasoning.
     */
    cutMarker: z.string().min(1).optional(),
    /** Per-request deadline, milliseconds (source `http`); past it the request is aborted. */
    requestTimeoutMs: z.number().int().positive().default(30_000),
    /** Name of an environment variable holding a bearer token for the endpoint. */
    apiKeyEnv: z.string().min(1).optional(),
    /**
     * RLPR std filter, applied at the group stage: in a group of ≥ 2 scorable rollouts whose score std (population)
     * is below this, every likelihood result becomes unscorable (`group_filtered`; the score stays in
     * `details.filteredScore`), so the group carries no signal (RLPR drops such prompts from the batch).
     */
    filterStd: z.number().nonnegative().optional(),
    /**
     * Posterior-concentration check (RLCPR), reported in the summary: a group of ≥ `collapseMinGroup` distinct-length
     * traces whose score std is ≤ `collapseStd` (default 0.01 for probability forms, 0.05 for log forms) and whose
     * mean trace length is ≥ `collapseMinLength` is collapsed. See `src/diagnostics/concentration.ts`.
     */
    collapseStd: z.number().nonnegative().optional(),
    collapseMinGroup: z.number().int().min(2).default(4),
    collapseMinLength: z.number().nonnegative().default(0),
    /**
     * RLCPR length regularization λ (0: off), applied at the group stage: in a collapsed group each score gets
     * −λ·(L − L_min)/(L_max − L_min) added (`details.collapsePenalty`, the score before it in `details.unpenalizedScore`);
     * see `concentrationPenalty`.
     */
    collapsePenalty: z.number().nonnegative().default(0),
  })
  .superRefine((o, ctx) => {
    if (o.source === "http") {
      if (!o.url) ctx.addIssue({ code: "custom", path: ["url"], message: "required when source is http" });
      if (!o.model) ctx.addIssue({ code: "custom", path: ["model"], message: "required when source is http" });
    }
    if (o.clipMin !== undefined && o.clipMax !== undefined && o.clipMin > o.clipMax) {
      ctx.addIssue({ code: "custom", path: ["clipMin"], message: "clipMin must be <= clipMax" });
    }
  });
export type LikelihoodOptions = z.infer<typeof options>;

/** The reasoning part of a completion: up to and including the last `cutMarker`, else all of it. */
export function reasoningOf(
  completion: string,
  cutMarker: string | undefined,
): { reasoning: string; cutFound: boolean } {
  if (cutMarker === undefined) return { reasoning: completion, cutFound: false };
  const at = completion.lastIndexOf(cutMarker);
  return at < 0
    ? { reasoning: completion, cutFound: false }
    : { reasoning: completion.slice(0, at + cutMarker.length), cutFound: true };
}

/** Replaces `{prompt}` and `{reasoning}` literally (no `$` patterns, no recursion into substituted text). */
export function renderTemplate(template: string, prompt: string, reasoning: string): string {
  return template
    .split("{prompt}")
    .map((part) => part.split("{reasoning}").join(reasoning))
    .join(prompt);
}

/** Trace length for the concentration check: `completion_tokens` when the sampler gave it, else code points. */
function traceLength(reasoning: string, rollout: Rollout): { traceLength: number; traceUnit: "tokens" | "chars" } {
  const n = rollout.completion_tokens;
  if (typeof n === "number" && Number.isFinite(n) && n >= 0) return { traceLength: n, traceUnit: "tokens" };
  return { traceLength: [...reasoning].length, traceUnit: "chars" };
}

/**
 * `likelihood`: verifier-free reward from the policy's own probability of the reference answer given the prompt and
 * the rollout's reasoning (teacher-forced). Score = {@link formValue}(form, ℓ) [− the same without reasoning when
 * `debias`], then clipped to [clipMin, clipMax] when given.
 *
 * Log-probs come from the rollout's `reference_logprobs` (computed by the trainer — the common case) or from an
 * OpenAI-compatible endpoint (see `http.ts` for the request shapes and the reference span). Missing or malformed
 * log-probs, HTTP errors and timeouts are `unscorable("logprob_error")`, never 0.
 *
 * Example: `{form: "mean-prob"}` on `reference_logprobs: [ln 0.5, ln 0.25]` → 0.375.
 * Sources: Likelihood-Based Reward Designs (log-prob), RLPR (mean token probability, debiasing, std filter),
 * VeriFree (sequence probability), RLCPR (concentration check, in diagnostics). With `filterStd` or
 * `collapsePenalty` the component also has a group stage ({@link likelihoodGroupStage}).
 */
export const likelihoodVerifier: VerifierDefinition<LikelihoodOptions> = {
  type: "likelihood",
  summary:
    "probability-based reward from token log-probs of the reference: sum, mean, mean prob (RLPR) or sequence prob (VeriFree)",
  options,
  isolation: "inline", // arithmetic, or an awaited HTTP request with its own deadline
  selfTimed: true,
  // Likelihoods are graded, not pass/fail: with 0, every scorable probability form passes and a log form passes only
  // at certainty. Set `passThreshold` to what "good" means for your form.
  defaultPassThreshold: 0,
  defaultTimeoutMs: 30_000,
  reads: ["reference_logprobs", NOREASON_FIELD, "completion_tokens", "prompt"],
  // Not cached: an HTTP verdict depends on the served model (not a pure function of the rollout), and from the
  // rollout's own log-probs the score costs less than its cache key.
  cacheable: false,
  group(o, ctx) {
    return likelihoodGroupStage(o, ctx.index);
  },
  create(o) {
    const finish = (value: number, details: Record<string, unknown>): ComponentResult => {
      if (!Number.isFinite(value))
        return unscorable("logprob_error", { ...details, error: `score ${value} is not finite` });
      return ok(clip(value, o.clipMin, o.clipMax), undefined, details);
    };

    if (o.source === "rollout") {
      return ({ completion, rollout }) => {
        const lp = rollout.reference_logprobs;
        const problem = logprobProblem(lp);
        if (problem) return unscorable("logprob_error", { field: "reference_logprobs", error: problem });
        const { reasoning } = reasoningOf(completion, o.cutMarker);
        const details: Record<string, unknown> = { tokens: lp!.length, ...traceLength(reasoning, rollout) };
        let value = formValue(o.form, lp!);
        if (o.debias) {
          const nr = rollout[NOREASON_FIELD];
          const p2 = logprobProblem(nr);
          if (p2) return unscorable("logprob_error", { field: NOREASON_FIELD, error: p2 });
          const base = formValue(o.form, nr as number[]);
          details.withReasoning = value;
          details.withoutReasoning = base;
          value -= base;
        }
        return finish(value, details);
      };
    }

    const ep: LogprobEndpoint = {
      url: o.url!,
      model: o.model!,
      api: o.api,
      timeoutMs: o.requestTimeoutMs,
      ...(o.maxTokens !== undefined ? { maxTokens: o.maxTokens } : {}),
      ...(o.apiKeyEnv && process.env[o.apiKeyEnv] ? { apiKey: process.env[o.apiKeyEnv] } : {}),
    };
    return async ({ completion, reference, rollout }) => {
      if (reference === undefined || reference === null) return unscorable("no_reference");
      if (typeof reference !== "string" && typeof reference !== "number")
        return unscorable("invalid_reference", { error: "the reference answer must be text" });
      if (typeof rollout.prompt !== "string") {
        return unscorable("logprob_error", {
          error: "source http needs the prompt as text (render chat prompts with the model's template first)",
        });
      }
      const ref = String(reference);
      const { reasoning, cutFound } = reasoningOf(completion, o.cutMarker);
      const prefix = renderTemplate(o.template, rollout.prompt, reasoning);
      const [withR, withoutR] = await Promise.all([
        fetchReferenceLogprobs(ep, prefix, ref),
        o.debias
          ? fetchReferenceLogprobs(ep, renderTemplate(o.template, rollout.prompt, o.cutMarker ?? ""), ref)
          : undefined,
      ]);
      if ("error" in withR) return unscorable("logprob_error", { error: withR.error });
      if (withoutR && "error" in withoutR)
        return unscorable("logprob_error", { error: `without reasoning: ${withoutR.error}` });
      const bad = logprobProblem(withR.logprobs) ?? (withoutR ? logprobProblem(withoutR.logprobs) : undefined);
      if (bad) return unscorable("logprob_error", { error: bad });
      const details: Record<string, unknown> = {
        tokens: withR.logprobs.length,
        ...traceLength(reasoning, rollout),
        ...(o.cutMarker ? { cutFound } : {}),
      };
      let value = formValue(o.form, withR.logprobs);
      if (withoutR) {
        const base = formValue(o.form, withoutR.logprobs);
        details.withReasoning = value;
        details.withoutReasoning = base;
        value -= base;
      }
      return finish(value, details);
    };
  },
};

/**
 * The likelihood component's group stage, when `filterStd` or `collapsePenalty` asks for one: RLPR's std filter
 * (a group of ≥ 2 scorable rollouts with population std < `filterStd` → every result `group_filtered`) then RLCPR's
 * length regularization (in a collapsed group, per `checkGroup`, each score gets `concentrationPenalty`'s term added).
 * Example: `collapsePenalty: 0.1`, a collapsed group with scores 0.62 ± 0.001 and trace lengths [1000, 2000, 3000,
 * 4000] → the scores lose [0, 0.0333, 0.0667, 0.1].
 */
export function likelihoodGroupStage(o: LikelihoodOptions, self: number): GroupStage<ComponentResult> | undefined {
  const settings = concentrationSettings("likelihood", o)!;
  if (settings.filterStd === undefined && settings.penalty === 0) return undefined;
  return {
    member: (_input, results) => results[self]!,
    score(members) {
      const scorable = members
        .map((r, k) => ({ r, k }))
        .filter(({ r }) => r.score !== null && typeof r.details?.traceLength === "number");
      const out = members.slice();
      const scores = scorable.map(({ r }) => r.score!);
      const lengths = scorable.map(({ r }) => r.details!.traceLength as number);
      const check = checkGroup(scores, lengths, settings);
      if (settings.filterStd !== undefined && check.n >= 2 && check.std < settings.filterStd) {
        for (const { r, k } of scorable)
          out[k] = unscorable("group_filtered", {
            ...r.details,
            filteredScore: r.score,
            groupStd: check.std,
            filterStd: settings.filterStd,
          });
        return out;
      }
      if (settings.penalty > 0 && check.collapsed) {
        const pen = concentrationPenalty(lengths, settings.penalty);
        scorable.forEach(({ r, k }, j) => {
          out[k] = {
            ...r,
            score: r.score! + pen[j]!,
            details: { ...r.details, unpenalizedScore: r.score, collapsePenalty: pen[j], groupStd: check.std },
          };
        });
      }
      return out;
    },
  };
}
