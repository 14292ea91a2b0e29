/**
 * Final-answer extraction from a model completion (or from a reference that is itself a solution).
 *
 * Strategies, tried in the order the caller gives:
 * - `boxed`: the last `\boxed{...}` / `\fbox{...}` with balanced braces (also `\boxed 5`);
 * - `final-answer`: "final answer is $...$" (also "the answer is ..."), last occurrence;
 * - `answer-line`: a line starting with `Answer:` (markdown bold allowed), last occurrence;
 * - `gsm8k`: the GSM8K marker `#### 42`, last occurrence.
 */

/** The extraction strategies, in the default order. */
export const EXTRACT_STRATEGIES = ["boxed", "final-answer", "answer-line", "gsm8k"] as const;

/** One extraction strategy name. */
export type ExtractStrategy = (typeof EXTRACT_STRATEGIES)[number];

/** An extracted answer: the raw text (math delimiters stripped) and the strategy that found it. */
export interface Extracted {
  answer: string;
  strategy: ExtractStrategy;
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

/**
 * The content of the last `\boxed{...}` or `\fbox{...}` in `text` (balanced braces), or of the
 * brace-less form `\boxed 5`. When the last one is unbalanced (truncated output) or empty, earlier
 * ones are tried. Returns `null` when there is none.
 *
 * @example lastBoxed("so \\boxed{\\frac{1}{2}} and \\boxed{3}") === "3"
 */
export function lastBoxed(text: string): string | null {
  const starts: number[] = [];
  for (const m of text.matchAll(BOX_RE)) starts.push(m.index);
  for (let k = starts.length - 1; k >= 0; k--) {
    const start = starts[k] as number;
    const after = start + (text.startsWith("\\boxed", start) ? 6 : 5);
    let i = after;
    while (i < text.length && (text[i] === " " || text[i] === "\t")) i++;
    if (text[i] === "{") {
      const g = readGroup(text, i);
      if (g && g.inner.trim() !== "") return g.inner.trim();
      continue;
    }
    if (i > after) {
      // `\boxed 5`: one token, up to whitespace, `$` or a closing delimiter.
      const m = /^[^\s$]+?(?=$|[\s$]|\\\)|\\\])/.exec(text.slice(i));
      if (m && m[0] !== "") return m[0];
    }
  }
  return null;
}

/** Strips math delimiters and trailing punctuation around an extracted span. */
export function stripDelimiters(s: string): string {
  let t = s.trim();
  for (let guard = 0; guard < 4; guard++) {
    const before = t;
    t = t.replace(/^\*+|\*+$/g, "").trim();
    t = t.replace(/[.;,:]+$/, "").trim();
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

function byStrategy(text: string, s: ExtractStrategy): string | null {
  switch (s) {
    case "boxed":
      return lastBoxed(text);
    case "final-answer": {
      const m = lastMatch(FINAL_RE, text);
      if (!m) return null;
      const rest = text.slice(m.index + m[0].length);
      const inner = lastBoxed(leadingSpan(rest));
      return inner ?? leadingSpan(rest);
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
  }
}

/**
 * Extracts the final answer from `text`, trying `strategies` in order; the first strategy that
 * yields a non-empty answer wins. Returns `null` when none does (the caller reports `no_answer`).
 *
 * @param text completion (or reference) text, any length; scanned linearly per strategy.
 * @param strategies order of strategies to try (default: all four, boxed first).
 * @example extractAnswer("... #### 1,000", ["boxed", "gsm8k"]) // { answer: "1,000", strategy: "gsm8k" }
 */
export function extractAnswer(
  text: string,
  strategies: readonly ExtractStrategy[] = EXTRACT_STRATEGIES,
): Extracted | null {
  for (const s of strategies) {
    const raw = byStrategy(text, s);
    if (raw === null) continue;
    const answer = stripDelimiters(raw);
    if (answer !== "") return { answer, strategy: s };
  }
  return null;
}
