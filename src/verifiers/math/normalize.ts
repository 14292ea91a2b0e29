import { plainTextMath } from "./plaintext.js";
import { halfWidth } from "./prepare.js";
import { canonicalUnit } from "./units.js";

/**
 * String-level LaTeX normalization of an extracted answer, before any parsing.
 *
 * What it does (in order): unicode symbols to LaTeX; strips math delimiters, `\boxed`, `\left`/`\right`
 * and sizing commands, `\displaystyle`; `\dfrac`/`\tfrac` to `\frac`; malformed `\frac12`, `\sqrt2`;
 * thousands separators written as `{,}`, `,\!` or `\,`; spacing commands; degrees (`^\circ`, `°`);
 * dollars (`\$`); `\%` to `%`; `\text{...}`-like wrappers (a fully wrapped answer is unwrapped and marked
 * as text; a word after a value is a unit and is dropped: `5\text{ cm}` → `5`); trailing bare units;
 * trailing punctuation; a lone integer with comma thousands separators (`1,000` → `1000`, but `1, 2`
 * and `(1,2)` stay lists); insignificant whitespace.
 *
 * Assignments (`x = 5`) are NOT removed here: whether `x=` may be dropped depends on the other side
 * (see `compare.ts`).
 */

/** A normalized answer: the normalized string and whether it was written as text (`\text{Monday}`). */
export interface Normalized {
  s: string;
  /** The whole answer was a `\text{}`-like wrapper (a word answer such as `\text{Monday}`). */
  text: boolean;
  /**
   * A degree sign was dropped: `angle` on a value (`30^\circ` → `30`); `unresolved` where a degree sign
   * in a trigonometric expression could not be converted to radians. Absent otherwise.
   */
  deg?: "angle" | "unresolved";
  /** The measurement unit dropped after the value (canonical: `cm`, `dollar`, …), when it is a known unit. */
  unit?: string;
}

export { unitDimension } from "./units.js";

const TRIG_RE = /\\(?:sin|cos|tan|cot|sec|csc)(?![a-zA-Z])/;
/** A degree sign: `^\circ`, `^{\circ}`, a bare `\circ` or `\degree`. */
const DEG_SIGN = String.raw`(?:\^\s*\{\s*\\circ\s*\}|\^\s*\\circ(?![a-zA-Z])|\\(?:circ|degree)(?![a-zA-Z]))`;
const DEG_SIGN_RE = new RegExp(DEG_SIGN, "g");
const HAS_DEG_RE = new RegExp(DEG_SIGN);
/** A number, a braced group or a variable (`x`, `\\theta`) of degrees in a trigonometric expression. */
const TRIG_DEG_RE = new RegExp(
  String.raw`(\d+(?:\.\d+)?|\{[^{}]*\}|\\(?!circ)[a-zA-Z]+|(?<![\\a-zA-Z])[a-zA-Z])\s*${DEG_SIGN}`,
  "g",
);
/** A degree sign before a comma (a list of angles). */
const DEG_LIST_RE = new RegExp(String.raw`${DEG_SIGN}\s*,\s*`, "g");
/** A degree word: `\text{ degrees}` anywhere, or `degrees` ending the answer after a value. */
const DEG_WORD_RE = /\\(?:text|mbox|mathrm|textrm)\s*\{\s*degrees?\s*\}|([\d}])\s*degrees?\s*$/gi;

/**
 * Degrees. In a trigonometric expression a number of degrees becomes radians (`\sin 60^\circ` →
 * `\sin(\frac{60}{180}\pi)`), and a degree sign that cannot be converted (`\sin x^\circ`) marks the answer
 * `unresolved`. Elsewhere the sign is dropped (`30^\circ` → `30`) and the answer marked as an `angle` in
 * degrees, so that a radian answer on the other side is not judged against the bare number.
 */
function degrees(input: string): { s: string; deg?: "angle" | "unresolved" } {
  const s = input.replace(DEG_WORD_RE, (_m, before: string | undefined) => `${before ?? ""}^\\circ`);
  if (!HAS_DEG_RE.test(s)) return { s };
  if (TRIG_RE.test(s)) {
    const t = s.replace(TRIG_DEG_RE, (_m, v: string) => `(\\frac{${v.startsWith("{") ? v.slice(1, -1) : v}}{180}\\pi)`);
    if (!HAS_DEG_RE.test(t)) return { s: t };
    return { s: t.replace(DEG_SIGN_RE, ""), deg: "unresolved" };
  }
  // `45^\circ,135^\circ` is a list of two angles, not the number 45135.
  return { s: s.replace(DEG_LIST_RE, ", ").replace(DEG_SIGN_RE, ""), deg: "angle" };
}

