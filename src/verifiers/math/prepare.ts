/**
 * Text preparation before answer extraction, in one linear pass each:
 * - chat-template tokens (`<|im_start|>`, `<|im_end|>`, `<|eot_id|>`) and tags (`</think>`, `<eoa>`, `<eoe>`,
 *   `</s>`) become line breaks, so `<|im_start|>Answer: 5` is an `Answer:` line and `The answer is 72</think>`
 *   ends at `72`; `<answer>…</answer>` becomes an `Answer:` line;
 * - dollar signs that are money, not math, are blanked (see {@link maskCurrency}); one written after its amount
 *   (`220 $`) becomes `¤`, the currency sign, so that the reader prefers that amount;
 * - full-width forms (`７２`, `（Ｂ）`, `：`) become ASCII, narrow and no-break spaces plain spaces;
 * - options ruled out (`it can't be A or B`, `不是 A`) are blanked (see {@link maskExclusions}).
 */
import { maskExclusions } from "./exclusions.js";

/** How `$` is read: `auto` tells money from math; `math` is always a math delimiter; `money` never is. */
export type DollarMode = "auto" | "math" | "money";

/**
 * In one pass: a template token `<|im_start|>`; `<answer>` (with the blanks after it) and `</answer>`; a tag `<think>`, `</think>`, `<eoa>`, `</s>` — not `<<9*2=18>>` (GSM8K calculator notes).
 */
const MARKUP_RE = /<(?:\|[^|<>\n]{1,40}\|>|answer>[ \t]{0,8}\n?|\/?(?:[A-Za-z][A-Za-z0-9_-]{1,30}|s)>)/gi;

/**
 * Prepares a completion for extraction (linear in its length).
 * @param text the completion (or the part of it after `</think>`).
 * @param dollars how `$` is read (default `auto`).
 * @returns the text with template tokens and tags turned into line breaks and money `$` blanked; math
 *   delimiters are kept.
 * @example prepareText("He pays 3 * $12 = $36.\nA: $36") // "He pays 3 *  12 =  36.\nA:  36"
 */
export function prepareText(text: string, dollars: DollarMode = "auto"): string {
  let t = halfWidth(text);
  if (t.includes("<"))
    t = t.replace(MARKUP_RE, (m: string) => (m.length > 7 && /^<answer>/i.test(m) ? "\nAnswer: " : "\n"));
  if (dollars !== "math" && t.includes("$")) t = maskCurrency(t, dollars === "money");
  return maskExclusions(t);
}

const WIDE_RE = /[\uff01-\uff5e\u3000\u00a0\u202f\u2007]/g;

/**
 * Full-width ASCII forms (`７２`, `（Ｂ）`, `Ａｎｓｗｅｒ：`) as ASCII and the ideographic, no-break, narrow no-break
 * and figure spaces as spaces (French `1 000,50 €`); one character for one, so positions are kept.
 * @example halfWidth("\\boxed{７２}") // "\\boxed{72}"
 */
export function halfWidth(text: string): string {
  WIDE_RE.lastIndex = 0;
  if (!WIDE_RE.test(text)) return text;
  return text.replace(WIDE_RE, (c) => {
    const code = c.charCodeAt(0);
    return code >= 0xff01 && code <= 0xff5e ? String.fromCharCode(code - 0xfee0) : " ";
  });
}

const isSpace = (c: string | undefined): boolean => c === " " || c === "\t" || c === "\n" || c === "\r";
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";

/** Two words of two or more letters in a row (outside commands): prose, not math. Linear, bounded by `end`. */
function proseBetween(s: string, start: number, end: number): boolean {
  let words = 0;
  let i = start;
  const letter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  while (i < end) {
    const c = s.charCodeAt(i);
    if (c === 92 /* \\ */) {
      // a command and its name: not a word
      i++;
      while (i < end && letter(s.charCodeAt(i))) i++;
      words = 0;
      continue;
    }
    if (letter(c)) {
      let j = i;
      while (j < end && (letter(s.charCodeAt(j)) || s.charCodeAt(j) === 39)) j++;
      if (j - i >= 2) {
        if (++words >= 2) return true;
      } else words = 0;
      i = j;
      continue;
    }
    if (c !== 32 && c !== 44 /* , */) words = 0;
    i++;
  }
  return false;
}

