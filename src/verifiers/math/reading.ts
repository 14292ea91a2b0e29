/**
 * Reading an answer out of the words that follow an anchor (`The answer is 72 clips.`, `A: $70,000 profit`,
 * `答案是 5 个`), with one linear token scanner: math spans, LaTeX commands, numbers, operators and
 * single letters are *math*; words of two or more letters (except math words such as `pi`, `sqrt`, `exp`)
 * and runs of CJK characters are *words*; `,` `;` `、` separate; `or` / `and` / `或` join; `.` `。` `!`
 * `?` end a sentence; currency signs and words (`€`, `¤` — a `$` written after its amount —, `元`, `euros`) are
 * *currency*: an amount followed by one is the answer of its sentence (`il restera 220 $ à payer dans 12 mois` →
 * `220`).
 */
import { canonicalUnit } from "./units.js";

/** Longest stretch of text read after one anchor (a longer answer is refused later as too long). */
export const MAX_CONTENT_CHARS = 12_001;

type Kind = "math" | "word" | "sep" | "conj" | "stop" | "cur";

interface Token {
  kind: Kind;
  start: number;
  end: number;
}

/** Words that are math: functions and constants written in plain text (`pi/2`, `sqrt(2)`, `exp(16)-1`). */
const MATH_WORDS = new Set([
  "pi",
  "sqrt",
  "exp",
  "ln",
  "log",
  "lg",
  "sin",
  "cos",
  "tan",
  "cot",
  "sec",
  "csc",
  "arcsin",
  "arccos",
  "arctan",
  "sinh",
  "cosh",
  "tanh",
  "inf",
  "infty",
  "infinity",
  "mod",
  "abs",
  "max",
  "min",
  "gcd",
  "lcm",
  "cbrt",
  "frac",
]);
/** Words that join two answers into an enumeration. */
const CONJ_WORDS = new Set(["or", "and", "et", "ou", "y", "o", "und", "oder", "e", "или", "и"]);
const CJK_CONJ = new Set(["或", "和", "及", "与", "或者"]);
/** Words after an anchor that say nothing about the answer (`the answer is correct`). */
const EMPTY_WORDS = new Set([
  "correct",
  "right",
  "wrong",
  "incorrect",
  "above",
  "below",
  "follows",
  "as",
  "this",
  "that",
  "clear",
  "obvious",
  "simple",
  "straightforward",
  "not",
  "unknown",
  "given",
  "shown",
  "boxed",
  "the",
  "in",
  "at",
  "from",
  "then",
  "still",
]);

const LATIN_RE = /[A-Za-z\u00C0-\u024F\u0370-\u03FF\u0400-\u04FF]/;
const CJK_RE = /[\u3040-\u30FF\u3400-\u4DBF\u4E00-\u9FFF\uAC00-\uD7AF\uF900-\uFAFF]/;
const OPERATOR_CHARS = new Set(
  "+-*/^=<>()[]{}|!_':%&\u2212\u00d7\u00f7\u00b7\u2264\u2265\u2260\u00b1\u221a\u03c0\u221e\u00b0\u2248",
);
const IGNORED = new Set('"\u201c\u201d\u00ab\u00bb`');
/** Currency signs (`¤` is a money `$` written after its amount, see `prepare.ts`) and words. */
const CURRENCY_CHARS = new Set("\u00a4\u20ac\u00a3\u00a5\u20b9\u20a9\u5143\u5186\u5757");
const CURRENCY_WORDS = new Set([
  "euro",
  "euros",
  "eur",
  "usd",
  "dollars",
  "dollar",
  "yuan",
  "yen",
  "rmb",
  "rupees",
  "francs",
  "pesos",
]);

/**
 * The matching `}` of every `{` of `s[from, to)` (escaped braces skipped), in one pass with a stack;
 * `-1` for a brace that never closes. Makes reading a group O(1) however many unclosed groups there are.
 */