const UNICODE: [RegExp, string][] = [
  [/[\u2212\u2013\u2014\u2012]/g, "-"],
  [/\u00d7/g, "\\times "],
  [/[\u00b7\u22c5]/g, "\\cdot "],
  [/\u03c0/g, "\\pi "],
  [/\u221e/g, "\\infty "],
  [/\u00b1/g, "\\pm "],
  [/\u2213/g, "\\mp "],
  [/\u2264/g, "\\leq "],
  [/\u2265/g, "\\geq "],
  [/\u2260/g, "\\neq "],
  [/\u222a/g, "\\cup "],
  [/\u2229/g, "\\cap "],
  [/\u221a/g, "\\sqrt"],
  [/\u00b0/g, "^\\circ"],
  [/\u00a0/g, " "],
  [/\uff0c/g, ","],
  [/\u2248/g, "\\approx "],
  [/\u00b2/g, "^{2}"],
  [/\u00b3/g, "^{3}"],
];

const TEXT_CMDS = "text|textnormal|textbf|textit|textrm|textsf|texttt|mbox|mathrm|mathbf|mathit|mathsf|hbox|emph";
const WHOLE_TEXT_RE = new RegExp(`^\\\\(?:${TEXT_CMDS})\\s*\\{([^{}]*)\\}$`);
const TEXT_RE = new RegExp(`\\\\(?:${TEXT_CMDS})\\s*\\{([^{}]*)\\}(\\s*\\^\\s*\\{?\\s*[23]\\s*\\}?)?`, "g");

/** Unit words that may trail a numeric answer without a `\text{}` wrapper (`12 cm`, `5 dollars`). */
const BARE_UNITS =
  "square\\s+units|sq\\s+units|units?|square\\s+(?:feet|inches|meters|centimeters|cm|m|ft|in)|cubic\\s+\\w+|" +
  "cm|mm|km|m|(?:milli|centi|kilo)?met(?:er|re)s?|inch(?:es)?|in|feet|foot|ft|yd|yards?|mi|miles?|mph|kph|" +
  "dollars?|cents?|pennies|degrees?|hours?|hrs?|minutes?|mins?|seconds?|secs?|days?|weeks?|months?|years?|yrs?|" +
  "people|students|pounds?|lbs?|kg|(?:milli|kilo)?grams?|g|mg|(?:milli)?lit(?:er|re)s?|ml|ounces?|oz|gallons?|gal|" +
  "quarts?|qt|cups?|tons?|euros?|yuan|yen|rupees?|francs?|pesos?|usd|eur|rmb";
const TRAILING_UNIT_RE = new RegExp(`^(.*[\\d}])\\s+(?:${BARE_UNITS})(?:\\s*\\^\\s*\\{?[23]\\}?)?$`, "i");

const CURRENCY_SIGNS = "[¤€£¥₹₩¢]|元|円|块|\\\\euro(?![a-zA-Z])|\\\\pounds(?![a-zA-Z])|\\\\yen(?![a-zA-Z])";
const CURRENCY_RE = new RegExp(CURRENCY_SIGNS);
/** An amount followed by its sign: `12 €`, `1 000,50 €`, `50¢`. */
const CURRENCY_AFTER_RE = new RegExp(`(\\d)\\s*(${CURRENCY_SIGNS})`, "g");
/** A sign before an amount: `¥ 5`, `€12`. */
const CURRENCY_BEFORE_RE = new RegExp(`(${CURRENCY_SIGNS})\\s*(?=[-+]?[\\d.])`, "g");

/** Drops trailing `[\s.;,]` and leading `[\s,;]` (a loop, not a `+$` regex, which is quadratic). */
function trimPunctuation(s: string): string {
  let end = s.length;
  while (end > 0 && " \t\n\r.;,".includes(s[end - 1] as string)) end--;
  let start = 0;
  while (start < end && " \t\n\r,;".includes(s[start] as string)) start++;
  return s.slice(start, end);
}

/** Every character {@link UNICODE} replaces: a string without any is left as it is. */
const UNICODE_ANY =
  /[\u2212\u2013\u2014\u2012\u00d7\u00b7\u22c5\u03c0\u221e\u00b1\u2213\u2264\u2265\u2260\u222a\u2229\u221a\u00b0\u00a0\uff0c\u2248\u00b2\u00b3]/;

function unicodeToLatex(s: string): string {
  let t = halfWidth(s);
  if (!UNICODE_ANY.test(t)) return t;
  for (const [re, rep] of UNICODE) t = t.replace(re, rep);
  return t;
}

