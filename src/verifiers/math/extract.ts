/**
 * Final-answer extraction from a model completion (or from a reference that is itself a solution).
 *
 * Strategies, tried in the order the caller gives; consecutive *anchored* ones form one group in which
 * the answer stated last in the text wins:
 * - `boxed` (anchored): `\boxed{...}` / `\fbox{...}` with balanced braces (also `\boxed 5`);
 * - `final-answer` (anchored): "the final answer is …", "the answer is …", "the correct answer is …",
 *   a `Final Answer` heading, and the same in French, Spanish, German, Portuguese, Italian, Chinese
 *   (`答案是`, `故答案为`, `故选`) and Japanese (see `anchors.ts`);
 * - `answer-line` (anchored): `Answer:` (markdown bold allowed), `A:` lines (GSM8K), `Réponse :`, `【答案】`, …;
 * - `gsm8k` (anchored): the GSM8K marker `#### 42`;
 * - `whole`: the whole text, when it is a bare answer — one line of at most {@link WHOLE_MAX_CHARS} characters
 *   and not prose (`42`, `$\frac{1}{2}$`, `x = 5`, `\text{Monday}`) — as Math-Verify reads answers without
 *   an anchor;
 * - `last-math`: the last math span of the text — `$..$`, `\(..\)` (one line) or `$$..$$`, `\[..\]`, or a bare
 *   matrix environment — as Math-Verify reads LaTeX without an anchor;
 * - `last-number`: the last number of the text (`1,234`, `-3.5`, `7/8`; `2,74` stays one token); tried last,
 *   so it applies only when there is no anchor and no math span.
 * The words after an anchor are read by `reading.ts` (`72 clips.` → `72`); money `$` is told apart from
 * math `$…$` by `prepare.ts`. Every strategy is linear in the text.
 */
import { anchorHits, type AnchorHit } from "./anchors.js";
import { EXTRACT_STRATEGIES, WHOLE_MAX_CHARS } from "./strategies.js";
import type { ExtractStrategy } from "./strategies.js";
import { prepareText, type DollarMode } from "./prepare.js";
import { answerFrom, isProse, lastAmount, MAX_CONTENT_CHARS } from "./reading.js";

export { ALL_EXTRACT_STRATEGIES, EXTRACT_STRATEGIES, WHOLE_MAX_CHARS } from "./strategies.js";
export type { ExtractStrategy } from "./strategies.js";

/** Which `\boxed{}` the `boxed` strategy reads when there are several. */
export type BoxedPick = "last" | "first";

/** An extracted answer: the raw text (math delimiters stripped) and the strategy that found it. */
export interface Extracted {
  answer: string;
  strategy: ExtractStrategy;
  /** With the `boxed` strategy: every boxed answer of the text, in order (delimiters stripped). */
  boxed?: string[];
}

/** The answer of a brace-less box (`\boxed 5`): one token, up to whitespace, `$` or a closing delimiter. */
const BARE_BOX_RE = /^[^\s$]+?(?=$|[\s$]|\\\)|\\\])/;

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
 * Scratch for {@link allBoxed}: the box braces' positions, the boxes' starts, the brace-less boxes' token
 * starts and the brace stack. Module-level and reused, so that a call allocates only the spans it returns
 * (a push-grown JS array per list, six per call, was the largest part of what scoring a rollout allocated).
 * `allBoxed` is synchronous and calls nothing that calls it back, so one set of buffers serves every call;
 * a buffer grows (doubling) when a text needs more.
 */
let boxOpens = new Int32Array(16);
let boxStarts = new Int32Array(16);
let bareStarts = new Int32Array(16);
let braceStack = new Int32Array(64);

/** Past this many slots a scratch buffer grown for one long text is let go after the call (not kept for good). */
const SCRATCH_KEEP = 4096;

