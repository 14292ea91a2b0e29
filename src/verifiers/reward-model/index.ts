import { createHash } from "node:crypto";
import { z } from "zod";
import { BoundedCache } from "../../core/cache.js";
import { ok, unscorable } from "../../core/types.js";
import type { ComponentResult } from "../../core/types.js";
import { completionText } from "../../core/completion.js";
import type { VerifierDefinition, VerifyFn } from "../types.js";
import { clientOptions, modelClientFor } from "../judge/options.js";
import { asText, promptText, render, templateVariables, unknownVariable } from "../judge/template.js";
import { RM_API_NAMES, RM_APIS } from "./apis.js";
import type { RmItem } from "./apis.js";
import { MicroBatcher } from "./batcher.js";

const options = z
  .strictObject({
    /** Which HTTP API the server speaks (see `apis.ts`). */
    api: z.enum(RM_API_NAMES),
    /** Server root, e.g. `http://127.0.0.1:8000` (vLLM) or `http://127.0.0.1:8080` (TEI); the API's route is appended. */
    baseUrl: z.url(),
    /** Model name sent with each request (vLLM); TEI and OpenRLHF ignore it. */
    model: z.string().min(1).default("default"),
    /** Text scored, client-side: variables as in the judge's templates (default `{{prompt}}{{completion}}`, `{{completion}}` for vllm-score / tei-rerank). */
    template: z.string().min(1).optional(),
    /** `server`: send the conversation (`messages`: prompt as user, completion as assistant) and let the server apply the model's chat template (vllm-pooling, vllm-classify). */
    chatTemplate: z.enum(["client", "server"]).default("client"),
    /** `none` (default): the raw score; `sigmoid`: 1/(1 + e^−s); `standardize`: (s − mean)/std with the given statistics. */
    normalize: z.enum(["none", "sigmoid", "standardize"]).default("none"),
    /** Raw-score mean for `standardize` (from a calibration run: the summary's mean of this component with normalize none). */
    mean: z.number().finite().optional(),
    /** Raw-score standard deviation for `standardize` (> 0). */
    std: z.number().positive().optional(),
    /** Clip the final score to [lo, hi]. */
    clip: z.tuple([z.number(), z.number()]).optional(),
    /** Class whose probability / value is the score for multi-class heads (default: 0 of one, 1 of two). */
    classIndex: z.number().int().min(0).optional(),
    /** TEI label whose score is the score when the head has several. */
    label: z.string().min(1).optional(),
    /** Rollouts per request at most (default 32). */
    batchSize: z.number().int().min(1).max(1024).default(32),
    /** How long a batch waits for more rollouts, milliseconds (default 5). */
    batchWaitMs: z.number().int().min(0).max(10_000).default(5),
    ...clientOptions,
  })
  .superRefine((o, ctx) => {
    if (o.normalize === "standardize" && (o.mean === undefined || o.std === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: ["normalize"],
        message:
          "standardize needs mean and std (the raw scores' statistics from a calibration run; see docs/judges.md)",
      });
    }
    if (o.clip && o.clip[0] > o.clip[1])
      ctx.addIssue({ code: "custom", path: ["clip"], message: "clip: lo must be <= hi" });
    if (o.chatTemplate === "server" && o.api !== "vllm-pooling" && o.api !== "vllm-classify")
      ctx.addIssue({
        code: "custom",
        path: ["chatTemplate"],
        message: `${o.api} takes text: apply the chat template client-side with template`,
      });
    if (o.chatTemplate === "server" && o.template !== undefined)
      ctx.addIssue({
        code: "custom",
        path: ["template"],
        message: "chatTemplate: server sends the conversation; template is for client-side text",
      });
    for (const v of o.template ? templateVariables(o.template) : []) {
      const why = unknownVariable(v);
      if (why) ctx.addIssue({ code: "custom", path: ["template"], message: why });
    }
  });
export type RewardModelOptions = z.infer<typeof options>;

/** The final score from a raw one: normalization, then clipping. Example: sigmoid of 0 → 0.5; standardize 3 with mean 1, std 2 → 1. */
export function normalizeScore(
  raw: number,
  o: Pick<RewardModelOptions, "normalize" | "mean" | "std" | "clip">,
): number {
  let s = raw;
  if (o.normalize === "sigmoid") s = 1 / (1 + Math.exp(-raw));
  else if (o.normalize === "standardize") s = (raw - o.mean!) / o.std!;
  if (o.clip) s = Math.min(o.clip[1], Math.max(o.clip[0], s));
  return s;
}

type RawResult = { raw: number } | { error: string; status?: number };

