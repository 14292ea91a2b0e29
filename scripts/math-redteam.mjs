#!/usr/bin/env node
/**
 * Red-team generator for the math verifier: labelled (gold, pred, expected) pairs built from REAL gold
 * answers (MATH test, MATH-500, Qwen2.5-Math eval sets under ../shared/data).
 *
 * Each gold is classified by its shape (integer, fraction, radical, π multiple, tuple, interval, set, …);
 * for each shape the script writes
 *   (a) equivalent rewrites a model would plausibly produce (expected true): \dfrac/\frac/a÷b, exact
 *       decimals of terminating fractions, \sqrt{8} ↔ 2\sqrt{2}, reordered sums and lists, `x =` prefixes,
 *       units, \left( \right), degree signs, thousands separators, percent, spacing, π multiples,
 *       \cup parts in another order, boxed answers inside sentences, …
 *   (b) near misses (expected false): off by one, sign flips, another fraction, swapped tuples,
 *       open↔closed interval ends, a missing π or √, an extra or a missing list item, an exact gold
 *       rounded to 2 decimals, expressions in x that agree with the gold only for x > 0 (x|x| vs x²).
 * Labels hold by construction (each transform preserves, or changes, the value for every input).
 *
 * Usage (from the repository root, after `npm run build`):
 *   node scripts/math-redteam.mjs [--data ../shared/data] [--out pairs.jsonl] [--verify] [--show N] [--limit N]
 * --verify runs every pair through dist/verifiers/math and prints false positives (scored 1, expected
 * false), false negatives (scored 0, expected true) and unscorable pairs (null), by kind and shape.
 */
import { writeFileSync } from "node:fs";
import { loadGolds } from "./math-golds.mjs";

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const DATA = opt("--data", "../shared/data");
const OUT = opt("--out", null);
const SHOW = Number(opt("--show", "40"));
const LIMIT = Number(opt("--limit", "0"));

// ------------------------------------------------------------------------------------------------
// Golds.
const golds = loadGolds(DATA);

// ------------------------------------------------------------------------------------------------
// Helpers.
const box = (p) => `$\\boxed{${p}}$`;
const stripDollars = (s) => s.replace(/^\$+|\$+$/g, "").trim();
const gcd = (a, b) => (b === 0n ? (a < 0n ? -a : a) : gcd(b, a % b));

/** Top-level split on a separator character, respecting (), [], {}. */
function splitTop(s, sep = ",") {
  const out = [];
  let d = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "\\" && (s[i + 1] === "{" || s[i + 1] === "}")) {
      d += s[i + 1] === "{" ? 1 : -1;
      i++;
      continue;
    }
    if ("([{".includes(c)) d++;
    else if (")]}".includes(c)) d--;
    else if (c === sep && d === 0) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(s.slice(start).trim());
  return out;
}

/** Top-level signed terms of a sum: [{sign, body}]; null when not a plain sum. */
function termsTop(s) {
  const terms = [];
  let d = 0;
  let start = 0;
  let sign = "+";
  let i = 0;
  if (s[0] === "-" || s[0] === "+") {
    sign = s[0];
    start = i = 1;
  }
  for (; i < s.length; i++) {
    const c = s[i];
    if ("([{".includes(c)) d++;
    else if (")]}".includes(c)) d--;
    else if ((c === "+" || c === "-") && d === 0) {
      const prev = s.slice(0, i).trimEnd().slice(-1);
      if (prev === "" || "^_*/(=,+-".includes(prev) || /\\(cdot|times|pm)$/.test(s.slice(0, i).trimEnd())) continue;
      terms.push({ sign, body: s.slice(start, i).trim() });
      sign = c;
      start = i + 1;
    }
  }
  terms.push({ sign, body: s.slice(start).trim() });
  if (terms.some((t) => t.body === "")) return null;
  return terms;
}
const joinTerms = (ts) =>
  ts.map((t, k) => (k === 0 ? (t.sign === "-" ? `-${t.body}` : t.body) : ` ${t.sign} ${t.body}`)).join("");