function braceMatches(s: string, from: number, to: number): Int32Array {
  const close = new Int32Array(to - from).fill(-1);
  const stack: number[] = [];
  for (let j = from; j < to; j++) {
    const c = s.charCodeAt(j);
    if (c === 92 /* \\ */) j++;
    else if (c === 123) stack.push(j);
    else if (c === 125) {
      const o = stack.pop();
      if (o !== undefined) close[o - from] = j;
    }
  }
  return close;
}

/**
 * The tokens of `s[from, to)` (one line, usually), in order. Linear: every character is looked at a
 * bounded number of times (a math span's closer is searched once, within the line).
 */
function tokenize(s: string, from: number, to: number): Token[] {
  const out: Token[] = [];
  let i = from;
  let braces: Int32Array | undefined;
  // index after the balanced `{…}` group at `j` (or `j` when there is none; an unclosed brace alone)
  const skipGroup = (j: number): number => {
    if (s[j] !== "{") return j;
    braces ??= braceMatches(s, from, to);
    const c = braces[j - from] ?? -1;
    return c < 0 ? j + 1 : c + 1;
  };
  const push = (kind: Kind, start: number, end: number) => out.push({ kind, start, end });
  while (i < to) {
    const c = s[i] as string;
    if (c === " " || c === "\t" || c === "\r" || IGNORED.has(c)) {
      i++;
      continue;
    }
    if (c === "\n") {
      push("stop", i, i + 1);
      i++;
      continue;
    }
    if (c === "$") {
      const dbl = s[i + 1] === "$";
      const close = dbl ? s.indexOf("$$", i + 2) : s.indexOf("$", i + 1);
      const nl = dbl ? -1 : s.indexOf("\n", i + 1);
      if (close > 0 && close < to && (nl < 0 || nl > close)) {
        const end = close + (dbl ? 2 : 1);
        if (s.slice(i + (dbl ? 2 : 1), close).trim() !== "") push("math", i, end); // an empty span is nothing
        i = end;
        continue;
      }
      i += dbl ? 2 : 1;
      continue;
    }
    if (c === "\\") {
      const n = s[i + 1];
      // an escaped quote (`\"12\"`, JSON-escaped text) is a quote mark, not the umlaut accent `\"o`, `\"{o}`
      if (n === '"' && !/[A-Za-z{]/.test(s[i + 2] ?? "")) {
        i += 2;
        continue;
      }
      if (n === "(" || n === "[") {
        const close = s.indexOf(n === "(" ? "\\)" : "\\]", i + 2);
        if (close > 0 && close < to) {
          push("math", i, close + 2);
          i = close + 2;
          continue;
        }
      }
      let j = i + 1;
      while (j < to && /[A-Za-z]/.test(s[j] as string)) j++;
      if (j === i + 1) j = Math.min(to, i + 2); // an escaped character: `\{`, `\,`, `\%`
      const name = s.slice(i + 1, j);
      // the command's arguments: `\frac{1}{2}`, `\sqrt[3]{x}`, `\text{ cm}`
      for (let guard = 0; guard < 3; guard++) {
        while (j < to && s[j] === " ") j++;
        if (s[j] === "[" && name === "sqrt") {
          const close = s.indexOf("]", j);
          if (close > 0 && close < to) j = close + 1;
        }
        const k = skipGroup(j);
        if (k === j) break;
        j = k;
      }
      push("math", i, j);
      i = j;
      continue;
    }
    if ((c >= "0" && c <= "9") || (c === "." && /[0-9]/.test(s[i + 1] ?? ""))) {
      let j = i + 1;
      while (j < to) {
        const d = s[j] as string;
        if (d >= "0" && d <= "9") j++;
        else if ((d === "." || d === ",") && /[0-9]/.test(s[j + 1] ?? "")) j += 2;
        else break;
      }
      push("math", i, j);
      i = j;
      continue;
    }
    if (LATIN_RE.test(c)) {
      let j = i + 1;
      // letters, and an apostrophe inside a word (`it's`, `farmer’s`)
      while (
        j < to &&
        (LATIN_RE.test(s[j] as string) || ((s[j] === "'" || s[j] === "\u2019") && LATIN_RE.test(s[j + 1] ?? "")))
      )
        j++;
      const w = s.slice(i, j);
      const lw = w.toLowerCase();
      let kind: Kind;
      if (CONJ_WORDS.has(lw) && out.length > 0) kind = "conj";
      else if (CURRENCY_WORDS.has(lw)) kind = "cur";
      else if (w.length === 1) kind = w === "a" || w === "I" || (w === "A" && articleA(s, j, to)) ? "word" : "math";
      else if (MATH_WORDS.has(lw)) kind = "math";
      else kind = "word";
      push(kind, i, j);
      i = j;
      continue;
    }
    if (CURRENCY_CHARS.has(c)) {
      push("cur", i, i + 1);
      i++;
      continue;
    }
    if (CJK_RE.test(c)) {
      let j = i + 1;
      while (j < to && CJK_RE.test(s[j] as string) && !CURRENCY_CHARS.has(s[j] as string)) j++;
      push(CJK_CONJ.has(s.slice(i, j)) ? "conj" : "word", i, j);
      i = j;
      continue;
    }
    if (c === "," || c === ";" || c === "\uff0c" || c === "\u3001" || c === "\uff1b") {
      push("sep", i, i + 1);
      i++;
      continue;
    }
    if (c === "." || c === "\u3002" || c === "!" || c === "?" || c === "\uff01" || c === "\uff1f") {
      push("stop", i, i + 1);
      i++;
      continue;
    }
    if (OPERATOR_CHARS.has(c)) {
      push("math", i, i + 1);
      i++;
      continue;
    }
    push("word", i, i + 1); // anything else (`#`, `@`, emoji) ends a run of math
    i++;
  }
  return out;
}

/** `A` followed by a lowercase word that is not a connective: the article (`A total of 5`), not choice A. */
function articleA(s: string, j: number, to: number): boolean {
  const m = /^ +([a-z]{3,})/.exec(s.slice(j, Math.min(to, j + 40)));
  return m !== null && !["because", "since", "and", "for", "which", "with"].includes(m[1] ?? "");
}

/** A run of math tokens, `1, 2, or 3` included (separators and `or` between two math tokens). */
interface Run {
  start: number;
  end: number;
}

/** The runs of math among `toks[from..]` up to the first sentence end; stops at `stop` tokens when `sentence`. */
function runs(toks: Token[], sentence: boolean): Run[] {
  const out: Run[] = [];
  let cur: Run | null = null;
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k] as Token;
    if (t.kind === "math") {
      if (cur) cur.end = t.end;
      else cur = { start: t.start, end: t.end };
      continue;
    }
    if ((t.kind === "sep" || t.kind === "conj") && cur) {
      // joins only when more math follows (after further separators / conjunctions)
      let m = k + 1;
      while (m < toks.length && ((toks[m] as Token).kind === "sep" || (toks[m] as Token).kind === "conj")) m++;
      if (m < toks.length && (toks[m] as Token).kind === "math") {
        k = m - 1;
        continue;
      }
    }
    if (cur) {
      out.push(cur);
      cur = null;
    }
    if (t.kind === "stop" && sentence) break;
  }
  if (cur) out.push(cur);
  return out;
}