/** Removes `\boxed{...}` wrappers (keeping their content), balanced. */
function unbox(s: string): string {
  let t = s;
  for (let guard = 0; guard < 8; guard++) {
    const m = /\\(?:boxed|fbox)\s*\{/.exec(t);
    if (!m) break;
    const open = m.index + m[0].length - 1;
    let depth = 0;
    let close = -1;
    for (let i = open; i < t.length; i++) {
      if (t[i] === "\\") {
        i++;
        continue;
      }
      if (t[i] === "{") depth++;
      else if (t[i] === "}" && --depth === 0) {
        close = i;
        break;
      }
    }
    if (close < 0) break;
    t = t.slice(0, m.index) + t.slice(open + 1, close) + t.slice(close + 1);
  }
  return t;
}

/** An integer, a decimal or a fraction `\frac{1}{9}`, signed or not, and nothing else. */
const PLAIN_NUMBER_RE = /^-?(?:\d+(?:\.\d+)?|\\frac\{\d+\}\{\d+\})$/;

/**
 * Normalizes one answer string (already extracted). Pure, linear-ish in the input length.
 *
 * @returns the normalized string and a flag telling whether the answer was a `\text{}` word answer.
 * @example normalizeAnswer("\\$1{,}000.") // { s: "1000", text: false }
 * @example normalizeAnswer("5\\text{ cm}^2") // { s: "5", text: false }
 * @example normalizeAnswer("\\text{Monday}") // { s: "Monday", text: true }
 */
export function normalizeAnswer(input: string): Normalized {
  // A plain number (`42`, `-3.5`, `\frac{1}{9}`: most answers) is its own normalization: no step below changes it.
  if (PLAIN_NUMBER_RE.test(input)) return { s: input, text: false };
  // Runs of whitespace collapse first: later patterns then never backtrack over long blank runs.
  let s = unicodeToLatex(input).replace(/\s+/g, " ").trim();
  s = unbox(s);
  // A doubly escaped command (`\\frac`, from a twice-escaped string) outside matrices is the command.
  if (!s.includes("\\begin")) s = s.replace(/(?<!\\)\\\\(?=[a-zA-Z])/g, "\\");
  const dollar = /\\\$/.test(s);
  // Math delimiters anywhere (answers are short; `$` is also the dollar sign, dropped either way).
  s = s
    .replace(/\\[()[\]]/g, " ")
    .replace(/\\\$/g, " ")
    .replace(/\$/g, " ");
  s = s.replace(/\s+/g, " ").trim(); // runs of blanks left by the delimiters collapse (no backtracking over them later)
  s = s.replace(/\\(?:left|right|bigl|bigr|Bigl|Bigr|biggl|biggr|big|Big|bigg|Bigg)(?![a-zA-Z])\s*\.?/g, "");
  s = s.replace(/\\(?:displaystyle|textstyle|scriptstyle)(?![a-zA-Z])/g, " ");
  // `\lbrace 1, 3 \rbrace` is the set `\{1,3\}`; `\langle 1, 3 \rangle` a vector, compared as the tuple `(1,3)`.
  s = s.replace(/\\lbrace(?![a-zA-Z])\s*/g, "\\{").replace(/\s*\\rbrace(?![a-zA-Z])/g, "\\}");
  s = s.replace(/\\langle(?![a-zA-Z])\s*/g, "(").replace(/\s*\\rangle(?![a-zA-Z])/g, ")");
  s = s.replace(/\\[dtc]frac(?![a-zA-Z])/g, "\\frac");
  // Plain-text math: `pi/2`, `sqrt(2)`, `exp(16)-1`, `2*x` (LaTeX is left as it is).
  s = plainTextMath(s);
  // ASCII and named relations: != >= <= \lt \gt \ne.
  s = s.replace(/!=/g, "\\neq ").replace(/>=/g, "\\geq ").replace(/<=/g, "\\leq ");
  s = s
    .replace(/\\lt(?![a-zA-Z])/g, "<")
    .replace(/\\gt(?![a-zA-Z])/g, ">")
    .replace(/\\ne(?![a-zA-Z])/g, "\\neq");
  s = s.replace(/\\(?:le|leqslant)(?![a-zA-Z])/g, "\\leq").replace(/\\(?:ge|geqslant)(?![a-zA-Z])/g, "\\geq");
  s = s.replace(/\\(?:infinity|infin)(?![a-zA-Z])/g, "\\infty");
  // Definitions are statements of a value: `x \coloneqq 3`, `x := 3`, `x \coloneq 3`, `x ≔ 3` read as `x = 3`
  // (never as an assignment inside the CAS).
  s = s.replace(
    /\\(?:coloneqq|coloneq|Coloneqq|Coloneq|vcentcolon\s*=|mathrel\s*\{\s*:\s*=\s*\}|eqqcolon|eqcolon)(?![a-zA-Z])|:=|\u2254/g,
    "=",
  );
  // Thousands separators that LaTeX users write explicitly: 1{,}000, 1,\!000, 1\,000.
  s = s.replace(/(\d)\{,\}(?=\d{3}(?!\d))/g, "$1");
  s = s.replace(/(\d),\s*\\!\s*(?=\d{3}(?!\d))/g, "$1");
  s = s.replace(/(\d)\\[,!]\s*(?=\d{3}(?!\d))/g, "$1");
  s = s.replace(/\{,\}/g, ",");
  // Spacing commands.
  s = s
    .replace(/(?<!\\)\\[!,;:> ]/g, " ")
    .replace(/\\q?quad(?![a-zA-Z])/g, " ")
    .replace(/~/g, " ");
  // Degrees (radians inside trigonometric functions; elsewhere dropped and remembered).
  const d = degrees(s);
  s = d.s;
  // Percent.
  s = s.replace(/\\%/g, "%").replace(/\\text\s*\{\s*%\s*\}/g, "%");
  s = s.replace(/\\(?:text|mbox|mathrm)\s*\{\s*(?:percent)\s*\}/g, "%");
  // Percent written as a word after a value: `28 percent`, `28 pct`, `28 percentage`.
  s = s.replace(/([\d}])\s*(?:percent(?:age)?|pct)(?![a-zA-Z])/gi, "$1%");
  // Text wrappers.
  let text = false;
  let unit: string | undefined = dollar ? "dollar" : undefined;
  let compound = false;
  // A currency sign before or after an amount (`12 €`, `¥ 5`, `220 ¤`, `1 000,50 €`, `50¢`): dropped, remembered
  if (CURRENCY_RE.test(s)) {
    s = s.replace(CURRENCY_AFTER_RE, (_m, v: string, sign: string) => {
      unit ??= sign.startsWith("\\") ? "dollar" : canonicalUnit(sign);
      return v;
    });
    s = s.replace(CURRENCY_BEFORE_RE, (_m, sign: string) => {
      unit ??= sign.startsWith("\\") ? "dollar" : canonicalUnit(sign);
      return "";
    });
  }
  const whole = WHOLE_TEXT_RE.exec(s.trim());
  if (whole) {
    s = (whole[1] ?? "").trim();
    text = /[a-zA-Z]{2,}/.test(s) && !/\d/.test(s);
  } else {
    s = s.replace(TEXT_RE, (m: string, inner: string, pow: string | undefined, at: number, all: string) => {
      const c = inner.trim();
      if (c === "") return " ";
      if (/^(?:and|or|,)$/i.test(c)) return ",";
      if (/^[a-zA-Z]$/.test(c) || /^\([A-E]\)$/.test(c) || /^[\d.,\s+-]+$/.test(c)) return ` ${c} `;
      if (c === "%") return "%";
      if (/^[ap]\.?\s*m\.?$/i.test(c)) return ` ${c} `; // 4:30 \text{ p.m.}
      // a compound unit (`\text{km}/\text{h}`, `\text{m} \cdot \text{s}^{-1}`, `\text{ miles per hour}`) is not its first part
      if (/^\s*(?:\/|\\cdot|\^\s*\{?\s*-)/.test(all.slice(at + m.length)) || /\bper\b|\//.test(c)) compound = true;
      else unit ??= canonicalUnit(c + (pow ?? ""));
      return " "; // a unit or a word after a value
    });
  }
  s = s.replace(/\\(?:mathbf|mathrm|mathit|operatorname)\s*\{([^{}]*)\}/g, "$1");
  // Malformed fractions and roots: \frac12, \frac 59, \frac9{19}, \frac{9}2, \sqrt2.
  s = s.replace(/\\frac\s*(\d)\s*(\d)/g, "\\frac{$1}{$2}");
  s = s.replace(/\\frac\s*(\d)\s*\{/g, "\\frac{$1}{");
  s = s.replace(/\\frac\s*(\{[^{}]*\})\s*(\d)/g, "\\frac$1{$2}");
  s = s.replace(/\\sqrt\s*(\d)/g, "\\sqrt{$1}");
  // `\log_{10} 100`, `\log_2 8`: the base stays braced and a bare argument is bracketed (spaces are dropped later)
  s = s.replace(
    /\\log\s*_\s*(?:\{([^{}]+)\}|(\w))\s*(\d+(?:\.\d+)?|[a-zA-Z](?![a-zA-Z]))?/g,
    (_m, b?: string, c?: string, arg?: string) =>
      arg === undefined ? `\\log_{${b ?? c ?? ""}}` : `\\log_{${b ?? c ?? ""}}(${arg})`,
  );
  // A numeral written in base 10 (`72_{10}`) is the number.
  s = s.replace(/(?<![\w.\\])(\d+(?:\.\d+)?)_\{?10\}?(?![\w}])/g, "$1");
  s = s.replace(/_\{(\w+)\}(?!\()/g, (m: string, w: string, at: number, all: string) =>
    all.startsWith("\\log", Math.max(0, at - 4)) ? m : `_${w}`,
  );
  // Words "and"/"or" between answers act as commas (also glued between tuples: `(11,7)or(7,11)`).
  s = s.replace(/\s+(?:and|or)\s+/gi, ",").replace(/\)\s*or\s*\(/g, "),(");
  // Chinese 或 / 或者 ("or"), 和 / 与 / 及 ("and") and the enumeration comma 、 between answers likewise (`72或73`, `72、73`)
  s = s.replace(/\s*(?:或者|或|和|与|及|、)\s*/g, ",");
  // `\approx`: after an `=` chain it is a side note (`x = 1/3 \approx 0.33` → `x = 1/3`); alone it states the value.
  // an exact value followed by `\approx` and a decimal is the exact value (`\frac{7}{3} \approx 2.33`); after a
  // bare name it states the value (`x \approx 2.33` is `x = 2.33`); alone it is the value.
  if (s.includes("\\approx")) {
    const at = s.indexOf("\\approx");
    const before = s.slice(0, at).trim();
    if (before === "") s = s.slice(at + 7);
    else if (before.includes("=") || !/^[a-zA-Z](?:_\{?\w+\}?)?$|^\\[a-zA-Z]+$/.test(before)) s = before;
    else s = s.replace(/\\approx(?![a-zA-Z])/g, "=");
  }
  // A trailing ellipsis is an item of the list (`1, 2, 3, \ldots` is not `1, 2, 3`).
  s = s.replace(/,\s*(?:\.\.\.|\\[lc]?dots)\s*$/, ",\\ldots");
  // A set written with plain braces: `{1, 3}` (a lone `{...}` group with a top-level comma).
  if (/^\{[^{}]*,[^{}]*\}$/.test(s.trim())) s = `\\{${s.trim().slice(1, -1)}\\}`;
  // Mixed number written with a slash: `4 4/9` = 40/9 (a proper fraction only: `11 7/6` is not one).
  const mixed = /^([+-]?)(\d+) (\d+)\/(\d+)\s*(%?)$/.exec(s.trim());
  if (mixed && Number(mixed[3]) < Number(mixed[4]))
    s = `${mixed[1] === "-" ? "-" : ""}${mixed[2]}\\frac{${mixed[3]}}{${mixed[4]}}${mixed[5]}`;
  // A leading "x \in" (solution set membership).
  s = s.replace(/^\s*[a-zA-Z]\s*\\in(?![a-zA-Z])/, "");
  s = s.trim();
  if (!text) {
    const u = TRAILING_UNIT_RE.exec(s);
    // Not after an expression in variables: `16 m^{2}` ending `n^2 - 8mn + 16 m^{2}` is a variable.
    if (
      u &&
      u[1] !== undefined &&
      !/[a-zA-Z]/.test(u[1].replace(/^\s*[a-zA-Z]\w*\s*=/, "").replace(/\\[a-zA-Z]+/g, ""))
    ) {
      if (!/\bper\b|\//.test(s.slice(u[1].length))) unit ??= canonicalUnit(s.slice(u[1].length));
      s = u[1];
    }
  }
  s = trimPunctuation(s);
  // A lone integer with comma thousands separators; `1, 2` (space) is a list and `(1,2)` a tuple.
  if (/^[-+]?[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?\s*%?$/.test(s)) s = s.replace(/,/g, "");
  // Whitespace is significant only between two letters (`\cot x`, `4:30 p.m.` keeps nothing else).
  s = s.replace(/\s+/g, " ").replace(/ (?![a-zA-Z])|(?<![a-zA-Z]) /g, "");
  const out: Normalized = { s, text };
  if (d.deg !== undefined) out.deg = d.deg;
  if (unit !== undefined && !compound) out.unit = unit;
  return out;
}
