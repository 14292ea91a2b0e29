/**
 * OpenRLHF's remote reward protocol (`--reward.remote_url http://host:port/get_reward`):
 * request `{"query": [str], "prompts": [str], "labels": [str | null]}`, response
 * `{"rewards": [float], "scores": [float], "extra_logs": {name: [float]}}` (`openrlhf/utils/agent.py`).
 * `query` is prompt + response decoded with `skip_special_tokens=False`, so the response is recovered here.
 */
import { createHash, randomUUID } from "node:crypto";
import type { Context } from "hono";
import type { Rollout } from "../core/types.js";
import { promptGroup } from "../io/rollout.js";
import type { ServerContext } from "./context.js";
import { errorResponse, isObject, readJson } from "./http.js";
import { admit, scoringResponse } from "./native.js";
import { scoreRollouts } from "./score.js";
import { noteMissingStep, requestStep } from "./step.js";
import { openrlhfScore } from "./openrlhf-score.js";
import { routedGetReward } from "./routes.js";

/**
 * End-of-turn, end-of-sequence and padding tokens of common chat templates. The response is cut at the first
 * one (generation stops there; anything after is padding). Extend with `--end-token` / `endTokens`.
 */
export const END_TOKENS: readonly string[] = [
  "<|im_end|>", // ChatML: Qwen, Yi, many fine-tunes
  "<|endoftext|>", // GPT-2 / Qwen end of text and padding
  "<|eot_id|>", // Llama 3 end of turn
  "<|eom_id|>", // Llama 3.1 end of message (tool call)
  "<|end_of_text|>", // Llama 3 end of sequence
  "<|finetune_right_pad_id|>", // Llama 3.1 padding
  "</s>", // Llama 2, Mistral
  "<end_of_turn>", // Gemma
  "<eos>", // Gemma end of sequence
  "<|end|>", // Phi-3, gpt-oss
  "<|return|>", // gpt-oss final message
  "<｜end▁of▁sentence｜>", // DeepSeek (full-width bars)
  "<|endofturn|>",
  "<pad>",
  "<|pad|>",
];

/**
 * Assistant headers of common chat templates, written by special tokens: the response of a templated query starts
 * after the last one. Matched without the whitespace a template puts after them (dropped separately).
 */
export const ASSISTANT_HEADERS: readonly string[] = [
  "<|im_start|>assistant", // ChatML: Qwen, Yi, many fine-tunes
  "<|start_header_id|>assistant<|end_header_id|>", // Llama 3
  "<start_of_turn>model", // Gemma
  "<|assistant|>", // Phi-3, Zephyr, GLM
  "<｜Assistant｜>", // DeepSeek V3 / R1 (full-width bars)
  "<|channel|>final<|message|>", // gpt-oss final channel
  "[/INST]", // Llama 2, Mistral: the end of the user turn opens the assistant's
];

/**
 * Plain-text assistant headers (DeepSeek LLM `User: …\n\nAssistant:`, the R1-Zero template `… Assistant:`). A
 * response may well contain this text, so these are used only where no {@link ASSISTANT_HEADERS} header is found.
 */
export const PLAIN_ASSISTANT_HEADERS: readonly string[] = ["Assistant:"];

/**
 * How the response was located in `query`: after the prompt (`prompt`), after the last assistant header following
 * the prompt (`prompt_header`: e.g. `prompts[i]` is the raw question inside the user turn), after the last
 * assistant header of a query without its prompt (`header`), or not at all (`none`: the whole query).
 */
export type StripMethod = "prompt" | "prompt_header" | "header" | "none";

/** End (index just past) of the last assistant header in `text`, special-token headers first; -1 when none. */
export function lastAssistantHeaderEnd(text: string): number {
  for (const tier of [ASSISTANT_HEADERS, PLAIN_ASSISTANT_HEADERS]) {
    let end = -1;
    let best = -1;
    for (const h of tier) {
      const k = text.lastIndexOf(h);
      if (k > best || (k === best && k >= 0 && k + h.length > end)) {
        best = k;
        end = k + h.length;
      }
    }
    if (best >= 0) return end;
  }
  return -1;
}

