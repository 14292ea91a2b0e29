/**
 * Final-answer extraction from a model completion (or from a reference that is itself a solution).
 *
 * Strategies, tried in the order the caller gives:
 * - `boxed`: the last `\boxed{...}` / `\fbox{...}` with balanced braces (also `\boxed 5`);
 * - `final-answer`: "final answer is $...$" (also "the answer is ..."), last occurrence;
 * - `answer-line`: a line starting with `Answer:` (markdown bold allowed), last occurrence;
 * - `gsm8k`: the GSM8K marker `#### 42`, last occurrence;
 * - `whole`: the whole text, when it is a bare answer — one line of at most {@link WHOLE_MAX_CHARS} characters
 *   and no two words in a row outside `\text{}` (`42`, `$\frac{1}{2}$`, `x = 5`, `\text{Monday}`) — as
 *   Math-Verify reads answers without an anchor; a sentence, a longer or a multi-line text is a response, not an
 *   answer, and yields nothing;
 * - `last-math`: the last math span of the text — `$..$`, `\(..\)` (one line) or `$$..$$`, `\[..\]` — as
 *   Math-Verify reads LaTeX without an anchor (`Therefore $x \geq 5$ is the solution.`);
 * - `last-number`: the last number of the text (`1,234`, `-3.5`, `7/8`); opt-in, not in the defaults.
 */

/** The extraction strategies used by default, in the default order. */
export const EXTRACT_STRATEGIES = ["boxed", "final-answer", "answer-line", "gsm8k", "whole", "last-math"] as const;

/** Longest text the `whole` strategy reads as a bare answer. */
export const WHOLE_MAX_CHARS = 200;

/** Every extraction strategy: the defaults plus `last-number` (opt-in: it reads any trailing number). */
export const ALL_EXTRACT_STRATEGIES = [...EXTRACT_STRATEGIES, "last-number"] as const;

/** One extraction strategy name. */
export type ExtractStrategy = (typeof ALL_EXTRACT_STRATEGIES)[number];

/** Which `\boxed{}` the `boxed` strategy reads when there are several. */
export type BoxedPick = "last" | "first";

/** An extracted answer: the raw text (math delimiters stripped) and the strategy that found it. */
export interface Extracted {
  answer: string;
  strategy: ExtractStrategy;
  /** With the `boxed` strategy: every boxed answer of the text, in order (delimiters stripped). */
  boxed?: string[];
}

const BOX_RE = /\\(?:boxed|fbox)(?![a-zA-Z])/g;

/**
 * Reads a balanced `{...}` group starting at `open` (which must index a `{`).
 * Escaped braces `\{`/`\}` do not count. Returns the inner text and the index after the closing brace,
 * or `null` when the group never closes (a truncated completion).
 */
export function readGroup(s: string, open: number): { inner: string; end: number } | null {
  if (s[open] !== "{") return null;
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    const c = s[i];
    if (c === "\\") {
      i++; // skip the escaped character (\{, \}, \\)
      continue;
    }
    if (c === "{") depth++;
    else if (c === "}") {
      depth--;
      if (depth === 0) return { inner: s.slice(open + 1, i), end: i + 1 };
    }
  }
  return null;
}

/** One `\boxed{...}` found in a text: its content and its span `[start, end)` in the text. */
export interface BoxedSpan {
  inner: string;
  start: number;
  end: number;
}

/**
 * Every `\boxed{...}` / `\fbox{...}` (and brace-less `\boxed 5`) in `text`, in order, with balanced
 * braces; unclosed (truncated) and empty ones are skipped. A box nested inside another box is not listed
 * separately (`\boxed{\boxed{5}}` is one box). Linear time: braces are matched in one pass with a stack,
 * so a 1 MB text of unclosed `\boxed{` costs one scan, not one scan per box.
 */