/** Trailing operators, separators and unclosed brackets cut off a run (`5 (` → `5`, `18 =` → `18`). */
function trimRun(s: string): string {
  let t = s.trim();
  for (let guard = 0; guard < 8; guard++) {
    const before = t;
    t = t.replace(/[\s,;:=+\-*/^([{|]+$/, "");
    let depth = 0;
    let lastOpen = -1;
    for (let i = 0; i < t.length; i++) {
      const c = t[i];
      if (c === "\\") {
        i++;
        continue;
      }
      if (c === "(" || c === "[") {
        if (depth === 0) lastOpen = i;
        depth++;
      } else if (c === ")" || c === "]") depth = Math.max(0, depth - 1);
    }
    if (depth > 0 && lastOpen >= 0 && !/[)\]]/.test(t.slice(lastOpen))) t = t.slice(0, lastOpen);
    t = t.trim();
    if (t === before) break;
  }
  return t;
}

/**
 * The answer stated in `s[from, to)`, the words after an anchor:
 * - it starts with math: that run of math (`72 clips.` → `72`; `72, since 48+24=72.` → `72`;
 *   `1, 2, or 3` → all of it; `$\frac{7}{3} \approx 2.33$.` → the span; `D. It cannot be A or B` → `D`);
 * - it starts with words (`The value of $x$ is 5.`): the last run of math of its first sentence (`5`),
 *   unless `strict` (an `A:` line must start with its answer);
 * - words only: the sentence itself, up to 200 characters, as a word answer (`Monday`, `无正确答案`), unless it
 *   says nothing (`correct`, `as follows`): then `null`.
 * @returns the raw answer text, or `null` when the words state no answer.
 */
export function answerFrom(s: string, from: number, to: number, strict = false): string | null {
  const end = Math.min(to, from + MAX_CONTENT_CHARS);
  const toks = tokenize(s, from, end);
  const first = toks.find((t) => t.kind !== "sep");
  if (!first || first.kind === "stop") return null;
  if (first.kind === "math" || first.kind === "conj") {
    const r = runs(toks.slice(toks.indexOf(first)), false)[0];
    if (!r) return null;
    // `x` between numbers is a times sign (`4/20 x 100`); after the last number it multiplies nothing
    const a = trimRun(
      s
        .slice(r.start, r.end)
        .replace(/(\d)\s+x\s+(?=\d)/g, "$1*")
        .replace(/(\d)\s+x$/, "$1"),
    );
    return a === "" ? null : withUnit(s, a, r, toks);
  }
  if (strict) return null;
  const rs = runs(toks, true);
  // an amount followed by its currency is the answer of the sentence, not a later number (`220 $ à payer dans 12 mois`)
  const last = rs.filter((r) => nextToken(toks, r.end)?.kind === "cur").pop() ?? rs[rs.length - 1];
  if (last) {
    const a = trimRun(s.slice(last.start, last.end));
    if (a !== "") return withUnit(s, a, last, toks);
  }
  // words only: a word answer, unless it says nothing
  const stop = toks.find((t) => t.kind === "stop");
  const sentence = s.slice(first.start, stop ? stop.start : (toks[toks.length - 1] as Token).end).trim();
  const words = toks.filter((t) => t.kind === "word" && (!stop || t.start < stop.start));
  if (words.length === 0 || sentence.length > 200 || !/[\p{L}]/u.test(sentence)) return null;
  if (words.every((w) => EMPTY_WORDS.has(s.slice(w.start, w.end).toLowerCase()))) return null;
  return sentence;
}

/** The first token that starts at or after `end` (tokens are in order). */
function nextToken(toks: Token[], end: number): Token | undefined {
  let lo = 0;
  let hi = toks.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((toks[mid] as Token).start < end) lo = mid + 1;
    else hi = mid;
  }
  return toks[lo];
}

