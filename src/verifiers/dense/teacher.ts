/**
 * Log-probs of given token ids from an OpenAI-compatible completions endpoint, through the project's HTTP model
 * client (`src/client/`: concurrency, retries, deadline, response cache, usage): the teacher of `distill`, the policy
 * scoring the gold answer of `info-gain`.
 *
 * The prompt sent is token ids `context ++ target` (vLLM and SGLang accept a list of ids as `prompt`) and the
 * log-probs of the last `target.length` prompt positions are read back, so the endpoint scores exactly the given
 * tokens: no re-tokenization, no text alignment. Two shapes:
 * - `prompt_logprobs` (vLLM): `{prompt: ids, max_tokens: 1, prompt_logprobs: 0}`; `choices[0].prompt_logprobs[j]` is
 *   `{"<token id>": {logprob, …}, …}` for prompt position j (null at j = 0). The log-prob of position C + t is read
 *   under the key of target token t itself, so a server that answered for other tokens is caught.
 * - `echo` (legacy OpenAI): `{prompt: ids, max_tokens: 0, echo: true, logprobs: 0}`;
 *   `choices[0].logprobs.token_logprobs` holds the prompt's log-probs (then `usage.completion_tokens` generated ones).
 */
import { z } from "zod";
import type { ModelClient } from "../../client/client.js";
import type { Extracted } from "../../client/types.js";
import { clientOptions, modelClientFor } from "../judge/options.js";
import type { ClientLimits } from "../judge/options.js";
import { parseEcho } from "../likelihood/http.js";

/**
 * The options of a log-prob endpoint (`source: http`), shared by `distill` and `info-gain`: the API root, the model,
 * the request shape, extra request fields and the model client's limits (those of `judge`).
 */
export const endpointOptions = {
  /** API root (`http://127.0.0.1:8000/v1`); `/completions` is appended unless present (source `http`). */
  baseUrl: z.url().optional(),
  /** Model name (source `http`). */
  model: z.string().min(1).optional(),
  /** `prompt_logprobs` (vLLM, default) or `echo` (legacy OpenAI completions). */
  api: z.enum(["prompt_logprobs", "echo"]).default("prompt_logprobs"),
  /** Extra request fields sent to the endpoint (cannot replace `model`, `prompt` or the log-prob fields). */
  extraBody: z.record(z.string(), z.unknown()).optional(),
  ...clientOptions,
};

/** The parsed options of {@link endpointOptions}, with the component's `source`. */
export type EndpointOptions = ClientLimits & {
  source: "rollout" | "http";
  baseUrl?: string | undefined;
  model?: string | undefined;
  api: "prompt_logprobs" | "echo";
  extraBody?: Record<string, unknown> | undefined;
};

/** `superRefine` of a schema with {@link endpointOptions}: `baseUrl` and `model` are required for source `http`. */
export function requireEndpoint(o: Pick<EndpointOptions, "source" | "baseUrl" | "model">, ctx: z.RefinementCtx): void {
  if (o.source !== "http") return;
  if (!o.baseUrl) ctx.addIssue({ code: "custom", path: ["baseUrl"], message: "required when source is http" });
  if (!o.model) ctx.addIssue({ code: "custom", path: ["model"], message: "required when source is http" });
}

/**
 * The endpoint and its model client of a component with source `http` (options checked by {@link requireEndpoint}).
 * @param type the component type, for the client's error messages.
 * @throws UserError when `apiKeyEnv` names a variable that is not set.
 */
export function logprobEndpoint(type: string, o: EndpointOptions): { ep: LogprobEndpoint; client: ModelClient } {
  const base = o.baseUrl!.replace(/\/+$/, "");
  const ep: LogprobEndpoint = {
    url: base.endsWith("/completions") ? base : `${base}/completions`,
    model: o.model!,
    api: o.api,
    ...(o.extraBody ? { extraBody: o.extraBody } : {}),
  };
  return { ep, client: modelClientFor(type, o, o.cache ? o.cacheSize : 0, `${base} ${o.model}`) };
}

/** Where the endpoint is and how to ask it. */
export interface LogprobEndpoint {
  /** Full URL of the completions route (`…/v1/completions`). */
  url: string;
  model: string;
  api: "prompt_logprobs" | "echo";
  /** Extra request fields (e.g. `{"add_special_tokens": false}`). */
  extraBody?: Record<string, unknown>;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * Reads the log-probs of the last `ids.length` prompt tokens from a vLLM `prompt_logprobs` answer, each under its
 * own token id. @param total the prompt's token count (context + target).
 */
export function readPromptLogprobs(body: unknown, ids: readonly number[], total: number): Extracted<number[]> {
  const choice: unknown = isRecord(body) && Array.isArray(body.choices) ? (body.choices as unknown[])[0] : undefined;
  const pl = isRecord(choice) ? choice.prompt_logprobs : undefined;
  if (!Array.isArray(pl)) return { error: "response has no choices[0].prompt_logprobs (is the server vLLM?)" };
  if (pl.length !== total) return { error: `prompt_logprobs has ${pl.length} entries for a prompt of ${total} tokens` };
  const out: number[] = [];
  for (let t = 0; t < ids.length; t++) {
    const j = total - ids.length + t;
    const entry: unknown = pl[j];
    const hit = isRecord(entry) ? entry[String(ids[t])] : undefined;
    const lp = isRecord(hit) ? hit.logprob : undefined;
    if (typeof lp !== "number") return { error: `prompt_logprobs[${j}] has no log-prob for token id ${ids[t]}` };
    out.push(lp);
  }
  return { value: out };
}

/** Reads the last `n` prompt-token log-probs from a legacy `echo` answer. */
export function readEchoLogprobs(body: unknown, n: number, total: number): Extracted<number[]> {
  const parsed = parseEcho(body);
  if ("error" in parsed) return parsed;
  if (parsed.logprobs.length !== total)
    return { error: `echo returned ${parsed.logprobs.length} prompt log-probs for a prompt of ${total} tokens` };
  const tail = parsed.logprobs.slice(total - n);
  const bad = tail.findIndex((x) => typeof x !== "number");
  if (bad >= 0) return { error: `token_logprobs[${total - n + bad}] (scored token ${bad}) has no log-prob` };
  return { value: tail as number[] };
}

/**
 * Fetches the endpoint's log-prob of each `target` token after `context` (the prompt sent is `context ++ target`).
 * Never throws.
 * @returns one log-prob per `target` entry, or why not.
 */
export async function fetchLogprobs(
  client: ModelClient,
  ep: LogprobEndpoint,
  context: readonly number[],
  target: readonly number[],
  signal?: AbortSignal,
): Promise<{ logprobs: number[] } | { error: string }> {
  const prompt = [...context, ...target];
  const shape =
    ep.api === "prompt_logprobs" ? { max_tokens: 1, prompt_logprobs: 0 } : { max_tokens: 0, echo: true, logprobs: 0 };
  const body = { ...(ep.extraBody ?? {}), model: ep.model, prompt, temperature: 0, ...shape };
  const r = await client.call(ep.url, body, {
    extract: (json) =>
      ep.api === "prompt_logprobs"
        ? readPromptLogprobs(json, target, prompt.length)
        : readEchoLogprobs(json, target.length, prompt.length),
    estimateTokens: prompt.length + 1,
    ...(signal ? { signal } : {}),
  });
  return r.ok ? { logprobs: r.value } : { error: client.redact(r.error) };
}
