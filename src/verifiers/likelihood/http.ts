/**
 * Teacher-forced log-probs of a reference answer from an OpenAI-compatible completions endpoint (vLLM, SGLang,
 * TGI's OpenAI route, llama.cpp server). Two request shapes:
 *
 * - `prompt_logprobs` (vLLM extension): `{prompt, max_tokens: 1, prompt_logprobs: 0}`; the response's
 *   `choices[0].prompt_logprobs` is one entry per prompt token: `null` for the first token, else
 *   `{ "<token id>": {logprob, rank, decoded_token} }` with the prompt token itself as the first key.
 * - `echo` (legacy OpenAI): `{prompt, max_tokens: 0, echo: true, logprobs: 1}`; `choices[0].logprobs` holds
 *   `tokens` and `token_logprobs` for the prompt followed by any generated tokens (`usage.completion_tokens`
 *   of them, dropped).
 *
 * The prompt sent is `prefix + reference`. The reference span is the shortest run of tokens at the end of the
 * prompt whose decoded texts cover the reference's characters; a token straddling the prefix/reference boundary
 * is included (it carries the reference's first characters). The decoded span must end with the reference text,
 * otherwise the tokenizer's view does not match ours and no score is given.
 */

/** Where and how to fetch log-probs. */
export interface LogprobEndpoint {
  /** Full URL of the completions route, e.g. `http://127.0.0.1:8000/v1/completions`. */
  url: string;
  model: string;
  api: "prompt_logprobs" | "echo";
  /** Request deadline, milliseconds; the request is aborted past it. */
  timeoutMs: number;
  /** `max_tokens` sent (default: 1 for `prompt_logprobs`, 0 for `echo`). */
  maxTokens?: number;
  /** Bearer token, when the server wants one. */
  apiKey?: string;
}

/** Log-probs of the reference span, or why they could not be had. */
export type FetchResult = { logprobs: number[]; tokens: string[] } | { error: string };

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * Selects the reference span from the end of the prompt's tokens.
 * @param texts decoded text per prompt token, shape [N].
 * @param logprobs log-prob per prompt token (null where the server gives none), shape [N].
 */
export function referenceSpan(
  texts: readonly string[],
  logprobs: readonly (number | null)[],
  reference: string,
): FetchResult {
  if (reference.length === 0) return { error: "empty reference" };
  let covered = 0;
  let i = texts.length;
  while (covered < reference.length && i > 0) covered += texts[--i]!.length;
  if (covered < reference.length)
    return { error: `the prompt's ${texts.length} tokens cover fewer characters than the reference` };
  const tokens = texts.slice(i);
  if (!tokens.join("").endsWith(reference))
    return {
      error: `decoded span ${JSON.stringify(tokens.join(""))} does not end with the reference (tokenizer mismatch)`,
    };
  const lps = logprobs.slice(i);
  const bad = lps.findIndex((x) => typeof x !== "number" || !Number.isFinite(x));
  if (bad >= 0) return { error: `reference token ${bad} (${JSON.stringify(tokens[bad])}) has no log-prob` };
  return { logprobs: lps as number[], tokens };
}

/** Parses a vLLM `prompt_logprobs` response into per-token texts and log-probs. */
export function parsePromptLogprobs(
  body: unknown,
): { texts: string[]; logprobs: (number | null)[] } | { error: string } {
  const choice: unknown = isRecord(body) && Array.isArray(body.choices) ? (body.choices as unknown[])[0] : undefined;
  const pl = isRecord(choice) ? choice.prompt_logprobs : undefined;
  if (!Array.isArray(pl))
    return { error: "response has no choices[0].prompt_logprobs (is the server vLLM with prompt_logprobs support?)" };
  const texts: string[] = [];
  const logprobs: (number | null)[] = [];
  for (const [k, entry] of pl.entries()) {
    if (entry === null) {
      if (k > 0) return { error: `prompt_logprobs[${k}] is null` };
      texts.push(""); // first prompt token: no context, no log-prob (its text is not needed: the span ends the prompt)
      logprobs.push(null);
      continue;
    }
    const first = isRecord(entry) ? Object.values(entry)[0] : undefined;
    if (!isRecord(first) || typeof first.logprob !== "number" || typeof first.decoded_token !== "string") {
      return { error: `prompt_logprobs[${k}]: expected {"<id>": {logprob, decoded_token}}` };
    }
    texts.push(first.decoded_token);
    logprobs.push(first.logprob);
  }
  return { texts, logprobs };
}

/** Parses a legacy `echo` + `logprobs` response into per-prompt-token texts and log-probs. */
export function parseEcho(body: unknown): { texts: string[]; logprobs: (number | null)[] } | { error: string } {
  const choice: unknown = isRecord(body) && Array.isArray(body.choices) ? (body.choices as unknown[])[0] : undefined;
  const lp = isRecord(choice) ? choice.logprobs : undefined;
  if (
    !isRecord(lp) ||
    !Array.isArray(lp.tokens) ||
    !Array.isArray(lp.token_logprobs) ||
    lp.tokens.length !== lp.token_logprobs.length
  ) {
    return { error: "response has no choices[0].logprobs.tokens / token_logprobs of equal length" };
  }
  if (!lp.tokens.every((t) => typeof t === "string")) return { error: "logprobs.tokens: expected strings" };
  if (!lp.token_logprobs.every((x) => x === null || typeof x === "number"))
    return { error: "logprobs.token_logprobs: expected numbers or null" };
  const usage = isRecord(body) && isRecord(body.usage) ? body.usage : undefined;
  const generated = typeof usage?.completion_tokens === "number" ? usage.completion_tokens : 0;
  const n = lp.tokens.length - generated;
  if (n <= 0) return { error: "no prompt tokens in the echoed logprobs" };
  return { texts: lp.tokens.slice(0, n), logprobs: (lp.token_logprobs as (number | null)[]).slice(0, n) };
}

/**
 * Fetches the log-probs of `reference` given `prefix` (prompt + reasoning, already rendered).
 * Never throws: HTTP errors, bad JSON, wrong shapes and timeouts come back as `{error}`.
 */
export async function fetchReferenceLogprobs(
  ep: LogprobEndpoint,
  prefix: string,
  reference: string,
): Promise<FetchResult> {
  const body: Record<string, unknown> = { model: ep.model, prompt: prefix + reference, temperature: 0 };
  if (ep.api === "prompt_logprobs") Object.assign(body, { max_tokens: ep.maxTokens ?? 1, prompt_logprobs: 0 });
  else Object.assign(body, { max_tokens: ep.maxTokens ?? 0, echo: true, logprobs: 1 });
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (ep.apiKey) headers.authorization = `Bearer ${ep.apiKey}`;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ep.timeoutMs);
  try {
    const res = await fetch(ep.url, { method: "POST", headers, body: JSON.stringify(body), signal: controller.signal });
    const text = await res.text();
    if (!res.ok) return { error: `HTTP ${res.status}: ${text.slice(0, 200)}` };
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { error: `response is not JSON: ${text.slice(0, 100)}` };
    }
    const parsed = ep.api === "prompt_logprobs" ? parsePromptLogprobs(json) : parseEcho(json);
    if ("error" in parsed) return parsed;
    return referenceSpan(parsed.texts, parsed.logprobs, reference);
  } catch (e) {
    if (controller.signal.aborted) return { error: `timeout after ${ep.timeoutMs} ms` };
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    return { error: `request failed: ${(e as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ""}` };
  } finally {
    clearTimeout(timer);
  }
}