/**
 * `reward-model`: a discriminative reward model (sequence classifier, reward head, cross-encoder) served over HTTP
 * by vLLM (`/pooling`, `/classify`, `/score`), text-embeddings-inference (`/predict`, `/rerank`) or an OpenRLHF
 * remote RM (`/get_reward`). Concurrent rollouts are batched into one request (`batchSize`, `batchWaitMs`); each
 * rollout's raw score is kept in `details.raw`, the score is the raw one normalized (`none`, `sigmoid`,
 * `standardize` with fixed statistics) and clipped. A failed call, a malformed answer or a non-finite score is
 * `unscorable` (`judge_error`), never 0. Per-rollout cache keyed by the scored text; accounting in `usage()`.
 * Peers: verl DisRM (`reward_loop/reward_model.py`), OpenRLHF `--reward.remote_url`, slime `remote_rm`.
 */
export const rewardModelVerifier: VerifierDefinition<RewardModelOptions> = {
  type: "reward-model",
  summary:
    "discriminative reward model over HTTP (vLLM pooling/classify/score, TEI predict/rerank, OpenRLHF get_reward)",
  options,
  isolation: "inline",
  abortable: true,
  defaultPassThreshold: 0.5,
  defaultTimeoutMs: 120_000,
  reads: ["prompt", "metadata"],
  cacheable: false, // the per-rollout cache below is keyed by what is sent
  create(o) {
    const api = RM_APIS[o.api]!;
    const client = modelClientFor("reward-model", o, 0, `${o.baseUrl} ${o.model}`); // batches differ run to run: rollouts are cached one by one instead
    const url = o.baseUrl.replace(/\/+$/, "") + api.path;
    const template =
      o.template ?? (o.api === "vllm-score" || o.api === "tei-rerank" ? "{{completion}}" : "{{prompt}}{{completion}}");
    const cache = new BoundedCache<number>(o.cache ? o.cacheSize : 0);
    const pending = new Map<string, Promise<RawResult>>();
    const apiOptions = {
      model: o.model,
      ...(o.classIndex !== undefined ? { classIndex: o.classIndex } : {}),
      ...(o.label !== undefined ? { label: o.label } : {}),
    };

    const batcher = new MicroBatcher<RmItem, RawResult>(
      (items) => Math.min(o.batchSize, api.maxBatch(items)),
      o.batchWaitMs,
      async (items) => {
        const chars = items.reduce(
          (s, i) => s + i.text.length + (i.messages ? i.messages.reduce((a, m) => a + m.content.length, 0) : 0),
          0,
        );
        const r = await client.call(url, api.body(items, apiOptions), {
          extract: (json) => api.scores(json, items.length, apiOptions),
          estimateTokens: Math.ceil(chars / 4),
          cache: false,
        });
        if (!r.ok)
          return items.map(() => ({
            error: client.redact(r.error),
            ...(r.status !== undefined ? { status: r.status } : {}),
          }));
        return r.value.map((raw) => ({ raw }));
      },
    );

    const fn: VerifyFn = async ({ completion, reference, rollout }): Promise<ComponentResult> => {
      const prompt = promptText(rollout.prompt);
      let item: RmItem;
      if (o.chatTemplate === "server") {
        const turns =
          typeof rollout.prompt === "object" && Array.isArray(rollout.prompt)
            ? rollout.prompt.map((m) => ({ role: m.role, content: asText(m.content) }))
            : prompt !== undefined
              ? [{ role: "user", content: prompt }]
              : [];
        const answer = Array.isArray(rollout.completion)
          ? rollout.completion.map((m) => ({ role: m.role, content: asText(m.content) }))
          : [{ role: "assistant", content: completionText(rollout.completion) }];
        item = { text: "", query: prompt ?? "", messages: [...turns, ...answer] };
      } else {
        const r = render(
          template,
          {
            prompt,
            completion,
            reference: reference === undefined || reference === null ? undefined : asText(reference),
          },
          rollout,
        );
        if ("missing" in r)
          return unscorable(
            r.missing === "reference" || r.missing.startsWith("item") ? "no_reference" : "judge_error",
            { error: `the template's {{${r.missing}}} has no value in this rollout` },
          );
        item = { text: r.text, query: prompt ?? "" };
      }
      const key = createHash("sha256").update(JSON.stringify(item)).digest("base64");
      let res: RawResult | undefined;
      const hit = cache.get(key);
      if (hit !== undefined) {
        client.countCacheHit();
        res = { raw: hit };
      } else {
        let p = pending.get(key);
        if (p) client.countCacheHit();
        else {
          p = batcher.add(item, api.batchKey?.(item) ?? "").then((x) => {
            pending.delete(key);
            if ("raw" in x) cache.set(key, x.raw);
            return x;
          });
          pending.set(key, p);
        }
        res = await p;
      }
      if ("error" in res)
        return unscorable("judge_error", {
          error: res.error,
          ...(res.status !== undefined ? { status: res.status } : {}),
        });
      const score = normalizeScore(res.raw, o);
      if (!Number.isFinite(score))
        return unscorable("judge_error", { error: `score ${score} is not finite`, raw: res.raw });
      return ok(score, undefined, { raw: res.raw });
    };
    fn.usage = () => client.stats();
    return fn;
  },
};