/**
 * The answer `a` (the text of `run`) with the unit written right after it, so that normalization can compare units:
 * a currency (`72 €`, `220 $`, `18 dollars`), or a unit word (`72 cents`, `300 minutes`) that ends the clause (not
 * `5 miles per hour`, `5 hours and 30 minutes`). Other nouns (`72 clips`) are left out, as before.
 */
function withUnit(s: string, a: string, run: Run, toks: Token[]): string {
  if (a.endsWith("$")) return a; // a math span
  const t = nextToken(toks, run.end);
  if (t === undefined || (t.kind !== "cur" && t.kind !== "word")) return a;
  const w = s.slice(t.start, t.end);
  if (t.kind === "word") {
    const after = nextToken(toks, t.end);
    if (canonicalUnit(w) === undefined || (after !== undefined && after.kind !== "stop" && after.kind !== "sep"))
      return a;
  }
  return `${a} ${w}`;
}

/** Currency after an amount, for {@link lastAmount}. */
const AMOUNT_RE =
  /(?<![\d.,])(-?(?:\d{1,3}(?:[ .]\d{3})+(?:,\d+)?|\d+(?:[.,]\d+)*))[ \t]?(?:[\u00a4\u20ac\u00a3\u00a5\u20b9\u20a9\u5143\u5186\u5757]|(?:euros?|EUR|yuan|yen|RMB)(?![A-Za-z]))/g;

