import { z } from "zod";
import { unscorable } from "../../core/types.js";
import type { ComponentResult, Rollout } from "../../core/types.js";
import type { VerifierDefinition, VerifyFn } from "../types.js";
import { clip } from "../likelihood/forms.js";
import { endpointOptions, fetchLogprobs, logprobEndpoint, requireEndpoint } from "./teacher.js";
import { alignedLogprobs, denseResult, noNegZero, summarize } from "./tokens.js";

const options = z
  .strictObject({
    /** `rollout` (default): `teacher_logprobs` from the rollout; `http`: fetched from the teacher at `baseUrl`. */
    source: z.enum(["rollout", "http"]).default("rollout"),
    /** How the token rewards become the score: `mean` (default) or `sum` (see docs/dense.md on padding). */
    score: z.enum(["mean", "sum"]).default("mean"),
    /**
     * Clip each token reward to [−clip, clip] (verl's `distillation_loss.loss_max_clamp`); none by default. The
     * score is the summary of the clipped rewards.
     */
    clip: z.number().positive().optional(),
    /** The teacher (source `http`): `baseUrl`, `model`, `api`, `extraBody` and the client limits of `judge`. */
    ...endpointOptions,
  })
  .superRefine(requireEndpoint);
export type DistillOptions = z.infer<typeof options>;

/**
 * Per-token on-policy distillation rewards: r_t = −(log π_s(y_t | x, y_<t) − log π_t(y_t | x, y_<t)), the negative
 * single-sample reverse-KL estimate at the student's own sampled token (natural-log units, range (−∞, ∞); 0 where
 * the two models agree). Clipped to [−c, c] when `c` is given.
 * Example: student [−1, −2, −0.5], teacher [−0.5, −3, −0.5] → [0.5, −1, 0].
 * @param student shape [T]; @param teacher shape [T], same T.
 */
export function distillTokenRewards(student: readonly number[], teacher: readonly number[], c?: number): number[] {
  return student.map((ls, t) => {
    const r = -(ls - teacher[t]!);
    return noNegZero(c === undefined ? r : clip(r, -c, c));
  });
}

/** The result of one rollout from its two aligned log-prob arrays. */
function result(student: number[], teacher: number[], o: DistillOptions): ComponentResult {
  const rewards = distillTokenRewards(student, teacher, o.clip);
  return denseResult(
    summarize(rewards, o.score),
    {
      tokens: rewards.length,
      // the sampled reverse-KL estimate per token, before clipping: what the reward pushes toward 0
      reverse_kl: summarize(
        student.map((ls, t) => ls - teacher[t]!),
        "mean",
      ),
      ...(o.clip !== undefined ? { clipped: rewards.filter((x) => Math.abs(x) === o.clip).length } : {}),
    },
    "token_rewards",
    rewards,
  );
}

function fromRollout(rollout: Rollout, teacher: unknown, o: DistillOptions): ComponentResult {
  const lp = alignedLogprobs(rollout, [
    ["student_logprobs", rollout.student_logprobs],
    ["teacher_logprobs", teacher],
  ]);
  return Array.isArray(lp) ? result(lp[0]!, lp[1]!, o) : lp;
}

/**
 * `distill`: on-policy distillation as a reward. The student samples, the teacher scores the student's tokens, and
 * each token is rewarded by how much more likely the teacher finds it than the student does (`token_rewards`, one per
 * `completion_ids` token); the score is their mean (option `sum`). Mixed with verifiable components through the
 * spec's aggregation like any component; per-token advantages through `advantage.tokens` (docs/dense.md).
 *
 * Reads `student_logprobs` and `teacher_logprobs` (or fetches the teacher's from an OpenAI-compatible / vLLM endpoint
 * with `prompt_ids` + `completion_ids`, see `teacher.ts`). Missing or malformed log-probs: `unscorable`
 * (`logprob_error`); arrays that do not line up with each other or with `completion_ids`: `length_mismatch`. Never 0,
 * never truncated.
 *
 * Sources: Agarwal et al. 2024, *On-Policy Distillation of Language Models: Learning from Self-Generated Mistakes*
 * (GKD, ICLR 2024: the student learns on its own samples); Thinking Machines, *On-Policy Distillation* (2025: the
 * per-token reward −(log π_s − log π_t) with the RL machinery); verl `distillation_loss` with `use_policy_gradient`
 * (`advantages = −kl_penalty(student, teacher, "k1")`, clamped by `loss_max_clamp`), reproduced to 1e-12 in
 * `test/dense-peers.test.ts`.
 */
export const distillVerifier: VerifierDefinition<DistillOptions> = {
  type: "distill",
  summary:
    "on-policy distillation: token_rewards −(log π_student − log π_teacher) per completion token (rollout or a vLLM teacher), score their mean or sum",
  options,
  isolation: "inline", // arithmetic, or an awaited HTTP call under the client's own deadlines
  abortable: true,
  defaultPassThreshold: 0,
  defaultTimeoutMs: 120_000,
  reads: ["student_logprobs", "teacher_logprobs", "completion_ids", "prompt_ids"],
  // from the rollout the score costs less than its cache key; over HTTP it depends on the served teacher
  cacheable: false,
  create(o) {
    if (o.source === "rollout") return ({ rollout }) => fromRollout(rollout, rollout.teacher_logprobs, o);
    const { ep, client } = logprobEndpoint("distill", o);
    const fn: VerifyFn = async ({ rollout, signal }) => {
      const ids = rollout.completion_ids;
      const prompt = rollout.prompt_ids;
      if (!Array.isArray(ids) || !Array.isArray(prompt))
        return unscorable("missing_field", {
          field: Array.isArray(ids) ? "prompt_ids" : "completion_ids",
          error: "source http sends prompt_ids + completion_ids to the teacher",
        });
      if (ids.length === 0) return unscorable("no_completion");
      const got = await fetchLogprobs(client, ep, prompt, ids, signal);
      if ("error" in got) return unscorable("logprob_error", { field: "teacher_logprobs", error: got.error });
      return fromRollout(rollout, got.logprobs, o);
    };
    fn.usage = () => client.stats();
    return fn;
  },
};