/** `buf` when it has a slot `n`, else a copy of it at least twice as long. */
function room(buf: Int32Array<ArrayBuffer>, n: number): Int32Array<ArrayBuffer> {
  if (n < buf.length) return buf;
  const grown = new Int32Array(Math.max(n + 1, buf.length * 2));
  grown.set(buf);
  return grown;
}

/** Back to small buffers: one long text does not keep megabytes of scratch alive. */
function releaseScratch(): void {
  boxOpens = new Int32Array(16);
  boxStarts = new Int32Array(16);
  bareStarts = new Int32Array(16);
  braceStack = new Int32Array(64);
}

/** Whether the UTF-16 code `c` is an ASCII letter (`NaN`, past the end of a text, is not). */
function isAsciiLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/**
 * Every `\boxed{...}` / `\fbox{...}` (and brace-less `\boxed 5`) in `text`, in order, with balanced
 * braces; unclosed (truncated) and empty ones are skipped. A box nested inside another box is not listed
 * separately (`\boxed{\boxed{5}}` is one box). Linear time: braces are matched in one pass with a stack,
 * so a 1 MB text of unclosed `\boxed{` costs one scan, not one scan per box.
 *
 * Allocation: the commands are found with two literal searches (no match objects) and the positions are
 * kept in the module's scratch buffers, so a call allocates the returned array, its spans and their texts.
 */