export function allBoxed(text: string): BoxedSpan[] {
  const starts: number[] = [];
  for (const m of text.matchAll(BOX_RE)) starts.push(m.index);
  if (starts.length === 0) return [];
  // close[i] = index of the `}` matching the `{` at i (only for the braces right after a box command).
  const wanted = new Map<number, number>(); // `{` index -> box start
  const bareAt: number[] = [];
  for (const start of starts) {
    let i = start + (text.startsWith("\\boxed", start) ? 6 : 5);
    const after = i;
    while (i < text.length && (text[i] === " " || text[i] === "\t")) i++;
    if (text[i] === "{") wanted.set(i, start);
    else if (i > after) bareAt.push(i);
  }
  const spans: BoxedSpan[] = [];
  const stack: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92 /* \\ */) {
      i++;
      continue;
    }
    if (c === 123 /* { */) stack.push(i);
    else if (c === 125 /* } */) {
      const open = stack.pop();
      if (open === undefined) continue;
      const start = wanted.get(open);
      if (start !== undefined) {
        const inner = text.slice(open + 1, i).trim();
        if (inner !== "") spans.push({ inner, start, end: i + 1 });
      }
    }
  }
  for (const i of bareAt) {
    // `\boxed 5`: one token, up to whitespace, `$` or a closing delimiter.
    const m = /^[^\s$]+?(?=$|[\s$]|\\\)|\\\])/.exec(text.slice(i, i + 200));
    if (m && m[0] !== "") spans.push({ inner: m[0], start: i, end: i + m[0].length });
  }
  spans.sort((a, b) => a.start - b.start);
  // Drop boxes nested in an earlier (outer) box.
  const out: BoxedSpan[] = [];
  for (const sp of spans) {
    const prev = out[out.length - 1];
    if (prev && sp.start < prev.end) continue;
    out.push(sp);
  }
  return out;
}

/**
 * The content of the last `\boxed{...}` or `\fbox{...}` in `text` (balanced braces), or of the
 * brace-less form `\boxed 5`. When the last one is unbalanced (truncated output) or empty, earlier
 * ones are tried. Returns `null` when there is none.
 *
 * @example lastBoxed("so \\boxed{\\frac{1}{2}} and \\boxed{3}") === "3"
 */
export function lastBoxed(text: string): string | null {
  const all = allBoxed(text);
  return all.length > 0 ? (all[all.length - 1] as BoxedSpan).inner : null;
}

/** The content of the first balanced, non-empty `\boxed{...}` of `text`, or `null`. */
export function firstBoxed(text: string): string | null {
  return allBoxed(text)[0]?.inner ?? null;
}

/** Strips math delimiters and trailing punctuation around an extracted span. */
export function stripDelimiters(s: string): string {
  let t = s.trim();
  for (let guard = 0; guard < 4; guard++) {
    const before = t;
    t = t.replace(/^\*+|\*+$/g, "").trim();
    if (!/(?:^|[^.])\.\.\.$/.test(t)) t = t.replace(/[.;,:]+$/, "").trim(); // an ellipsis is kept
    if (t.startsWith("$$") && t.endsWith("$$") && t.length >= 4) t = t.slice(2, -2).trim();
    else if (t.startsWith("$") && t.endsWith("$") && t.length >= 2) t = t.slice(1, -1).trim();
    else if (/^\\[([]/.test(t) && /\\[)\]]$/.test(t)) t = t.slice(2, -2).trim();
    if (t === before) break;
  }
  return t;
}

/** A leading math span `$..$`, `$$..$$`, `\(..\)`, `\[..\]` of `s`, else the first sentence / line. */
function leadingSpan(s: string): string {
  const t = s.trimStart();
  const pairs: [string, string][] = [
    ["$$", "$$"],
    ["$", "$"],
    ["\\(", "\\)"],
    ["\\[", "\\]"],
  ];
  for (const [o, c] of pairs) {
    if (t.startsWith(o)) {
      const end = t.indexOf(c, o.length);
      if (end > 0) return t.slice(o.length, end);
    }
  }
  const line = t.split("\n")[0] ?? "";
  // End of sentence: a period followed by whitespace/end that is not a decimal point.
  const m = /^(.*?)(?:\.(?=\s|$)|$)/.exec(line);
  return m ? (m[1] ?? line) : line;
}

