import { z } from "zod";
import { ok } from "../../core/types.js";
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
  tag: z.string().regex(/^[A-Za-z][\w-]*$/).default("think"),
  /** Allow whitespace before the opening tag (default true; both peers' patterns do not, so set false to match them byte for byte). */
  allowLeadingWhitespace: z.boolean().default(true),
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
export function thinkFormat(completion: string, o: ThinkFormatOptions): { score: 0 | 1; problem?: string } {
  const open = `<${o.tag}>`;
  const close = `</${o.tag}>`;
  const text = o.allowLeadingWhitespace ? completion.trimStart() : completion;
  const opens = count(text, open);
  if (opens === 0) return { score: 0, problem: "no_open_tag" };
  if (!text.startsWith(open)) return { score: 0, problem: "not_at_start" };
  const closeAt = text.indexOf(close);
  if (closeAt === -1) return { score: 0, problem: "unclosed" };
  // TRL's lookahead forbids a second opening tag anywhere; verifiers also forbids a second closing tag.
  if (opens > 1 || (o.semantics === "verifiers" && count(text, close) > 1)) return { score: 0, problem: "repeated_tags" };
  if (o.semantics === "verifiers" && text.slice(closeAt + close.length).trim() === "") return { score: 0, problem: "empty_answer" };
  return { score: 1 };
}

/** `think-format`: 1 when the completion is one think block followed by the answer, else 0. */
export const thinkFormatVerifier: VerifierDefinition<ThinkFormatOptions> = {
  type: "think-format",
  summary: "1 if the completion is one <think>…</think> block then a non-empty answer, else 0",
  options,
  isolation: "inline",
  defaultTimeoutMs: 1000,
  create(o) {
    return ({ completion }) => {
      const r = thinkFormat(completion, o);
      return r.score === 1 ? ok(1) : ok(0, "format_mismatch", { problem: r.problem });
    };
  },
};