export function allBoxed(text: string): BoxedSpan[] {
  // the next `\boxed` and `\fbox` at or after the scan position (each search resumes where it stopped)
  let nb = text.indexOf("\\boxed");
  let nf = text.indexOf("\\fbox");
  if (nb < 0 && nf < 0) return [];
  let first = -1;
  // the `{` right after each box command (blanks skipped), in increasing order, and the box's start;
  // the token start of each brace-less box
  let nOpens = 0;
  let nBare = 0;
  for (;;) {
    let start: number;
    let len: number;
    if (nb >= 0 && (nf < 0 || nb < nf)) {
      start = nb;
      len = 6;
    } else if (nf >= 0) {
      start = nf;
      len = 5;
    } else break;
    const from = start + len;
    // as `/\\(?:boxed|fbox)(?![a-zA-Z])/g` does: a command followed by a letter is another command
    const isBox = !isAsciiLetter(text.charCodeAt(from));
    const resume = isBox ? from : start + 1;
    if (nb >= 0 && nb < resume) nb = text.indexOf("\\boxed", resume);
    if (nf >= 0 && nf < resume) nf = text.indexOf("\\fbox", resume);
    if (!isBox) continue;
    if (first < 0) first = start;
    let i = from;
    while (i < text.length && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
    if (text.charCodeAt(i) === 123 /* { */) {
      boxOpens = room(boxOpens, nOpens);
      boxStarts = room(boxStarts, nOpens);
      boxOpens[nOpens] = i;
      boxStarts[nOpens++] = start;
    } else if (i > from) {
      bareStarts = room(bareStarts, nBare);
      bareStarts[nBare++] = i;
    }
  }
  if (first < 0) return [];
  // sized for every box (a push-grown array reserves 17 slots): trimmed to the boxes kept at the end
  const spans = new Array<BoxedSpan>(nOpens + nBare);
  let n = 0;
  // the open braces, on `braceStack[0, depth)`: the index in `boxOpens` of a box's brace, -1 for another one
  let depth = 0;
  let next = 0; // the next box brace to meet
  let pending = 0; // box braces met and not closed yet
  // a brace group opened after the first box closes where it closes whatever came before: start the scan there;
  // once every box brace is closed, the rest of the text closes none of them: stop there
  for (let i = first; i < text.length && (pending > 0 || next < nOpens); i++) {
    const c = text.charCodeAt(i);
    if (c === 92 /* \\ */) {
      i++;
      continue;
    }
    if (c === 123 /* { */) {
      while (next < nOpens && (boxOpens[next] as number) < i) next++; // (never: a box brace is not escaped)
      braceStack = room(braceStack, depth);
      if (next < nOpens && boxOpens[next] === i) {
        braceStack[depth++] = next++;
        pending++;
      } else braceStack[depth++] = -1;
    } else if (c === 125 /* } */) {
      if (depth === 0) continue;
      const k = braceStack[--depth] as number;
      if (k < 0) continue;
      pending--;
      const inner = text.slice((boxOpens[k] as number) + 1, i).trim();
      if (inner !== "") spans[n++] = { inner, start: boxStarts[k] as number, end: i + 1 };
    }
  }
  for (let k = 0; k < nBare; k++) {
    // `\boxed 5`: one token, up to whitespace, `$` or a closing delimiter.
    const i = bareStarts[k] as number;
    const b = BARE_BOX_RE.exec(text.slice(i, i + 200));
    if (b && b[0] !== "") spans[n++] = { inner: b[0], start: i, end: i + b[0].length };
  }
  spans.length = n;
  if (braceStack.length > SCRATCH_KEEP || boxOpens.length > SCRATCH_KEEP || bareStarts.length > SCRATCH_KEEP)
    releaseScratch();
  // in order of their starts (a box nested in a box closes first; the brace-less ones come last)
  let sorted = true;
  for (let k = 1; k < spans.length; k++)
    if ((spans[k] as BoxedSpan).start < (spans[k - 1] as BoxedSpan).start) sorted = false;
  if (!sorted) spans.sort((x, y) => x.start - y.start);
  // Drop boxes nested in an earlier (outer) box, in place: the kept ones move down.
  let kept = 0;
  for (let k = 0; k < spans.length; k++) {
    const sp = spans[k] as BoxedSpan;
    if (kept > 0 && sp.start < (spans[kept - 1] as BoxedSpan).end) continue;
    spans[kept++] = sp;
  }
  spans.length = kept;
  return spans;
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

/** How a span {@link stripDelimiters} changes starts (`*`, `$`, `\(`, `\[`) or ends (`*`, punctuation). */
const EDGE_FIRST = "*$\\";
const EDGE_LAST = "*.;,:\u3002\uff0c\uff1b";

/** Strips math delimiters and trailing punctuation around an extracted span. */
export function stripDelimiters(s: string): string {
  let t = s.trim();
  // nothing to strip at either end (`420`, `x+1`): the loop below would leave it as it is
  if (t !== "" && !EDGE_FIRST.includes(t[0] as string) && !EDGE_LAST.includes(t[t.length - 1] as string)) return t;
  for (let guard = 0; guard < 4; guard++) {
    const before = t;
    t = t.replace(/^\*+|\*+$/g, "").trim();
    if (!/(?:^|[^.])\.\.\.$/.test(t)) t = t.replace(/[.;,:\u3002\uff0c\uff1b]+$/, "").trim(); // an ellipsis is kept
    // one span only: `$5$ or $6$` keeps its delimiters (normalization drops them all)
    if (t.startsWith("$$") && t.endsWith("$$") && t.length >= 4 && !t.slice(2, -2).includes("$"))
      t = t.slice(2, -2).trim();
    else if (t.startsWith("$") && t.endsWith("$") && t.length >= 2 && !t.slice(1, -1).includes("$"))
      t = t.slice(1, -1).trim();
    else if (/^\\[([]/.test(t) && /\\[)\]]$/.test(t)) t = t.slice(2, -2).trim();
    if (t === before) break;
  }
  return t;
}

/**
 * The content of the last non-empty math span of `text` (`$..$`, `\(..\)` on one line; `$$..$$`, `\[..\]`;
 * a bare `\begin{pmatrix}…\end{pmatrix}` outside any span), or `null`. One left-to-right pass: a span's closer is searched once, and an opener whose closer is
 * missing disables that kind for the rest of the text, so a 1 MB text of unclosed `$$` stays linear.
 */
export function lastMathSpan(text: string): { inner: string; index: number } | null {
  // the last span as offsets [from, to) of its content; sliced once at the end
  let last: { from: number; to: number; index: number } | null = null;
  const dead = new Set<string>();
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) {
      const c = text.charCodeAt(k);
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false;
    }
    return true;
  };
  // the first line break at or after `k`; queries come in increasing order, so the searches add up to one pass
  let nlFrom = -1;
  let nlAt = -1;
  const nlAfter = (k: number): number => {
    if (k < nlFrom || k > nlAt) {
      nlFrom = k;
      nlAt = text.indexOf("\n", k);
      if (nlAt < 0) nlAt = text.length;
    }
    return nlAt;
  };
  const take = (open: number, from: number, closer: string, oneLine = false): number => {
    if (dead.has(closer)) return -1;
    const end = text.indexOf(closer, from);
    if (end < 0) {
      dead.add(closer);
      return -1;
    }
    if (!(oneLine && nlAfter(from) < end) && !blank(from, end)) last = { from, to: end, index: open };
    return end + closer.length;
  };
  // jump from one `\` or `$` to the next (a native search), not character by character
  const next = /[\\$]/g;
  for (let m = next.exec(text); m !== null; m = next.exec(text)) {
    const i = m.index;
    if (text.charCodeAt(i) === 92 /* \\ */) {
      const n = text[i + 1];
      if (n === "[" || n === "(") {
        const after = take(i, i + 2, n === "[" ? "\\]" : "\\)", n === "(");
        next.lastIndex = after > 0 ? after : i + 2;
      } else if (n === "b" && text.startsWith("\\begin{", i)) {
        // a matrix written without math delimiters, over several lines
        const env = /^\\begin\{([pbBvV]?matrix|array)\}/.exec(text.slice(i, i + 20));
        const closer = env ? `\\end{${env[1] ?? ""}}` : "";
        const end = env && !dead.has(closer) ? text.indexOf(closer, i) : -1;
        if (env && end < 0) dead.add(closer);
        if (end > 0) {
          last = { from: i, to: end + closer.length, index: i };
          next.lastIndex = end + closer.length;
        } else next.lastIndex = i + 2;
      } else next.lastIndex = i + 2; // an escaped character (`\$` is a dollar sign)
      continue;
    }
    if (text[i + 1] === "$") {
      const after = take(i, i + 2, "$$");
      next.lastIndex = after > 0 ? after : i + 2;
      continue;
    }
    // inline `$..$`: up to the next unescaped `$` on the same line
    let j = i + 1;
    for (;;) {
      const d = text.indexOf("$", j);
      const nl = nlAfter(j);
      if (d < 0 || nl < d) {
        j = nl;
        break;
      }
      // an escaped `\$` inside the span does not close it (an odd run of backslashes before it)
      let bs = 0;
      while (d - 1 - bs > i && text.charCodeAt(d - 1 - bs) === 92) bs++;
      if (bs % 2 === 1) {
        j = d + 1;
        continue;
      }
      j = d;
      break;
    }
    if (j < text.length && text[j] === "$") {
      if (!blank(i + 1, j)) last = { from: i + 1, to: j, index: i };
      next.lastIndex = j + 1;
    } else next.lastIndex = j;
  }
  if (last === null) return null;
  const { from, to, index } = last;
  return { inner: text.slice(from, to).trim(), index };
}