/**
 * The content of the last non-empty math span of `text` (`$..$`, `\(..\)` on one line; `$$..$$`, `\[..\]`),
 * or `null`. One left-to-right pass: a span's closer is searched once, and an opener whose closer is
 * missing disables that kind for the rest of the text, so a 1 MB text of unclosed `$$` stays linear.
 */
export function lastMathSpan(text: string): { inner: string; index: number } | null {
  let last: { inner: string; index: number } | null = null;
  const dead = new Set<string>();
  const take = (open: number, from: number, closer: string, oneLine = false): number => {
    if (dead.has(closer)) return -1;
    const end = text.indexOf(closer, from);
    if (end < 0) {
      dead.add(closer);
      return -1;
    }
    const raw = text.slice(from, end);
    const inner = raw.trim();
    if (inner !== "" && !(oneLine && raw.includes("\n"))) last = { inner, index: open };
    return end + closer.length;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") {
      const n = text[i + 1];
      if (n === "[" || n === "(") {
        const next = take(i, i + 2, n === "[" ? "\\]" : "\\)", n === "(");
        i = next > 0 ? next - 1 : i + 1;
      } else i++; // an escaped character (`\$` is a dollar sign)
      continue;
    }
    if (c !== "$") continue;
    if (text[i + 1] === "$") {
      const next = take(i, i + 2, "$$");
      if (next > 0) i = next - 1;
      else i++;
      continue;
    }
    // inline `$..$`: up to the next unescaped `$` on the same line
    let j = i + 1;
    while (j < text.length && text[j] !== "$" && text[j] !== "\n") j += text[j] === "\\" ? 2 : 1;
    if (j < text.length && text[j] === "$") {
      const inner = text.slice(i + 1, j).trim();
      if (inner !== "") last = { inner, index: i };
      i = j;
    } else i = j - 1;
  }
  return last;
}

/**
 * The answer of a "final answer is ..." sentence: the sentence itself when it is a bare answer; for a
 * sentence in words (`The largest $n$ is 34.`) the number that ends it, else its last math span.
 */
function sentenceAnswer(sentence: string): string {
  const t = sentence.trim();
  if (!PROSE_RE.test(t.replace(TEXT_CMD_RE, " ").replace(/\$[^$]*\$/g, " ").replace(/\\[A-Za-z]+/g, " "))) return t;
  const span = lastMathSpan(t);
  const num = lastMatch(NUMBER_RE, t.replace(/\$[^$]*\$/g, (x) => " ".repeat(x.length)));
  if (num && (!span || num.index > span.index)) return num[0];
  return span ? span.inner : t;
}

function lastMatch(re: RegExp, text: string): RegExpExecArray | null {
  let last: RegExpExecArray | null = null;
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    last = m;
    if (m[0] === "") re.lastIndex++;
  }
  return last;
}