/** Does `text` end with an assistant header (trailing whitespace aside)? Then it is a chat-templated prompt. */
function endsWithAssistantHeader(text: string): boolean {
  const t = text.trimEnd();
  return [...ASSISTANT_HEADERS, ...PLAIN_ASSISTANT_HEADERS].some((h) => t.endsWith(h));
}

/**
 * The response inside an OpenRLHF `query`.
 * 1. Find the first occurrence of `prompt` in `query` and drop everything up to its end (left padding and a BOS
 *    token before it go with it). If the prompt does not end with an assistant header (it is the raw question,
 *    found inside the user turn) and an assistant header ({@link ASSISTANT_HEADERS}, else
 *    {@link PLAIN_ASSISTANT_HEADERS}) follows it, the response starts after the last such header instead.
 *    If `prompt` is absent or not found, the response starts after the last assistant header of the whole query;
 *    if there is none, the whole `query` is kept. Whitespace right after a header is dropped.
 * 2. Cut at the first end token (`endTokens`, {@link END_TOKENS} by default) and trim trailing whitespace.
 * An empty `response` means the recovery failed: the caller reports it (the server counts and logs it).
 *
 * @example stripQuery("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|><|endoftext|>",
 *   "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n") → { response: "Hello!", method: "prompt" }
 * @example stripQuery("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>", "Hi")
 *   → { response: "Hello!", method: "prompt_header" }
 */
export function stripQuery(
  query: string,
  prompt: string | null | undefined,
  endTokens: readonly string[] = END_TOKENS,
): { response: string; method: StripMethod } {
  let response = query;
  let method: StripMethod = "none";
  const at = prompt ? query.indexOf(prompt) : -1;
  if (at >= 0) {
    response = query.slice(at + prompt!.length);
    method = "prompt";
    if (!endsWithAssistantHeader(prompt!)) {
      const end = lastAssistantHeaderEnd(response);
      if (end >= 0) {
        response = response.slice(end).trimStart();
        method = "prompt_header";
      }
    }
  } else {
    const end = lastAssistantHeaderEnd(query);
    if (end >= 0) {
      response = query.slice(end).trimStart();
      method = "header";
    }
  }
  let cut = response.length;
  for (const t of endTokens) {
    if (!t) continue;
    const k = response.indexOf(t);
    if (k >= 0 && k < cut) cut = k;
  }
  return { response: response.slice(0, cut).trimEnd(), method };
}

/** Milliseconds between two warnings about empty recovered responses (the ones in between are counted, then reported). */
export const EMPTY_WARNING_INTERVAL_MS = 10_000;

/**
 * One stderr line per request with empty recovered responses, at most one per `intervalMs`; the lines skipped in
 * between are counted in the next one. `write` and `now` are injectable for tests.
 */
export function emptyResponseWarner(
  write: (line: string) => void = (l) => process.stderr.write(l),
  now: () => number = Date.now,
  intervalMs = EMPTY_WARNING_INTERVAL_MS,
) {
  let last = -Infinity;
  let skipped = 0;
  return (empty: number, total: number, example: { index: number; method: StripMethod }): void => {
    const t = now();
    if (t - last < intervalMs) {
      skipped++;
      return;
    }
    last = t;
    const more = skipped > 0 ? ` (${skipped} similar request(s) not logged since the last warning)` : "";
    skipped = 0;
    write(
      `rewardkit serve: /get_reward: ${empty} of ${total} responses recovered empty from query (first: query[${example.index}], located by ${example.method}); ` +
        `they score as empty completions. Either the model generated nothing or the chat template is not recognized (its end token: --end-token).${more}\n`,
    );
  };
}

/**
 * An OpenRLHF label as the rollout's reference. verl and OpenRLHF datasets carry structured references (code tests,
 * JSON documents, lists of acceptable answers) as JSON strings, so a string whose trimmed text is a JSON **object**,
 * or a JSON **array with at least one element that is not a number**, is decoded. Anything else is kept as given:
 * other strings (`"42"`, `"\\frac{1}{2}"`, and `"[-2, 7]"`, which in a math answer is an interval, not a list of
 * numbers), and labels that are already JSON values (numbers, lists, objects, sent as such).
 * @example decodeLabel('{"city": "Paris"}') → {city: "Paris"}; decodeLabel('["3", "three"]') → ["3", "three"];
 *   decodeLabel("[-2, 7]") → "[-2, 7]"; decodeLabel("42") → "42"; decodeLabel(42) → 42
 */
