import type { Extracted } from "../../client/types.js";
import type { TopLogprob } from "../likelihood/judge.js";

/**
 * OpenAI chat-completions responses as the judge reads them: one entry per choice (`n` > 1 gives several), the
 * message text (a string, or content parts whose `text` fields are joined), the finish reason and, when asked for,
 * the generated tokens with their `top_logprobs` (`choices[i].logprobs.content`).
 */
export interface JudgeChoice {
  text: string;
  finish?: string;
  /** Generated tokens with their top-k alternatives; absent when the server sent none. */
  tokens?: Array<{ token: string; logprob: number; top: TopLogprob[] }>;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function contentText(c: unknown): string | undefined {
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((p) => (isRecord(p) && typeof p.text === "string" ? p.text : "")).join("");
  return undefined;
}

function tokensOf(lp: unknown): JudgeChoice["tokens"] {
  const content = isRecord(lp) ? lp.content : undefined;
  if (!Array.isArray(content)) return undefined;
  const out: NonNullable<JudgeChoice["tokens"]> = [];
  for (const e of content) {
    if (!isRecord(e) || typeof e.token !== "string") return undefined;
    const top = Array.isArray(e.top_logprobs)
      ? e.top_logprobs
          .filter((t): t is TopLogprob => isRecord(t) && typeof t.token === "string" && typeof t.logprob === "number")
          .map((t) => ({ token: t.token, logprob: t.logprob }))
      : [];
    // some recorders keep only the alternatives: the sampled token's own log-prob is then its top-k entry
    const logprob =
      typeof e.logprob === "number" ? e.logprob : (top.find((t) => t.token === e.token)?.logprob ?? Number.NaN);
    out.push({ token: e.token, logprob, top });
  }
  return out;
}

/** Reads the usage block: `{prompt_tokens, completion_tokens}`. */
export function usageOf(json: unknown): { promptTokens: number; completionTokens: number } | undefined {
  const u = isRecord(json) ? json.usage : undefined;
  if (!isRecord(u)) return undefined;
  const p = typeof u.prompt_tokens === "number" ? u.prompt_tokens : 0;
  const c = typeof u.completion_tokens === "number" ? u.completion_tokens : 0;
  return { promptTokens: p, completionTokens: c };
}

/** Extracts the choices of a chat completion; a body without `choices` (an error object served with 200) is an error. */
export function extractChat(json: unknown): Extracted<JudgeChoice[]> {
  const usage = usageOf(json);
  const u = usage ? { usage } : {};
  if (!isRecord(json) || !Array.isArray(json.choices)) {
    const err =
      isRecord(json) && isRecord(json.error) && typeof json.error.message === "string"
        ? `: ${json.error.message.slice(0, 200)}`
        : "";
    return { error: `the response has no choices${err}`, ...u };
  }
  const choices: JudgeChoice[] = [];
  for (const [k, ch] of json.choices.entries()) {
    if (!isRecord(ch)) return { error: `choices[${k}] is not an object`, ...u };
    const msg = isRecord(ch.message) ? ch.message : undefined;
    const text = contentText(msg?.content) ?? (typeof ch.text === "string" ? ch.text : undefined);
    const c: JudgeChoice = { text: text ?? "" };
    if (typeof ch.finish_reason === "string") c.finish = ch.finish_reason;
    const tokens = tokensOf(ch.logprobs);
    if (tokens) c.tokens = tokens;
    choices.push(c);
  }
  if (choices.length === 0) return { error: "the response has an empty choices list", ...u };
  return { value: choices, ...u };
}

/** The chat-completions URL of a base URL: `…/v1` → `…/v1/chat/completions`; a URL already ending so is kept. */
export function chatUrl(baseUrl: string): string {
  const b = baseUrl.replace(/\/+$/, "");
  return /\/chat\/completions$/.test(b) ? b : `${b}/chat/completions`;
}