const FINAL_RE = /(?:final answer|the answer)\s*(?:is|:)\s*:?/gi;
const ANSWER_LINE_RE = /^[ \t>*#_]*answer[ \t*_]*[:：][ \t*_]*(.+)$/gim;
const GSM8K_RE = /####\s*([^\n]+)/g;
/** Two words in a row (outside `\text{}` and commands): a sentence, not a bare answer. */
const PROSE_RE = /[A-Za-z']{2,}[\s,]+[A-Za-z']{2,}/;
const TEXT_CMD_RE = /\\(?:text|mathrm|textbf|mbox)\{[^{}]*\}/g;
const NUMBER_RE = /-?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?(?:\s*\/\s*\d+)?/g;

function byStrategy(text: string, s: ExtractStrategy, pick: BoxedPick): string | null {
  switch (s) {
    case "boxed":
      return pick === "first" ? firstBoxed(text) : lastBoxed(text);
    case "last-number": {
      const m = lastMatch(NUMBER_RE, text);
      return m ? m[0] : null;
    }
    case "final-answer": {
      const m = lastMatch(FINAL_RE, text);
      if (!m) return null;
      const rest = text.slice(m.index + m[0].length);
      const inner = lastBoxed(leadingSpan(rest));
      return inner ?? sentenceAnswer(leadingSpan(rest));
    }
    case "last-math": {
      const span = lastMathSpan(text);
      return span ? span.inner : null;
    }
    case "answer-line": {
      const m = lastMatch(ANSWER_LINE_RE, text);
      if (!m || m[1] === undefined) return null;
      return lastBoxed(m[1]) ?? m[1];
    }
    case "gsm8k": {
      const m = lastMatch(GSM8K_RE, text);
      return m && m[1] !== undefined ? m[1] : null;
    }
    case "whole": {
      const t = text.trim();
      // an empty or unreadable \boxed{} is an anchor that failed, not a bare answer
      // words before a math span (`Answer $ 9 $`, `The sum is $..$`) introduce it: not a bare answer
      return t.length <= WHOLE_MAX_CHARS && !t.includes("\n") && !/\\(?:boxed|fbox)/.test(t) && !PROSE_RE.test(t.replace(TEXT_CMD_RE, " ").replace(/\\[A-Za-z]+/g, " ")) && !/^[^$\\]*[A-Za-z]{2,}[^$\\]*(?:\$|\\[[(])/.test(t) ? t : null;
    }
  }
}

/**
 * The part of a completion where the final answer may appear when the spec says the answer follows a
 * reasoning block `<tag>...</tag>`: the text after the last `</tag>`; `null` (no answer region) when a
 * `<tag>` is opened and never closed; the whole text when the tag does not occur at all (templates that
 * put `<think>` in the prompt still emit `</think>`, handled by the first rule).
 */
export function afterThink(text: string, tag = "think"): string | null {
  const close = text.lastIndexOf(`</${tag}>`);
  if (close >= 0) return text.slice(close + tag.length + 3);
  if (text.includes(`<${tag}>`)) return null;
  return text;
}

/**
 * Extracts the final answer from `text`, trying `strategies` in order; the first strategy that
 * yields a non-empty answer wins. Returns `null` when none does (the caller reports `no_answer`).
 *
 * @param text completion (or reference) text, any length; every strategy is linear in it.
 * @param strategies order of strategies to try (default: the four of {@link EXTRACT_STRATEGIES}).
 * @param pick which boxed answer the `boxed` strategy reads (`last`, default, or `first`); the result's
 *   `boxed` lists all of them so that a caller can apply an "all must agree" or "reject" policy.
 * @example extractAnswer("... #### 1,000", ["boxed", "gsm8k"]) // { answer: "1,000", strategy: "gsm8k" }
 */
export function extractAnswer(
  text: string,
  strategies: readonly ExtractStrategy[] = EXTRACT_STRATEGIES,
  pick: BoxedPick = "last",
): Extracted | null {
  for (const s of strategies) {
    if (s === "boxed") {
      const spans = allBoxed(text);
      const all = spans.map((b) => stripDelimiters(b.inner)).filter((b) => b !== "");
      // A "final answer is $..$" stated after the last box (boxed intermediate results) is the answer.
      const lastEnd = spans[spans.length - 1]?.end ?? 0;
      // only the tail after the last box is scanned (usually a few words)
      const fin = lastEnd > 0 && pick === "last" && strategies.includes("final-answer") ? lastMatch(FINAL_RE, text.slice(lastEnd)) : null;
      if (fin) {
        const raw = byStrategy(text.slice(lastEnd), "final-answer", pick);
        const answer = raw === null ? "" : stripDelimiters(raw);
        if (answer !== "") return { answer, strategy: "final-answer" };
      }
      const answer = pick === "first" ? all[0] : all[all.length - 1];
      if (answer !== undefined) return { answer, strategy: s, boxed: all };
      continue;
    }
    const raw = byStrategy(text, s, pick);
    if (raw === null) continue;
    const answer = stripDelimiters(raw);
    if (answer !== "") return { answer, strategy: s };
  }
  return null;
}
