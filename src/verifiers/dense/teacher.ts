/**
 * Teacher log-probs of a student's completion tokens from an OpenAI-compatible completions endpoint, through the
 * project's HTTP model client (`src/client/`: concurrency, retries, deadline, response cache, usage).
 *
 * The prompt sent is the token ids `prompt_ids ++ completion_ids` (vLLM and SGLang accept a list of ids as `prompt`),
 * so the teacher scores exactly the student's tokens: no re-tokenization, no text alignment. Two shapes:
 * - `prompt_logprobs` (vLLM): `{prompt: ids, max_tokens: 1, prompt_logprobs: 0}`; `choices[0].prompt_logprobs[j]` is
 *   `{"<token id>": {logprob, …}, …}` for prompt position j (null at j = 0). The log-prob of position P + t is read
 *   under the key of completion token t itself, so a server that answered for other tokens is caught.
 * - `echo` (legacy OpenAI): `{prompt: ids, max_tokens: 0, echo: true, logprobs: 0}`;
 *   `choices[0].logprobs.token_logprobs` holds the prompt's log-probs (then `usage.completion_tokens` generated ones).
 */
import type { ModelClient } from "../../client/client.js";
import type { Extracted } from "../../client/types.js";
import { parseEcho } from "../likelihood/http.js";

/** Where the teacher is and how to ask it. */
export interface TeacherEndpoint {
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
 * own token id. @param total the prompt's token count (prompt_ids + completion_ids).
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
  if (bad >= 0) return { error: `completion token ${bad} has no log-prob` };
  return { value: tail as number[] };
}

/**
 * Fetches the teacher's log-prob of each completion token. Never throws.
 * @returns one log-prob per `completionIds` entry, or why not.
 */
export async function fetchTeacherLogprobs(
  client: ModelClient,
  ep: TeacherEndpoint,
  promptIds: readonly number[],
  completionIds: readonly number[],
  signal?: AbortSignal,
): Promise<{ logprobs: number[] } | { error: string }> {
  const prompt = [...promptIds, ...completionIds];
  const shape =
    ep.api === "prompt_logprobs" ? { max_tokens: 1, prompt_logprobs: 0 } : { max_tokens: 0, echo: true, logprobs: 0 };
  const body = { ...(ep.extraBody ?? {}), model: ep.model, prompt, temperature: 0, ...shape };
  const r = await client.call(ep.url, body, {
    extract: (json) =>
      ep.api === "prompt_logprobs"
        ? readPromptLogprobs(json, completionIds, prompt.length)
        : readEchoLogprobs(json, completionIds.length, prompt.length),
    estimateTokens: prompt.length + 1,
    ...(signal ? { signal } : {}),
  });
  return r.ok ? { logprobs: r.value } : { error: client.redact(r.error) };
}