/**
 * The answer number of a text without an anchor: the last number ({@link lastNumber}), unless the sentence it ends
 * has an amount followed by its currency (`Sie zahlt insgesamt 45 € für 3 Bücher.` → `45`, `1 000,50 €` →
 * `1 000,50`); a unit word that ends the clause goes with it (`It takes 300 minutes.` → `300 minutes`).
 * Linear: the sentence is at most 400 characters back from the last number.
 */
export function lastAmount(text: string): string | null {
  const n = lastNumber(text);
  if (n === null) return null;
  const end = text.lastIndexOf(n) + n.length;
  let start = end - n.length;
  const floor = Math.max(0, start - 400);
  while (
    start > floor &&
    !/[!?\n\u3002]/.test(text[start - 1] as string) &&
    !/\.\s/.test(text.slice(start - 1, start + 1))
  )
    start--;
  let amount: { value: string; end: number } | null = null;
  AMOUNT_RE.lastIndex = 0;
  const sentence = text.slice(start, Math.min(text.length, end + 40));
  for (let m = AMOUNT_RE.exec(sentence); m !== null; m = AMOUNT_RE.exec(sentence))
    amount = { value: m[1] as string, end: start + m.index + (m[1] as string).length };
  if (amount !== null) return amount.value;
  const unit = /^[ \t]+([A-Za-z]{1,12})(?=[ \t]*(?:[.,;!?\n]|$))/.exec(text.slice(end, end + 20));
  return unit?.[1] !== undefined && canonicalUnit(unit[1]) !== undefined && unit[1].length > 1 ? `${n} ${unit[1]}` : n;
}

/**
 * Whether `s` reads as prose rather than a bare answer: two words in a row (`I am not sure`), a label
 * (`Total: 5`), or CJK text of two or more characters. Linear.
 */
export function isProse(s: string): boolean {
  const toks = tokenize(s, 0, s.length);
  let prev: Kind | undefined;
  for (const [k, t] of toks.entries()) {
    // a label (`Soucis : 2,74`, `Total: 5`): a word of two letters or more before a colon
    const next = toks[k + 1];
    if (
      t.kind === "word" &&
      t.end - t.start >= 2 &&
      next &&
      s[next.start] === ":" &&
      !CJK_RE.test(s[t.start] as string)
    )
      return true;
    if (t.kind === "word") {
      if (CJK_RE.test(s[t.start] as string) && t.end - t.start >= 2) return true;
      if (prev === "word" && t.end - t.start >= 2) return true;
      prev = t.end - t.start >= 2 ? "word" : undefined;
      continue;
    }
    prev = t.kind === "sep" && prev === "word" ? "word" : undefined;
  }
  return false;
}

const isDigitCode = (c: number): boolean => c >= 48 && c <= 57;

/**
 * The last number of `text` (`1,234`, `-3.5`, `7/8`), read as one token: `2,74` is `2,74` (a decimal comma
 * or a list, never `74`). Scans back from the end of the text: linear, and usually short. `null` when
 * there is none.
 */
export function lastNumber(text: string): string | null {
  let end = text.length - 1;
  while (end >= 0 && !isDigitCode(text.charCodeAt(end))) end--;
  if (end < 0) return null;
  // digits, with `.` or `,` between two digits
  let start = end;
  while (start > 0) {
    const c = text.charCodeAt(start - 1);
    if (isDigitCode(c)) start--;
    else if ((c === 46 || c === 44) && start >= 2 && isDigitCode(text.charCodeAt(start - 2))) start--;
    else if (c === 46 && !isDigitCode(text.charCodeAt(start - 2))) {
      start--; // `.5`
      break;
    } else break;
  }
  // a fraction `7/8` (the numerator before a slash)
  const frac = /(\d+(?:[.,]\d+)*)\s{0,3}\/\s{0,3}$/.exec(text.slice(Math.max(0, start - 40), start));
  if (frac && frac[1] !== undefined) start -= frac[0].length;
  if (text[start - 1] === "-") start--;
  return text.slice(start, end + 1);
}