/** Exact decimal of p/q when q has only the factors 2 and 5, else null. */
function exactDecimal(p, q) {
  let n = q;
  let k = 0;
  while (n % 2n === 0n) {
    n /= 2n;
    k++;
  }
  let m = 0;
  while (n % 5n === 0n) {
    n /= 5n;
    m++;
  }
  if (n !== 1n) return null;
  const digits = Math.max(k, m);
  const neg = p < 0n;
  const ap = neg ? -p : p;
  const scaled = (ap * 10n ** BigInt(digits)) / q;
  let s = scaled.toString().padStart(digits + 1, "0");
  if (digits > 0) s = `${s.slice(0, -digits)}.${s.slice(-digits)}`;
  return (neg ? "-" : "") + s;
}

const isPlainNumber = (s) => /^-?\d+(\.\d+)?$/.test(s);

// ------------------------------------------------------------------------------------------------
// Pair construction.
const out = [];
let currentGold = "";
let currentSource = "";
function P(kind, shape, pred, note, raw = false) {
  out.push({
    gold: currentGold,
    pred: raw ? pred : box(pred),
    expected: kind === "equivalent",
    shape,
    note,
    source: currentSource,
    kind,
  });
}
const T = (shape, pred, note, raw) => P("equivalent", shape, pred, note, raw);
const F = (shape, pred, note, raw) => P("near-miss", shape, pred, note, raw);

/** Value of a few exact shapes as a JS number (for rounding near misses), else null. */
function approx(c) {
  let m;
  if ((m = /^(-?)\\frac\{(\d+)\}\{(\d+)\}$/.exec(c))) return (m[1] ? -1 : 1) * (Number(m[2]) / Number(m[3]));
  if ((m = /^(\d*)\\sqrt\{(\d+)\}$/.exec(c))) return (m[1] ? Number(m[1]) : 1) * Math.sqrt(Number(m[2]));
  if ((m = /^\\frac\{(\d*)\\sqrt\{(\d+)\}\}\{(\d+)\}$/.exec(c)))
    return ((m[1] ? Number(m[1]) : 1) * Math.sqrt(Number(m[2]))) / Number(m[3]);
  if ((m = /^(\d*)\\pi$/.exec(c))) return (m[1] ? Number(m[1]) : 1) * Math.PI;
  if ((m = /^\\frac\{(\d*)\\pi\}\{(\d+)\}$/.exec(c))) return ((m[1] ? Number(m[1]) : 1) * Math.PI) / Number(m[2]);
  return null;
}

const SENTENCES = [
  (a) => `Putting everything together, the final answer is $\\boxed{${a}}$.`,
  (a) =>
    `We first simplify the expression step by step.\n\nAfter collecting terms we obtain the result.\n\nTherefore, the answer is $\\boxed{${a}}$.`,
  (a) => `**Answer:** $\\boxed{${a}}$`,
  (a) => `Thus the answer is \\(\\boxed{${a}}\\).`,
  (a) => `So we have \\[\\boxed{${a}}\\]`,
];