/**
 * Whether `s[start, end)` holds something and no word: no run of two letters outside a command's name, nothing
 * outside ASCII. `12 `, `y = x+1 `, `\frac{1}{2} ` are; `5 and `, `12 € ` are not (money: `$5 and $`). Linear.
 */
function wordless(s: string, start: number, end: number): boolean {
  const letter = (i: number) => (s.charCodeAt(i) | 32) >= 97 && (s.charCodeAt(i) | 32) <= 122;
  let seen = false;
  let run = 0;
  for (let i = start; i < end;) {
    const c = s.charCodeAt(i);
    if (c > 126) return false;
    if (c > 32) seen = true;
    if (c === 92 /* \\ */) {
      // a command and its name: not a word
      i++;
      while (i < end && letter(i)) i++;
      run = 0;
      continue;
    }
    run = letter(i) ? run + 1 : 0;
    if (run >= 2) return false;
    i++;
  }
  return seen;
}

/** Whether `s[start, end)` ends with `+ - * / =` (spaces aside): a calculation cut by a money sign. */
function endsWithOperator(s: string, start: number, end: number): boolean {
  let i = end - 1;
  while (i >= start && isSpace(s[i])) i--;
  return i >= start && "+-*/=".includes(s[i] as string);
}

/**
 * Blanks the `$` signs of `text` that are money rather than math delimiters (linear; positions kept).
 *
 * Inline math `$…$` stays on one line, as in Markdown renderers (pandoc's rule): the closing `$` has a
 * non-space on its left (unless the opening one has a space on its right: `$ x $`) and no digit right after
 * it. A pair
 * that breaks the rule, whose content is prose (two words in a row, `$18 every day at the market, she
 * makes $`) or ends with an operator (`$28+$4`, `$1800/12=$150`), is not math: its first `$` is money (`$18`) and the second is tried as an opener. `$$…$$`
 * and escaped `\$` are left as they are.
 *
 * @param allMoney every single `$` is money (`style: gsm8k`).
 * @example maskCurrency("costs $12, so 3 * $12 = $36") // "costs  12, so 3 *  12 =  36"
 * @example maskCurrency("so $x = 5$ and $5$ dollars") // unchanged
 */
export function maskCurrency(text: string, allMoney = false): string {
  // the single `$` of the text (not `\$`, not part of `$$`), found once, left to right
  const dollars: number[] = [];
  for (let i = text.indexOf("$"); i >= 0; i = text.indexOf("$", i + 1)) {
    if (text[i - 1] === "\\") continue;
    if (text[i + 1] === "$") {
      i++;
      continue;
    }
    dollars.push(i);
  }
  if (dollars.length === 0) return text;
  const blank: number[] = [];
  let lineEnd = -1;
  for (let k = 0; k < dollars.length;) {
    const p = dollars[k] as number;
    if (allMoney) {
      blank.push(p);
      k++;
      continue;
    }
    if (p > lineEnd) {
      lineEnd = text.indexOf("\n", p);
      if (lineEnd < 0) lineEnd = text.length;
    }
    const q = dollars[k + 1];
    // pandoc's rule, with `$ x $` (a space inside on both sides) and `$12 $`, `$y = x+1 $` (a space before the
    // closer of a span without a word) also accepted; one line only
    const closes =
      q !== undefined &&
      q < lineEnd &&
      !isDigit(text[q + 1]) &&
      (!isSpace(text[q - 1]) || isSpace(text[p + 1]) || wordless(text, p + 1, q));
    // …and math does not end with a binary operator: `$28+$4`, `$1800/12=$150` are amounts
    if (closes && q !== undefined && !proseBetween(text, p + 1, q) && !endsWithOperator(text, p + 1, q)) {
      k += 2; // a math span
      continue;
    }
    blank.push(p);
    k++;
  }
  if (blank.length === 0) return text;
  // one copy of the text as UTF-16 code units, blanked in place (positions are kept); a sign written after its
  // amount (`220 $ à payer`, not `$220`) is kept as `¤`, the currency sign, for the reader
  const units = Buffer.from(text, "utf16le");
  for (const p of blank) {
    const after = isDigit(text[p - 1]) || (text[p - 1] === " " && isDigit(text[p - 2]));
    units.writeUInt16LE(after && !isDigit(text[p + 1]) && !isDigit(text[p + 2]) ? 0xa4 : 32, p * 2);
  }
  return units.toString("utf16le");
}