/** The strategies that read an answer at an explicit anchor; consecutive ones form one group. */
export const ANCHORED_STRATEGIES: ReadonlySet<ExtractStrategy> = new Set([
  "boxed",
  "final-answer",
  "answer-line",
  "gsm8k",
]);

type AnchoredStrategy = "boxed" | "final-answer" | "answer-line" | "gsm8k";
/** One bit per anchored strategy: a group of them is a 4-bit mask. */
const ANCHORED_BIT: Readonly<Record<AnchoredStrategy, number>> = {
  boxed: 1,
  "final-answer": 2,
  "answer-line": 4,
  gsm8k: 8,
};
/** The group of each mask, made once: {@link extractAnswer} then builds no `Set` per call. */
const GROUPS: (ReadonlySet<ExtractStrategy> | undefined)[] = [];
function anchoredGroupOf(mask: number): ReadonlySet<ExtractStrategy> {
  let g = GROUPS[mask];
  if (g === undefined) {
    const members = new Set<ExtractStrategy>();
    for (const [s, bit] of Object.entries(ANCHORED_BIT)) if (mask & bit) members.add(s as ExtractStrategy);
    GROUPS[mask] = g = members;
  }
  return g;
}

/** At most this many anchors are read from the end of a text (a text of 10 000 empty anchors stays linear). */
const MAX_ANCHOR_TRIES = 8;