function generate(gold, source) {
  currentGold = gold;
  currentSource = source;
  const c = stripDollars(gold);
  if (c.length > 80 || c.includes("\\boxed") || /[$\n]|\\approx|\\cdots|\\ldots|[a-zA-Z]{4,}(?<!\\[a-zA-Z]*)/.test(c))
    return;
  // A gold with thousands separators (`10,\!080`, `58,500`) is one number, not a list.
  const thousands = /\d,(\\!)?\s?\d{3}(?!\d)/.test(c);
  let m;

  // Universal rewrites: boxed as is, full sentences, spacing.
  T("latex", c, "boxed as is");
  const si = [...c].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) >>> 0, 7) % SENTENCES.length;
  T("response", SENTENCES[si](c), `sentence ending in a boxed answer (${si})`, true);
  if (/[+=,]/.test(c) && !thousands && !/\\text|\\mbox|[a-zA-Z]\s+[a-zA-Z]/.test(c)) {
    const spaced = c.replace(/\s*([+=,])\s*/g, " $1 ");
    if (spaced !== c) T("latex", spaced, "spaces around operators");
    const tight = c.replace(/\s+/g, "");
    if (tight !== c && !/\\[a-zA-Z]+\s+[a-zA-Z0-9]/.test(c)) T("latex", tight, "spaces removed");
  }
  if (c.includes("\\dfrac")) T("fraction", c.replace(/\\dfrac/g, "\\frac"), "\\dfrac → \\frac");
  else if (c.includes("\\frac")) T("fraction", c.replace(/\\frac/g, "\\dfrac"), "\\frac → \\dfrac");
  if (c.includes("\\left") || c.includes("\\right"))
    T("latex", c.replace(/\\left(?![a-z])|\\right(?![a-z])/g, ""), "\\left/\\right dropped");

  // Integers.
  if ((m = /^(-?)(\d+)$/.exec(c))) {
    const n = BigInt(c);
    T("integer", `x = ${c}`, "x = prefix");
    T("integer", `${c} \\text{ units}`, "units word");
    T("integer", `${c}.00`, "trailing .00");
    if (m[2].length >= 4) {
      T("integer", m[1] + m[2].replace(/\B(?=(\d{3})+(?!\d))/g, ","), "comma thousands");
      T("integer", m[1] + m[2].replace(/\B(?=(\d{3})+(?!\d))/g, "{,}"), "{,} thousands");
      T("integer", m[1] + m[2].replace(/\B(?=(\d{3})+(?!\d))/g, "\\,"), "\\, thousands");
    }
    F("integer", String(n + 1n), "off by one (+1)");
    F("integer", String(n - 1n), "off by one (-1)");
    if (n !== 0n) F("integer", String(-n), "sign flipped");
    if (n !== 0n) F("integer", `${n}.5`, "extra half");
    if (m[2].length >= 4)
      F("integer", String(n * 10n).replace(/\B(?=(\d{3})+(?!\d))/g, ","), "extra digit with separators");
    if (n > 1n && n < 1000n) F("integer", `\\frac{${n}}{2}`, "halved");
    return;
  }

  // Decimals.
  if ((m = /^(-?)(\d*)\.(\d+)$/.exec(c))) {
    const [, s, ip, fp] = m;
    T("decimal", `${c}0`, "trailing zero");
    if (ip === "0") T("decimal", `${s}.${fp}`, "leading zero dropped");
    const den = 10n ** BigInt(fp.length);
    const num = BigInt(`${s}${ip || "0"}${fp}`);
    const g = gcd(num, den);
    if (den / g !== 1n)
      T("decimal", `${s}\\frac{${(num < 0n ? -num : num) / g}}{${den / g}}`, "exact fraction of the decimal");
    const last = Number(fp.slice(-1));
    F("decimal", `${s}${ip}.${fp.slice(0, -1)}${(last + 1) % 10}`, "last digit changed");
    if (!/^0*$/.test(ip + fp)) F("decimal", s ? `${ip}.${fp}` : `-${ip}.${fp}`, "sign flipped");
    return;
  }

  // Simple fractions.
  if ((m = /^(-?)\\[dt]?frac\{(\d+)\}\{(\d+)\}$/.exec(c))) {
    const [, s, p, q] = m;
    const P_ = BigInt(p);
    const Q = BigInt(q);
    T("fraction", `${s}${p}/${q}`, "slash");
    T("fraction", `${s}\\frac{${P_ * 3n}}{${Q * 3n}}`, "unreduced");
    if (s) T("fraction", `\\frac{-${p}}{${q}}`, "sign in the numerator");
    const dec = exactDecimal(s ? -P_ : P_, Q);
    if (dec) T("decimal", dec, "exact decimal of a terminating fraction");
    if (P_ > Q && Q > 1n) {
      const w = P_ / Q;
      const r = P_ % Q;
      if (r !== 0n && !s) T("fraction", `${w}\\frac{${r}}{${Q}}`, "mixed number");
    }
    if (P_ !== Q) F("fraction", `${s}\\frac{${q}}{${p}}`, "inverted");
    F("fraction", `${s}\\frac{${P_ + 1n}}{${q}}`, "numerator +1");
    F("fraction", `${s}\\frac{${p}}{${Q + 1n}}`, "denominator +1");
    F("fraction", s ? `\\frac{${p}}{${q}}` : `-\\frac{${p}}{${q}}`, "sign flipped");
    if (!dec) {
      const v = (s ? -1 : 1) * (Number(p) / Number(q));
      F("decimal", v.toFixed(2), "exact gold rounded to 2 decimals");
      F("decimal", v.toFixed(4), "exact gold rounded to 4 decimals");
    }
    return;
  }

  // Radicals a\sqrt{b}, \frac{a\sqrt{b}}{c}, \sqrt{b}.
  if ((m = /^(\d*)\\sqrt\{(\d+)\}$/.exec(c))) {
    const a = m[1] ? BigInt(m[1]) : 1n;
    const b = BigInt(m[2]);
    if (a > 1n) T("radical", `\\sqrt{${a * a * b}}`, "coefficient moved under the root");
    T("radical", `\\sqrt{${m[2]}}${m[1] ? `\\cdot ${m[1]}` : ""}`, "product reordered");
    if (m[2].length === 1) T("radical", `${m[1]}\\sqrt${m[2]}`, "\\sqrt without braces");
    else F("radical", `${m[1]}\\sqrt ${m[2]}`, "\\sqrt without braces is the root of the first digit only");
    if (m[1]) F("radical", m[1], "missing √ factor");
    F("radical", `${m[1]}\\sqrt{${b + 1n}}`, "radicand +1");
    F("radical", `${a * b}`, "root dropped (a·b)");
    F("decimal", approx(c).toFixed(2), "exact gold rounded to 2 decimals");
    F("radical", `-${c}`, "sign flipped");
    return;
  }
  if ((m = /^\\[dt]?frac\{(\d*)\\sqrt\{(\d+)\}\}\{(\d+)\}$/.exec(c))) {
    const [, a, b, q] = m;
    T("radical", `${a || 1}\\sqrt{${b}}/${q}`, "slash form");
    T("radical", `\\frac{${a || 1}}{${q}}\\sqrt{${b}}`, "coefficient fraction times root");
    T("radical", `\\frac{${a ? `${a} ` : ""}\\sqrt{${b}}}{${q}}`, "spacing");
    F("radical", `\\frac{${a}\\sqrt{${b}}}{${Number(q) + 1}}`, "denominator +1");
    F("radical", `\\frac{${a || 1}}{${q}}`, "missing √ factor");
    F("decimal", approx(c).toFixed(2), "exact gold rounded to 2 decimals");
    return;
  }

  // π multiples.
  if ((m = /^(\d*)\\pi$/.exec(c))) {
    T("pi-e", `\\pi \\cdot ${m[1] || 1}`, "product reordered");
    T("pi-e", `${m[1] || 1} \\times \\pi`, "\\times");
    F("pi-e", m[1] || "1", "missing π");
    F("decimal", approx(c).toFixed(2), "exact gold rounded to 2 decimals");
    F("pi-e", `${Number(m[1] || 1) + 1}\\pi`, "coefficient +1");
    return;
  }
  if ((m = /^(-?)\\[dt]?frac\{(\d*)\\pi\}\{(\d+)\}$/.exec(c))) {
    const [, s, a, q] = m;
    T("pi-e", `${s}\\frac{${a || 1}}{${q}}\\pi`, "fraction times π");
    T("pi-e", `${s}${a}\\pi/${q}`, "slash form");
    T("pi-e", `${s}\\frac{${a}\\pi}{${q}}`.replace(/\{\\pi\}/, "{\\pi}"), "plain \\frac");
    F("pi-e", `${s}\\frac{${a || 1}}{${q}}`, "missing π");
    F("pi-e", `${s}\\frac{${a}\\pi}{${Number(q) * 2}}`, "denominator doubled");
    if (!s) F("decimal", approx(c).toFixed(2), "exact gold rounded to 2 decimals");
    return;
  }

  // Degrees.
  if ((m = /^(-?\d+(?:\.\d+)?)\s*\^\s*\{?\\circ\}?$/.exec(c))) {
    T("degrees", m[1], "degree sign dropped");
    T("degrees", `${m[1]}°`, "unicode degree sign");
    T("degrees", `${m[1]} \\text{ degrees}`, "degrees word");
    F("degrees", `${Number(m[1]) + 1}^\\circ`, "off by one degree");
    if (Number(m[1]) !== 90) F("degrees", `${180 - Number(m[1])}^\\circ`, "supplement");
    return;
  }

  // Percent.
  if ((m = /^(\d+(?:\.\d+)?)\s*\\%$/.exec(c))) {
    T("percent", m[1], "percent sign dropped");
    T("percent", `${m[1]}%`, "bare %");
    F("percent", `${Number(m[1]) + 1}\\%`, "off by one percent");
    return;
  }

  // Text answers.
  if ((m = /^\\text\{\s*\(?([A-E])\)?\s*\}$/.exec(c))) {
    T("choice", `(${m[1]})`, "parenthesised letter");
    T("choice", m[1], "bare letter");
    F("choice", m[1] === "A" ? "(B)" : "(A)", "another letter");
    return;
  }
  if ((m = /^\\text\{\s*([A-Za-z][A-Za-z ]*?)\s*\}$/.exec(c))) {
    T("text", m[1], "\\text dropped");
    if (m[1].length > 1) T("text", m[1].toLowerCase(), "lower case");
    return;
  }

  // Tuples (a, b, …).
  if ((m = /^(?:\\left)?\((.*?)(?:\\right)?\)$/.exec(c)) && !/[[\]]/.test(c)) {
    const items = splitTop(m[1]);
    if (items.length >= 2 && items.every((x) => x !== "" && !/\\infty/.test(x))) {
      T("tuple", `\\left( ${items.join(", ")} \\right)`, "\\left( \\right)");
      T("tuple", `(${items.join(",")})`, "no spaces");
      if (items.every((x) => /^-?\d+$/.test(x))) {
        T("tuple", `(${items.map((x) => `${x}.0`).join(", ")})`, "decimal entries");
        F(
          "tuple",
          `(${items.map((x, k) => (k === items.length - 1 ? String(BigInt(x) + 1n) : x)).join(", ")})`,
          "last entry +1",
        );
      }
      if (items[0] !== items[1]) {
        const sw = [items[1], items[0], ...items.slice(2)];
        const vals = items.map((x) => (isPlainNumber(x) ? Number(x) : x));
        if (vals[0] !== vals[1]) F("tuple", `(${sw.join(", ")})`, "first two entries swapped");
      }
      F("tuple", `(${items.slice(0, -1).join(", ")})`, "last entry missing");
      if (/^-?\d+$/.test(items[0]) && items[0] !== "0")
        F(
          "tuple",
          `(${[items[0].startsWith("-") ? items[0].slice(1) : `-${items[0]}`, ...items.slice(1)].join(", ")})`,
          "first entry sign flipped",
        );
      return;
    }
  }

  // Intervals and unions.
  const parts = c.split(/\s*\\cup\s*/);
  const intervalRe = /^([([])\s*([^,]+?)\s*,\s*([^,]+?)\s*([)\]])$/;
  const ivs = parts.map((p) => intervalRe.exec(p.replace(/\\left|\\right/g, "").trim()));
  if (ivs.every((x) => x) && (parts.length > 1 || /\\infty|\[|\]/.test(c))) {
    const norm = ivs.map((x) => `${x[1]}${x[2]}, ${x[3]}${x[4]}`);
    if (parts.length > 1) {
      T("union", [...norm].reverse().join(" \\cup "), "union parts in another order");
      F("union", norm.slice(1).join(" \\cup "), "a part of the union missing");
    }
    T(
      "interval",
      norm.map((x) => `\\left${x[0]}${x.slice(1, -1)}\\right${x.slice(-1)}`).join(" \\cup "),
      "\\left \\right brackets",
    );
    // Flip one finite end.
    for (let k = 0; k < ivs.length; k++) {
      const x = ivs[k];
      const flipped = [...norm];
      if (!/infty/.test(x[2])) {
        flipped[k] = `${x[1] === "(" ? "[" : "("}${x[2]}, ${x[3]}${x[4]}`;
        F("interval", flipped.join(" \\cup "), "left end open↔closed");
        break;
      }
      if (!/infty/.test(x[3])) {
        flipped[k] = `${x[1]}${x[2]}, ${x[3]}${x[4] === ")" ? "]" : ")"}`;
        F("interval", flipped.join(" \\cup "), "right end open↔closed");
        break;
      }
    }
    if (parts.length === 1 && /infty/.test(c)) {
      const x = ivs[0];
      if (x[2] === "-\\infty" && !/infty/.test(x[3])) {
        T("inequality", `x ${x[4] === ")" ? "<" : "\\le"} ${x[3]}`, "inequality for a half-line");
        F("inequality", `x ${x[4] === ")" ? "\\le" : "<"} ${x[3]}`, "inequality with the other strictness");
        F("inequality", `x ${x[4] === ")" ? ">" : "\\ge"} ${x[3]}`, "inequality in the other direction");
      }
      if (x[3] === "\\infty" && !/infty/.test(x[2])) {
        T("inequality", `x ${x[1] === "(" ? ">" : "\\ge"} ${x[2]}`, "inequality for a half-line");
        F("inequality", `x ${x[1] === "(" ? "\\ge" : ">"} ${x[2]}`, "inequality with the other strictness");
      }
    }
    return;
  }

  // Sets \{a, b\}.
  if ((m = /^\\\{(.*)\\\}$/.exec(c))) {
    const items = splitTop(m[1]);
    if (items.length >= 2 && !m[1].includes("|") && !m[1].includes("\\mid")) {
      T("set", `\\{${[...items].reverse().join(", ")}\\}`, "set in another order");
      const extra = items.every((x) => /^-?\d+$/.test(x)) ? String(Math.max(...items.map(Number)) + 1) : "0";
      if (!items.includes(extra)) F("set", `\\{${[...items, extra].join(", ")}\\}`, "extra element");
      F("set", `\\{${items.slice(1).join(", ")}\\}`, "missing element");
      return;
    }
  }

  // Bare lists a, b, c (solution lists are unordered).
  if (!thousands && !/[=<>|&]|\\le|\\ge|\\text|\\in|\\cup|\\begin/.test(c) && !/^[([]/.test(c)) {
    const items = splitTop(c);
    if (
      items.length >= 2 &&
      items.length <= 8 &&
      new Set(items).size === items.length &&
      items.every((x) => x !== "" && !/^\d{3}$/.test(x))
    ) {
      T("list", [...items].reverse().join(", "), "list in another order");
      if (items.every((x) => /^-?\d+$/.test(x))) {
        const extra = String(Math.max(...items.map(Number)) + 1);
        F("list", [...items, extra].join(", "), "extra solution");
        T("list", `\\{${items.join(", ")}\\}`, "list as a braced set");
      } else if (!items.includes("0")) F("list", [...items, "0"].join(", "), "extra solution 0");
      F("list", items.slice(0, -1).join(", "), "a solution missing");
      if (items.length === 2 && items.every((x) => /^-?\d+$/.test(x)))
        T("list", items.map((x) => `x = ${x}`).join(" \\text{ or } "), "x = a or x = b");
      return;
    }
  }

  // Sums of terms (constant or with variables): reorder; flip a sign.
  const ts = termsTop(c);
  if (
    ts &&
    ts.length >= 2 &&
    !/\de[-+]?\d/.test(c) &&
    !/[=<>,;|&.]|\\le|\\ge|\\text|\\pm|\\in|\\cup|\\infty|\\begin|\\mathrm|\\mid|\\\\/.test(c)
  ) {
    const rev = [...ts].reverse();
    T("sum", joinTerms(rev), "terms reordered");
    const flip = ts.map((t, k) => (k === ts.length - 1 ? { ...t, sign: t.sign === "+" ? "-" : "+" } : t));
    F("sum", joinTerms(flip), "sign of the last term flipped");
    const lastNum = /^\d+$/.test(ts[ts.length - 1].body);
    if (lastNum) {
      const off = ts.map((t, k) => (k === ts.length - 1 ? { ...t, body: String(Number(t.body) + 1) } : t));
      F("sum", joinTerms(off), "constant term off by one");
    }
  }

  // Expressions in one variable: x^2 → x|x| (agrees only for x > 0), x^2 → |x|^2 (equal).
  const vars = new Set(c.replace(/\\[a-zA-Z]+/g, "").match(/[a-zA-Z]/g) ?? []);
  if (vars.size === 1 && !/[=<>,|]|\\text|\\in|\\cup|\\le|\\ge/.test(c)) {
    const v = [...vars][0];
    const sq = new RegExp(`${v}\\^(?:2|\\{2\\})(?![0-9])`);
    if (sq.test(c)) {
      F("variable", c.replace(sq, `${v}|${v}|`), `${v}^2 written as ${v}|${v}| (agrees for ${v} > 0 only)`);
      T("variable", c.replace(sq, `|${v}|^2`), `${v}^2 written as |${v}|^2`);
      F("variable", c.replace(sq, `${v}^3`), `square → cube`);
    }
    const cu = new RegExp(`${v}\\^(?:3|\\{3\\})(?![0-9])`);
    if (cu.test(c)) F("variable", c.replace(cu, `|${v}|^3`), `${v}^3 written as |${v}|^3`);
    if (new RegExp(`\\\\sqrt\\{${v}\\}`).test(c))
      T("variable", c.replace(new RegExp(`\\\\sqrt\\{${v}\\}`), `${v}^{1/2}`), "\\sqrt{x} as a power");
  }
}

for (const [g, src] of golds) generate(g, src);

// Dedupe, cap.
const seen = new Set();
let rows = out.filter((r) => {
  const k = `${r.gold}\u0000${r.pred}`;
  if (seen.has(k)) return false;
  seen.add(k);
  return true;
});
if (LIMIT > 0) rows = rows.slice(0, LIMIT);
if (OUT) writeFileSync(OUT, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");

const count = (xs, key) => {
  const o = {};
  for (const x of xs) o[key(x)] = (o[key(x)] ?? 0) + 1;
  return o;
};
console.log(
  `${golds.size} golds, ${rows.length} pairs`,
  count(rows, (r) => r.kind),
);
console.log(
  "by shape",
  count(rows, (r) => `${r.shape}:${r.kind === "equivalent" ? "T" : "F"}`),
);

if (args.includes("--verify")) {
  const { verifyMath } = await import(new URL("../dist/verifiers/math/index.js", import.meta.url).href);
  const fp = [];
  const fn = [];
  const un = [];
  for (const r of rows) {
    const res = await verifyMath(r.pred, r.gold);
    r.score = res.score;
    r.reason = res.reason;
    if (res.score === 1 && !r.expected) fp.push(r);
    else if (res.score === null && r.expected) un.push(r);
    else if (res.score === 0 && r.expected) fn.push(r);
  }
  const unAll = rows.filter((r) => r.score === null);
  console.log(
    `false positives: ${fp.length}; false negatives: ${fn.length}; unscorable (expected true): ${un.length}; unscorable (all): ${unAll.length}`,
  );
  const show = (title, xs) => {
    console.log(
      `\n== ${title} (${xs.length})`,
      count(xs, (r) => r.shape),
    );
    for (const r of xs.slice(0, SHOW))
      console.log(
        `  [${r.shape}] ${r.note} | gold ${JSON.stringify(r.gold)} | pred ${JSON.stringify(r.pred)} | ${r.reason ?? r.score}`,
      );
  };
  show("FALSE POSITIVES", fp);
  show("FALSE NEGATIVES", fn);
  show("UNSCORABLE (expected true)", un);
  if (args.includes("--json")) writeFileSync("/tmp/redteam-result.json", JSON.stringify({ fp, fn, un }, null, 1));
}
