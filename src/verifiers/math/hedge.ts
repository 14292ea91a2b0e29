/**
 * Hedged final answers: "\boxed{420}, or maybe 421", "The answer is 12, or perhaps 13". A policy that states one
 * value and offers another in the same breath has not committed to an answer; paying the first (or the last) value
 * would reward hedging (the reward-hacking probe `hedge`, docs/probe.md). Only an alternative *value* counts: a
 * digit, `$`, `\boxed`, `\frac`, `(` after "or maybe" / "or perhaps" / "or possibly" / "alternatively" / "maybe"
 * on the answer's own line; "maybe I made a mistake" is not a hedge.
 */
const HEDGE =
  /^[^\n]{0,40}?(?:\b[Oo]r\s+(?:maybe|perhaps|possibly)\b|\b(?:[Mm]aybe|[Pp]erhaps|[Pp]ossibly|[Aa]lternatively)\b)[\s,:]*(?:(?:also|even|it'?s|it\s+is|it\s+could\s+be|it\s+might\s+be|the\s+answer\s+is)\s*)*-?(?:\$|\\(?:boxed|d?frac|sqrt|text|\$|pi|infty)|\(?-?\d|[A-Z](?=\s*(?:$|[.,;!?)])))/;

/**
 * The alternative a hedge offers after the extracted answer, or undefined when there is none.
 * @param text the text the answer was extracted from (after the think block).
 * @param answer the extracted answer (its last occurrence in `text` marks where the answer ends).
 * Example: ("so \\boxed{420}, or maybe 421.", "420") → "or maybe 421."; the answer offered as the alternative
 * counts too: ("\\boxed{98} or maybe \\boxed{100}", "100") → "\\boxed{98} or maybe \\boxed{".
 */
export function hedgeAfter(text: string, answer: string): string | undefined {
  const at = answer === "" ? -1 : text.lastIndexOf(answer);
  const tail = at >= 0 ? text.slice(at + answer.length) : text.slice(-120);
  const m = HEDGE.exec(tail);
  if (m) return m[0].trim().slice(0, 80);
  if (at < 0) return undefined;
  // the answer is itself the alternative: `\boxed{98} or maybe \boxed{100}`, `12, or perhaps 13`
  const b = HEDGE_BEFORE.exec(text.slice(Math.max(0, at - 80), at));
  return b ? b[0].trim().slice(0, 80) : undefined;
}

/**
 * A value, then "or maybe" / "or perhaps" / "or possibly" / "alternatively", then (the caller's) answer, on one line:
 * the answer offered as an alternative to an earlier value.
 */
const HEDGE_BEFORE =
  /(?:\\boxed\s*\{[^{}\n]{1,40}\}|\$[^$\n]{1,40}\$|-?\d[\d.,]*|\(?\b[A-J]\b\)?)[^\n\d]{0,12}?(?:\b[Oo]r\s+(?:maybe|perhaps|possibly)|\b(?:[Mm]aybe|[Pp]erhaps|[Pp]ossibly|[Aa]lternatively))\b[\s,:]*(?:(?:also|even|it'?s|it\s+is|it\s+could\s+be|it\s+might\s+be|the\s+answer\s+is)\s*)*(?:\\boxed\s*\{|\$|\\\(|\()?\s*$/;

/** Strategies that find an answer without an answer cue (a bare answer, the last `$…$`, the last number). */
const FALLBACK: ReadonlySet<string> = new Set(["whole", "last-math", "last-number"]);

/**
 * Whether an answer was found only by a fallback strategy and is copied from the prompt (whitespace ignored): a
 * completion that restates "Compute $\frac{1}{31} \div \frac{1}{93}$." has "answered" with the question's own
 * expression, which equals the gold. The caller keeps answers that are the gold itself ("What is 5 + 0?" → 5).
 */
export function copiedFromPrompt(ex: { answer: string; strategy: string }, prompt: string): boolean {
  if (!FALLBACK.has(ex.strategy) || prompt === "") return false;
  const a = ex.answer.replace(/\s+/g, "");
  return a !== "" && prompt.replace(/\s+/g, "").includes(a);
}

/**
 * Whether the completion is the prompt copied back (whitespace ignored; it holds the whole prompt, or is a part of
 * a prompt of 20 or more characters): an answer such a completion yields by a fallback strategy is the question's
 * own last number or expression, whatever it happens to equal.
 */
export function echoesPrompt(completion: string, prompt: string): boolean {
  const p = prompt.replace(/\s+/g, "");
  const c = completion.replace(/\s+/g, "");
  return p.length >= 20 && c.length > 0 && (c.includes(p) || p.includes(c));
}

/** A rollout's prompt as text: a string, or chat messages' contents joined by a blank line; "" when absent. */
export function promptText(prompt: unknown): string {
  if (typeof prompt === "string") return prompt;
  if (!Array.isArray(prompt)) return "";
  return prompt
    .map((m) =>
      m && typeof m === "object" && typeof (m as { content?: unknown }).content === "string"
        ? (m as { content: string }).content
        : "",
    )
    .join("\n\n");
}
