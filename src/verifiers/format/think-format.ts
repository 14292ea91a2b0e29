import { z } from "zod";
import { completionText } from "../../core/completion.js";
import { ok } from "../../core/types.js";
import type { ChatMessage } from "../../core/types.js";
import type { VerifierDefinition } from "../types.js";

const options = z.strictObject({
  /**
   * `verifiers` (default): PrimeIntellect verifiers' ThinkParser format reward — the completion starts with
   * `<think>`, has exactly one `<think>` and one `</think>`, and non-empty text after `</think>`.
   * `trl`: TRL's `think_format_reward` — regex `^<think>(?!.*<think>)(.*?)</think>.*$` (DOTALL): one think
   * block at the start; the answer after it may be empty.
   */
  semantics: z.enum(["verifiers", "trl"]).default("verifiers"),
  /** Tag name, default `think`. */
  tag: z
    .string()
    .regex(/^[A-Za-z][\w-]*$/)
    .default("think"),
  /** Allow whitespace before the opening tag (default true; both peers' patterns do not, so set false to match them byte for byte). */
  allowLeadingWhitespace: z.boolean().default(true),
  /**
   * Reasoning templates (DeepSeek-R1, Qwen3 thinking, many R1 distills) end the *prompt* with the opening tag, so
   * the completion starts inside the think block and holds only `…</think>answer`. `auto` (default): the opening
   * tag is taken as given when the rollout's prompt ends inside an open think block (see {@link promptOpensThink});
   * `true`: always (the prompt is not sent, but the template is known to open it); `false`: never.
   */
  promptOpensThink: z.union([z.literal("auto"), z.boolean()]).default("auto"),
});
export type ThinkFormatOptions = z.infer<typeof options>;

function count(s: string, sub: string): number {
  let n = 0;
  for (let i = s.indexOf(sub); i !== -1; i = s.indexOf(sub, i + sub.length)) n++;
  return n;
}

/**
 * Checks the think/answer format of a completion. Linear time (string searches only).
 * Returns 1 when well-formed, else 0 with reason `format_mismatch` and `details.problem` naming the defect
 * (`no_open_tag`, `not_at_start`, `repeated_tags`, `unclosed`, `empty_answer`).
 * Examples: `"<think>a</think>42"` → 1; `"<think>a</think>"` → 0 (`empty_answer`) under `verifiers`, 1 under `trl`;
 * `"42"` → 0 (`no_open_tag`).
 */
export function thinkFormat(
  completion: string,
  o: Pick<ThinkFormatOptions, "semantics" | "tag" | "allowLeadingWhitespace">,
): { score: 0 | 1; problem?: string } {
  const open = `<${o.tag}>`;
  const close = `</${o.tag}>`;
  const text = o.allowLeadingWhitespace ? completion.trimStart() : completion;
  const opens = count(text, open);
  if (opens === 0) return { score: 0, problem: "no_open_tag" };
  if (!text.startsWith(open)) return { score: 0, problem: "not_at_start" };
  const closeAt = text.indexOf(close);
  if (closeAt === -1) return { score: 0, problem: "unclosed" };
  // TRL's lookahead forbids a second opening tag anywhere; verifiers also forbids a second closing tag.
  if (opens > 1 || (o.semantics === "verifiers" && count(text, close) > 1))
    return { score: 0, problem: "repeated_tags" };
  if (o.semantics === "verifiers" && text.slice(closeAt + close.length).trim() === "")
    return { score: 0, problem: "empty_answer" };
  return { score: 1 };
}

/**
 * Does the prompt end inside an open think block? True when, in the prompt text (a string, or the content of a
 * trailing assistant message used as a prefill), the last `<tag>` is not closed after it and only whitespace
 * follows it: `"…<｜Assistant｜><think>\n"` → true; `"Reason inside <think> tags."` → false (text follows);
 * chat messages ending with a user turn → false (the template is applied later, out of sight).
 */
export function promptOpensThink(prompt: unknown, tag = "think"): boolean {
  let text: string | undefined;
  if (typeof prompt === "string") text = prompt;
  else if (Array.isArray(prompt) && prompt.length > 0) {
    const last = prompt[prompt.length - 1] as { role?: unknown; content?: unknown } | null;
    if (last && last.role === "assistant" && typeof last.content === "string") text = last.content;
  }
  if (text === undefined) return false;
  const open = `<${tag}>`;
  const at = text.lastIndexOf(open);
  return at >= 0 && text.indexOf(`</${tag}>`, at) === -1 && text.slice(at + open.length).trim() === "";
}

/** The reasoning a chat message carries beside its content (vLLM's `reasoning_content`, newer `reasoning`), if any. */
function reasoningOf(m: unknown): string | undefined {
  const r = (m as { reasoning_content?: unknown; reasoning?: unknown } | null) ?? {};
  const v = typeof r.reasoning_content === "string" ? r.reasoning_content : r.reasoning;
  return typeof v === "string" && v.trim() !== "" ? v : undefined;
}

/**
 * The text `think-format` judges. For chat completions whose assistant messages carry the reasoning separately
 * (vLLM's reasoning parsers put it in `reasoning_content`, newer vLLM in `reasoning`), each such turn is read as
 * `<tag>reasoning</tag>content`; turns are joined by a blank line as for every verifier. When the prompt opens the
 * think block (`promptOpensThink`), the opening tag is put in front of a completion that does not start with it.
 */
export function thinkText(
  completion: string,
  rollout: { prompt?: unknown; completion?: unknown },
  o: ThinkFormatOptions,
): string {
  let text = completion;
  const c = rollout.completion;
  if (
    Array.isArray(c) &&
    c.some((m) => (m as { role?: unknown })?.role === "assistant" && reasoningOf(m) !== undefined)
  ) {
    text = c
      .filter((m) => (m as { role?: unknown })?.role === "assistant")
      .map((m) => {
        const content = completionText([m as ChatMessage]);
        const r = reasoningOf(m);
        return r === undefined ? content : `<${o.tag}>${r}</${o.tag}>${content}`;
      })
      .join("\n\n");
  }
  const opened = o.promptOpensThink === "auto" ? promptOpensThink(rollout.prompt, o.tag) : o.promptOpensThink;
  if (opened && !text.trimStart().startsWith(`<${o.tag}>`)) text = `<${o.tag}>` + text;
  return text;
}

/** `think-format`: 1 when the completion is one think block followed by the answer, else 0. */
export const thinkFormatVerifier: VerifierDefinition<ThinkFormatOptions> = {
  type: "think-format",
  summary: "1 if the completion is one <think>…</think> block then a non-empty answer, else 0",
  options,
  isolation: "inline",
  defaultTimeoutMs: 1000,
  reads: ["prompt", "completion"],
  create(o) {
    return ({ completion, rollout }) => {
      const r = thinkFormat(thinkText(completion, rollout, o), o);
      return r.score === 1 ? ok(1) : ok(0, "format_mismatch", { problem: r.problem });
    };
  },
};