export function decodeLabel(label: unknown): unknown {
  if (typeof label !== "string") return label;
  const t = label.trim();
  if (!(t.startsWith("{") && t.endsWith("}")) && !(t.startsWith("[") && t.endsWith("]"))) return label;
  let v: unknown;
  try {
    v = JSON.parse(t);
  } catch {
    return label;
  }
  if (Array.isArray(v)) return v.length > 0 && v.some((x) => typeof x !== "number") ? v : label;
  return v !== null && typeof v === "object" ? v : label;
}

/**
 * The `group_size` query parameter of `/get_reward` (`--reward.remote_url http://host:port/get_reward?group_size=8`:
 * OpenRLHF posts to the URL as given, OpenRLHF/OpenRLHF @3c3be623 `openrlhf/utils/agent.py`).
 * @returns the size, undefined when absent, or the error message for a value that is not a positive integer.
 */
export function urlGroupSize(v: string | undefined): number | undefined | string {
  if (v === undefined || v === "") return undefined;
  const n = /^\d+$/.test(v) ? Number(v) : NaN;
  return Number.isSafeInteger(n) && n >= 1
    ? n
    : `group_size query parameter: expected a positive integer (OpenRLHF's --rollout.n_samples_per_prompt), got ${JSON.stringify(v)}`;
}

/**
 * A `/get_reward` rollout's id: `<first 16 hex of SHA-256 of the query>-<nonce>-<i>`, `nonce` drawn per request.
 * OpenRLHF sends one query per request and no id, and two samples of a prompt often decode to the same query, so the
 * query alone cannot tell them apart at the group barrier; the nonce does. A request OpenRLHF re-sends (its
 * `_post_request` retries up to 5 times on a refused connection, an HTTP error or its 180 s timeout) gets a new
 * nonce: refused and 429/503-refused attempts were never admitted, so the retry counts once; only an attempt that was
 * admitted and then cut (a dropped connection, a client timeout longer than `--group-wait-ms` would allow) counts twice.
 * @example openrlhfRolloutId("q…", "3f9a0c1b2d4e", 0) → "9b1c…(16 hex)-3f9a0c1b2d4e-0"
 */
export function openrlhfRolloutId(query: string, nonce: string, i: number): string {
  return `${createHash("sha256").update(query).digest("hex").slice(0, 16)}-${nonce}-${i}`;
}

/**
 * `POST /get_reward`. Each `query[i]` becomes a rollout: id by {@link openrlhfRolloutId}, group and `prompt_id`
 * from `prompts[i]` (its hash), `group_size` from the URL's `?group_size=` ({@link urlGroupSize}: the server's group
 * barrier then joins a prompt's single-query requests into its whole group), completion the stripped
 * response, `reference` = `labels[i]` decoded by {@link decodeLabel} (null → none), `step` = the body's `step` or the
 * `X-Rewardkit-Step` header. `rewards` is the spec's reward (a null reward, `onUnscorable: exclude`, is sent as
 * 0.0: OpenRLHF needs floats); `scores` a value in [0, 1] by {@link openrlhfScore};
 * `extra_logs` has, per component, its scores (unscorable → 0.0) and `<name>_unscorable` (1.0 / 0.0).
 */
