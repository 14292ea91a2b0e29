/**
 * Python string and `re` semantics that Google's IFEval checker relies on, in JavaScript. The checker is Python
 * (`google-research/instruction_following_eval`); a faithful port must count, strip and match as CPython does:
 *
 * - `\w` on a `str` pattern is a letter, a number or `_` (`str.isalnum()`), not JavaScript's ASCII `\w`;
 * - `\s` and `str.strip()` use Python's whitespace set (it includes U+001C–U+001F and U+0085, which JavaScript's
 *   `\s` and `trim()` do not; and excludes U+FEFF, which they include);
 * - `.` stops only at `\n` (JavaScript's also stops at `\r`, U+2028, U+2029);
 * - `^`/`$` under `re.MULTILINE` break only at `\n`;
 * - `str.isupper()`/`islower()`: at least one cased character, and none of the other case.
 *
 * Patterns below are written with these classes spelled out, so JavaScript's engine matches what CPython matches.
 */

/** Python's whitespace (`str.isspace()`), as the body of a character class. */
export const PY_SPACE =
  "\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
/** Python's `\s` as a character class. */
export const S = `[${PY_SPACE}]`;
/** Python's `\S`. */
export const NS = `[^${PY_SPACE}]`;
/** Python's `\w` (str patterns) as a character class: letters, numbers, underscore. */
export const W = "[\\p{L}\\p{N}_]";
/** Python's `\W`. */
export const NW = "[^\\p{L}\\p{N}_]";
/** Python's `\b`: a boundary between a `\w` and a non-`\w` character (or the text's edge). */
export const B = `(?:(?<=${W})(?!${W})|(?<!${W})(?=${W}))`;

const SPACE_RE = new RegExp(S, "u");

/** Is `ch` (one code point) whitespace for Python? */
export function isPySpace(ch: string): boolean {
  return SPACE_RE.test(ch);
}

/** Python `s.strip(chars)`: without `chars`, Python whitespace; with it, any of its characters. */
export function strip(s: string, chars?: string): string {
  return rstrip(lstrip(s, chars), chars);
}

/** Python `s.lstrip(chars)`. */
export function lstrip(s: string, chars?: string): string {
  const cps = [...s];
  let i = 0;
  while (i < cps.length && (chars === undefined ? isPySpace(cps[i]!) : chars.includes(cps[i]!))) i++;
  return cps.slice(i).join("");
}

/** Python `s.rstrip(chars)`. */
export function rstrip(s: string, chars?: string): string {
  const cps = [...s];
  let j = cps.length;
  while (j > 0 && (chars === undefined ? isPySpace(cps[j - 1]!) : chars.includes(cps[j - 1]!))) j--;
  return cps.slice(0, j).join("");
}

const UPPER = /[\p{Uppercase}]/u;
const LOWER = /[\p{Lowercase}]/u;
const TITLE = /\p{Lt}/u;

/** Python `str.isupper()`: there is a cased character and every cased character is upper case. */
export function isUpper(s: string): boolean {
  let cased = false;
  for (const ch of s) {
    if (LOWER.test(ch) || TITLE.test(ch)) return false;
    if (UPPER.test(ch)) cased = true;
  }
  return cased;
}

/** Python `str.islower()`: there is a cased character and every cased character is lower case. */
export function isLower(s: string): boolean {
  let cased = false;
  for (const ch of s) {
    if (UPPER.test(ch) || TITLE.test(ch)) return false;
    if (LOWER.test(ch)) cased = true;
  }
  return cased;
}

/** Number of code points (Python `len(str)`). */
export function pyLen(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Escapes a literal for use inside a JavaScript `u` regex. */
export function escapeRegex(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
}

/** Non-overlapping matches of `re` (global flag added when missing), as Python's `re.findall` without groups. */
export function findAll(s: string, re: RegExp): string[] {
  const g = re.global ? re : new RegExp(re.source, re.flags + "g");
  return Array.from(s.matchAll(g), (m) => m[0]);
}

/** Python `re.split(pattern, s)` for a pattern without capturing groups (pieces between matches). */
export function split(s: string, re: RegExp): string[] {
  const g = re.global ? re : new RegExp(re.source, re.flags + "g");
  const out: string[] = [];
  let last = 0;
  for (const m of s.matchAll(g)) {
    out.push(s.slice(last, m.index));
    last = m.index + m[0].length;
  }
  out.push(s.slice(last));
  return out;
}