/**
 * Where the answer after an anchor starts and ends: the rest of its line; when the line is empty (a
 * heading `**Final Answer**`, `【答案】` on its own line), the next non-empty line; a display span `$$…$$` /
 * `\[…\]` or a matrix environment that starts there is read to its end, across lines.
 */
function contentRange(text: string, from: number): [number, number] {
  let i = from;
  while (i < text.length && " \t*_:：".includes(text[i] as string)) i++;
  if (i >= text.length || text[i] === "\n" || text[i] === "\r") {
    // the next non-empty line (at most 3 line breaks and 400 characters further)
    let nl = 0;
    const stop = Math.min(text.length, i + 400);
    while (i < stop && /\s/.test(text[i] as string)) {
      if (text[i] === "\n" && ++nl > 3) break;
      i++;
    }
    while (i < text.length && (text[i] === "*" || text[i] === "_" || text[i] === "#")) i++;
  }
  const limit = Math.min(text.length, i + MAX_CONTENT_CHARS);
  const closer = text.startsWith("$$", i)
    ? "$$"
    : text.startsWith("\\[", i)
      ? "\\]"
      : text.startsWith("\\begin{", i)
        ? "\\end{"
        : null;
  if (closer !== null) {
    const c = text.indexOf(closer, i + 2);
    if (c > 0 && c < limit) {
      const close = closer === "\\end{" ? text.indexOf("}", c) + 1 : c + closer.length;
      const eol = text.indexOf("\n", close);
      return [i, Math.min(limit, eol < 0 ? text.length : eol)];
    }
  }
  const eol = text.indexOf("\n", i);
  return [i, Math.min(limit, eol < 0 ? text.length : eol)];
}

/** The answer stated after one anchor, or `null` when its words state none. */
function readAnchor(text: string, hit: AnchorHit): string | null {
  const [from, to] = contentRange(text, hit.end);
  if (from >= to) return null;
  const inner = lastBoxed(text.slice(from, to));
  if (inner !== null) return inner;
  return answerFrom(text, from, to, hit.anchor.strict === true);
}

/**
 * One group of anchored strategies: the anchor or box stated LAST in the text wins (a stated final
 * answer beats an earlier value); an anchor whose words state no answer (`the answer is correct`) is
 * passed over. With `pick: "first"` the first box wins over every anchor.
 */
function anchoredGroup(text: string, group: ReadonlySet<ExtractStrategy>, pick: BoxedPick): Extracted | null {
  const spans = group.has("boxed") ? allBoxed(text) : [];
  // the boxes' answers (the empty ones left out) and the last box with an answer
  // sized for every box (a push-grown array reserves 17 slots), trimmed to the answers
  const boxes = new Array<string>(spans.length);
  let n = 0;
  let lastBox: BoxedSpan | undefined;
  for (const b of spans) {
    const answer = stripDelimiters(b.inner);
    if (answer === "") continue;
    boxes[n++] = answer;
    lastBox = b;
  }
  boxes.length = n;
  if (pick === "first" && boxes.length > 0) return { answer: boxes[0] as string, strategy: "boxed", boxed: boxes };
  // only anchors stated after the last box can win over it: the text before it is not searched for them
  const hits = anchorHits(text, group, 8, lastBox ? lastBox.start + 1 : 0);
  let tries = 0;
  for (let h = hits.length - 1; h >= 0 && tries < MAX_ANCHOR_TRIES; h--) {
    const hit = hits[h] as AnchorHit;
    if (lastBox && lastBox.start >= hit.index) break; // the box is stated after (or inside) this anchor
    tries++;
    const raw = readAnchor(text, hit);
    const answer = raw === null ? "" : stripDelimiters(raw);
    if (answer !== "") return { answer, strategy: hit.anchor.strategy };
  }
  const answer = boxes[boxes.length - 1];
  return answer === undefined ? null : { answer, strategy: "boxed", boxed: boxes };
}

