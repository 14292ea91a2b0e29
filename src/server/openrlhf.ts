/**
 * OpenRLHF's remote reward protocol (`--reward.remote_url http://host:port/get_reward`):
 * request `{"query": [str], "prompts": [str], "labels": [str | null]}`, response
 * `{"rewards": [float], "scores": [float], "extra_logs": {name: [float]}}` (`openrlhf/utils/agent.py`).
 * `query` is prompt + response decoded with `skip_special_tokens=False`, so the response is recovered here.
 */
import type { Context } from "hono";
import type { Rollout } from "../core/types.js";
import { promptGroup } from "../io/rollout.js";
import type { ServerContext } from "./context.js";
import { errorResponse, isObject, readJson } from "./http.js";
import { admit } from "./native.js";
import { scoreRollouts } from "./score.js";

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

/** Assistant headers, tried when `query` does not contain its prompt: the response starts after the last one. */
export const ASSISTANT_HEADERS: readonly string[] = [
  "<|im_start|>assistant\n",
  "<|start_header_id|>assistant<|end_header_id|>\n\n",
  "<start_of_turn>model\n",
  "<|assistant|>\n",
  "<｜Assistant｜>",
  "[/INST]",
];

/** How the response was located in `query`. */
export type StripMethod = "prompt" | "header" | "none";

/**
 * The response inside an OpenRLHF `query`.
 * 1. Drop everything up to the end of the first occurrence of `prompt` in `query` (left padding and a BOS token
 *    before it are dropped with it). If `prompt` is absent or not found, drop everything up to the end of the last
 *    assistant header ({@link ASSISTANT_HEADERS}); if none is found, keep the whole `query`.
 * 2. Cut at the first end token (`endTokens`, {@link END_TOKENS} by default) and trim trailing whitespace.
 *
 * @example stripQuery("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|><|endoftext|>",
 *   "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n") → { response: "Hello!", method: "prompt" }
 */
export function stripQuery(query: string, prompt: string | null | undefined, endTokens: readonly string[] = END_TOKENS): { response: string; method: StripMethod } {
  let response = query;
  let method: StripMethod = "none";
  const at = prompt ? query.indexOf(prompt) : -1;
  if (at >= 0) {
    response = query.slice(at + prompt!.length);
    method = "prompt";
  } else {
    let best = -1;
    let len = 0;
    for (const h of ASSISTANT_HEADERS) {
      const k = query.lastIndexOf(h);
      if (k > best) {
        best = k;
        len = h.length;
      }
    }
    if (best >= 0) {
      response = query.slice(best + len);
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

/**
 * `POST /get_reward`. Each `query[i]` becomes a rollout: id `i`, group from `prompts[i]`, completion the stripped
 * response, `reference` = `labels[i]` as given (a string; null → none). `rewards` and `scores` are both the
 * spec's reward (a null reward, `onUnscorable: exclude`, is sent as 0.0: OpenRLHF needs floats);
 * `extra_logs` has, per component, its scores (unscorable → 0.0) and `<name>_unscorable` (1.0 / 0.0).
 */
export function getRewardHandler(ctx: ServerContext) {
  const endTokens = [...END_TOKENS, ...ctx.options.endTokens];
  return async (c: Context): Promise<Response> => {
    const full = admit(ctx, c);
    if (full) return full;
    const body = await readJson(c, ctx.options.maxBodyBytes);
    if ("response" in body) return body.response;
    const b = body.value;
    if (!isObject(b)) return errorResponse(c, 400, "bad_request", 'request body: expected a JSON object like {"query": [...], "prompts": [...], "labels": [...]}');
    const { query, prompts, labels } = b;
    if (!Array.isArray(query) || !query.every((q) => typeof q === "string")) return errorResponse(c, 400, "bad_request", "query: expected an array of strings");
    if (query.length > ctx.options.maxRollouts) return errorResponse(c, 413, "too_large", `query: ${query.length} exceeds the limit of ${ctx.options.maxRollouts} per request`);
    for (const [name, v] of [["prompts", prompts], ["labels", labels]] as const) {
      if (v === undefined || v === null) continue;
      if (!Array.isArray(v) || v.length !== query.length) return errorResponse(c, 400, "bad_request", `${name}: expected an array of the same length as query (${query.length})`);
      const bad = v.findIndex((x) => x !== null && typeof x !== "string");
      if (bad >= 0) return errorResponse(c, 400, "bad_request", `${name}[${bad}]: expected a string or null`);
    }
    const ps = (prompts ?? []) as Array<string | null>;
    const ls = (labels ?? []) as Array<string | null>;
    const rollouts: Rollout[] = (query as string[]).map((q, i) => {
      const prompt = ps[i] ?? undefined;
      const { response, method } = stripQuery(q, prompt, endTokens);
      if (method !== "prompt") ctx.metrics.promptNotFound.inc({ located_by: method });
      const r: Rollout = { id: String(i), group: promptGroup(prompt ?? ""), completion: response };
      if (prompt !== undefined) r.prompt = prompt;
      const label = ls[i];
      if (label !== undefined && label !== null) r.reference = label;
      return r;
    });
    const refused = admit(ctx, c, rollouts.length);
    if (refused) return refused;
    const batch = await scoreRollouts(ctx, rollouts, () => ctx.admission.release(rollouts.length));
    const rewards = batch.scores.map((s) => s.reward ?? 0);
    const extra: Record<string, number[]> = {};
    ctx.spec.components.forEach((comp, k) => {
      extra[comp.name] = batch.scores.map((s) => s.results[k]!.score ?? 0);
      extra[`${comp.name}_unscorable`] = batch.scores.map((s) => (s.results[k]!.score === null ? 1 : 0));
    });
    return c.json({ rewards, scores: rewards, extra_logs: extra });
  };
}