export function getRewardHandler(ctx: ServerContext) {
  const endTokens = [...END_TOKENS, ...ctx.options.endTokens];
  const warn = emptyResponseWarner();
  return async (c: Context): Promise<Response> => {
    const full = admit(ctx, c);
    if (full) return full;
    const body = await readJson(c, ctx.options.maxBodyBytes);
    if ("response" in body) return body.response;
    const b = body.value;
    if (!isObject(b))
      return errorResponse(
        c,
        400,
        "bad_request",
        'request body: expected a JSON object like {"query": [...], "prompts": [...], "labels": [...]}',
      );
    const { query, prompts, labels } = b;
    if (!Array.isArray(query) || !query.every((q) => typeof q === "string"))
      return errorResponse(c, 400, "bad_request", "query: expected an array of strings");
    if (query.length > ctx.options.maxRollouts)
      return errorResponse(
        c,
        413,
        "too_large",
        `query: ${query.length} exceeds the limit of ${ctx.options.maxRollouts} per request`,
      );
    for (const [name, v] of [
      ["prompts", prompts],
      ["labels", labels],
    ] as const) {
      if (v === undefined || v === null) continue;
      if (!Array.isArray(v) || v.length !== query.length)
        return errorResponse(
          c,
          400,
          "bad_request",
          `${name}: expected an array of the same length as query (${query.length})`,
        );
      if (name === "labels") continue; // any JSON: strings, numbers, lists, objects (structured references)
      const bad = v.findIndex((x) => x !== null && typeof x !== "string");
      if (bad >= 0) return errorResponse(c, 400, "bad_request", `${name}[${bad}]: expected a string or null`);
    }
    const step = requestStep(c, b.step);
    if ("error" in step) return errorResponse(c, 400, "bad_request", step.error);
    const size = urlGroupSize(c.req.query("group_size"));
    if (typeof size === "string") return errorResponse(c, 400, "bad_request", size);
    const nonce = randomUUID().replace(/-/g, "").slice(0, 12);
    const ps = (prompts ?? []) as Array<string | null>;
    const ls = (labels ?? []) as unknown[];
    const rollouts: Rollout[] = [];
    const empty: Array<{ index: number; method: StripMethod }> = [];
    query.forEach((q, i) => {
      const prompt = ps[i] ?? undefined;
      const { response, method } = stripQuery(q, prompt, endTokens);
      if (method === "header" || method === "none") ctx.metrics.promptNotFound.inc({ located_by: method });
      if (response === "") {
        // a recovery failure, never silent: counted here, logged (rate-limited) once the request is admitted
        ctx.metrics.emptyResponse.inc({ located_by: method });
        empty.push({ index: i, method });
      }
      const r: Rollout = { id: openrlhfRolloutId(q, nonce, i), group: promptGroup(prompt ?? ""), completion: response };
      if (prompt !== undefined) r.prompt = prompt;
      r.prompt_id = r.group;
      if (size !== undefined) r.group_size = size;
      const label = decodeLabel(ls[i]);
      if (label !== undefined && label !== null) r.reference = label;
      if (step.step !== undefined) r.step = step.step;
      rollouts.push(r);
    });
    const refused = admit(ctx, c, rollouts.length);
    if (refused) return refused;
    if (empty.length > 0) warn(empty.length, rollouts.length, empty[0]!);
    if (step.step === undefined) noteMissingStep(ctx, "/get_reward", rollouts.length, rollouts.length);
    return scoringResponse(ctx, c, async (onHold) => {
      if (ctx.routed) return routedGetReward(ctx, c, rollouts, onHold);
      const batch = await scoreRollouts(ctx, rollouts, () => ctx.admission.release(rollouts.length), onHold);
      const refused = batch.problems.findIndex((p) => p !== undefined);
      if (refused >= 0)
        process.stderr.write(
          `rewardkit serve: /get_reward: query ${refused} was refused by the group barrier (${batch.problems[refused]}); sent reward 0.0\n`,
        );
      const rewards = batch.scores.map((s) => s.reward ?? 0);
      const extra: Record<string, number[]> = {};
      ctx.spec.components.forEach((comp, k) => {
        extra[comp.name] = batch.scores.map((s) => s.results[k]!.score ?? 0);
        extra[`${comp.name}_unscorable`] = batch.scores.map((s) => (s.results[k]!.score === null ? 1 : 0));
      });
      const scoreOf = openrlhfScore(ctx.spec);
      return c.json({ rewards, scores: batch.scores.map((s) => scoreOf(s.results, s.reward)), extra_logs: extra });
    });
  };
}