function byStrategy(text: string, s: ExtractStrategy): string | null {
  switch (s) {
    case "last-number":
      return lastAmount(text);
    case "last-math": {
      const span = lastMathSpan(text);
      return span ? span.inner : null;
    }
    case "whole": {
      const t = text.trim();
      // an empty or unreadable \boxed{} is an anchor that failed, not a bare answer;
      // words before a math span (`Answer $ 9 $`, `The sum is $..$`) introduce it: not a bare answer
      // an anchor without an answer (`Answer:`, `####`, `【答案】`) is not a bare answer either
      if (t.length > WHOLE_MAX_CHARS || t.includes("\n") || /\\(?:boxed|fbox)|answer\s*[:：]|####|答案/i.test(t))
        return null;
      return !isProse(t) && !/^[^$\\]*[A-Za-z]{2,}[^$\\]*(?:\$|\\[[(])/.test(t) ? t : null;
    }
    default:
      return null; // anchored strategies are read by anchoredGroup
  }
}

/**
 * Extracts the final answer from `text`. The strategies are tried in order; consecutive anchored strategies
 * (`boxed`, `final-answer`, `answer-line`, `gsm8k`) form one group in which the answer stated last in the
 * text wins; the first group or strategy that yields a non-empty answer wins. Returns `null` when none
 * does (the caller reports `no_answer`).
 *
 * Before extraction the text is prepared ({@link prepareText}): chat-template tokens and tags become line
 * breaks, `<answer>…</answer>` an `Answer:` line, and money `$` is told apart from math `$…$` (`dollars`).
 *
 * @param text completion (or reference) text, any length; every strategy is linear in it.
 * @param strategies order of strategies to try (default: {@link EXTRACT_STRATEGIES}).
 * @param pick which boxed answer the `boxed` strategy reads (`last`, default, or `first`); the result's
 *   `boxed` lists all of them so that a caller can apply an "all must agree" or "reject" policy.
 * @param dollars how `$` is read: `auto` (default), `math` or `money`.
 * @example extractAnswer("... #### 1,000", ["boxed", "gsm8k"]) // { answer: "1,000", strategy: "gsm8k" }
 * @example extractAnswer("She makes 9 * 2 = $18 every day.\nA: 18") // { answer: "18", strategy: "answer-line" }
 */
export function extractAnswer(
  text: string,
  strategies: readonly ExtractStrategy[] = EXTRACT_STRATEGIES,
  pick: BoxedPick = "last",
  dollars: DollarMode = "auto",
): Extracted | null {
  const t = prepareText(text, dollars);
  for (let k = 0; k < strategies.length;) {
    const s = strategies[k] as ExtractStrategy;
    if (ANCHORED_STRATEGIES.has(s)) {
      let mask = 0;
      while (k < strategies.length && ANCHORED_STRATEGIES.has(strategies[k] as ExtractStrategy))
        mask |= ANCHORED_BIT[strategies[k++] as AnchoredStrategy];
      const ex = anchoredGroup(t, anchoredGroupOf(mask), pick);
      if (ex) return ex;
      continue;
    }
    k++;
    const raw = byStrategy(t, s);
    if (raw === null) continue;
    const answer = stripDelimiters(raw);
    if (answer !== "") return { answer, strategy: s };
  }
  return null;
}
