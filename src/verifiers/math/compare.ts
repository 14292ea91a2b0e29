/**
 * Equivalence of two normalized answers: answer shapes (text, multiple choice, times, matrices, sets,
 * intervals and unions, tuples, solution lists, `\pm`), assignments and equations, then scalars through
 * the fast path (exact rationals) and the CAS.
 *
 * Assignment policy (as in Math-Verify's README, "equations and assignments: `x = 1` → 1"): `x = 5`
 * and `5` are equal when one side is a bare value and the other a single-variable assignment
 * (`x`, `y_1`, `\theta`, `f(x)` is not one); two assignments compare their right-hand sides when the
 * variables agree and are unequal otherwise; a chain `x = 2 + 3 = 5` predicted for a bare gold compares
 * its last member. Solution lists are unordered (`x=1, x=2` = `2, 1`); a prefix on the first item of a
 * list applies to all (`n=2,3,4`).
 */
import { casCompare, casCompareEquations, tooHeavy } from "./cas.js";
import { certainlyApart } from "./apart.js";
import { absoluteInequality, assignmentTuples, matrixArithmetic } from "./shapes.js";
import { splitTop } from "./split.js";
import { fastEval, ratEq, ratToNumber, rat, type FastResult, type Rational } from "./fast.js";
import { decimalBound, decimalPlaces } from "./verdict.js";
import type { CompareSettings, Outcome, Verdict } from "./verdict.js";

/** A parsed answer shape. */
type Node =
  | { kind: "scalar"; s: string }
  | { kind: "matrix"; rows: string[][] }
  | { kind: "set"; items: Node[]; braced: boolean } // unordered: \{..\} (braced), bare lists, \pm expansions
  | { kind: "seq"; open: string; close: string; items: Node[] } // ordered: (a,b), [a,b)
  | { kind: "union"; items: Node[] };

/** Index of the bracket closing the one opened at 0 (any of ( [ { with mixed closers for intervals). */
function enclosesWhole(s: string): boolean {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") {
      depth--;
      if (depth === 0 && i < s.length - 1) return false;
    }
  }
  return depth === 0;
}

const MATRIX_RE = /^\\begin\{([pbBvV]?matrix|array)\}(?:\{[^{}]*\})?([\s\S]*)\\end\{\1\}$/;
const ASSIGN_RE = /^([a-zA-Z](?:_\w+|_\{\w+\})?'?|\\[a-zA-Z]+(?:_\w+)?)=(?!=)(.*)$/;

function parseNode(s: string, depth = 0): Node {
  if (depth > 6) return { kind: "scalar", s };
  // a matrix wrapped in brackets or parentheses: `\left[\begin{array}..\end{array}\right]`
  const wrapped = /^[([](\\begin\{[\s\S]*\\end\{[a-zA-Z]+\})[)\]]$/.exec(s);
  if (wrapped && MATRIX_RE.test(wrapped[1] ?? "")) s = wrapped[1] ?? s;
  const m = MATRIX_RE.exec(s);
  if (m) {
    const rows = splitTop((m[2] ?? "").trim(), "\\\\")
      .map((r) => r.trim())
      .filter((r) => r !== "")
      .map((r) => splitTop(r, "&").map((c) => c.trim()));
    return { kind: "matrix", rows };
  }
  const u = splitTop(s, "\\cup");
  if (u.length > 1) return { kind: "union", items: u.map((p) => parseNode(p, depth + 1)) };
  if (s.startsWith("\\{") && s.endsWith("\\}")) {
    const inner = s.slice(2, -2);
    return { kind: "set", items: listItems(inner).flatMap((x) => expandPm(x, depth)), braced: true };
  }
  const open = s[0] ?? "";
  const close = s[s.length - 1] ?? "";
  if ((open === "(" || open === "[") && (close === ")" || close === "]") && enclosesWhole(s)) {
    let parts = splitTop(s.slice(1, -1), ",");
    if (parts.length === 1) parts = splitTop(s.slice(1, -1), ";"); // `(0;-2;6)`
    if (parts.length > 1) return { kind: "seq", open, close, items: parts.map((p) => parseNode(p.trim(), depth + 1)) };
  }
  const parts = splitTop(s, ",");
  if (parts.length > 1 || splitTop(s, ";").length > 1) {
    return { kind: "set", items: listItems(s).flatMap((x) => expandPm(x, depth)), braced: false };
  }
  const pm = expandPm(s, depth);
  if (pm.length > 1) return { kind: "set", items: pm, braced: false };
  return { kind: "scalar", s };
}

/** Items of a comma/semicolon list; a `var=` prefix on the first item applies to the whole list. */
function listItems(s: string): string[] {
  const items = splitTop(s, ",")
    .flatMap((x) => splitTop(x, ";"))
    .map((x) => x.trim())
    .filter((x) => x !== "");
  const first = ASSIGN_RE.exec(items[0] ?? "") ?? nameAssignment(items[0] ?? "");
  if (first && items.slice(1).every((x) => !x.includes("="))) items[0] = first[2] ?? "";
  return items.map((x) => {
    const a = ASSIGN_RE.exec(x) ?? nameAssignment(x);
    return a ? (a[2] ?? "") : x;
  });
}

/**
 * `NAME = value` where NAME is a name rather than an expression: letters, subscripts, `\frac` of names,
 * ratios `V_1:V_2`, tuples of names `(p,q)`, a length `|AB|`, a function's value `f(x)`, no operator and no
 * digit outside subscripts and arguments (`AB = 4`, `|CD| = 4`, `g(x) = 3`,
 * `\frac{NO}{BO} = \frac{1}{\sqrt6}`, `(p,q) = (3,2)`; not `2x + z = 1`, `a^2 + b = 0`). Only the
 * last `=` counts. Returns `[_, name, value]` like {@link ASSIGN_RE}, or `null`.
 */
function nameAssignment(s: string): [string, string, string] | null {
  const parts = splitTop(s, "=");
  if (parts.length !== 2) return null;
  const name = (parts[0] ?? "").trim();
  const value = (parts[1] ?? "").trim();
  if (name === "" || value === "" || name.length > 40) return null;
  // `|AB|` (a length) and `f(x)` / `g(2)` (a function's value) name a value too
  const fn = /^[a-zA-Z](?:_\{?\w+\}?)?'*\([a-zA-Z0-9\s,]+\)$/.test(name);
  const bare = fn
    ? "f"
    : name
        .replace(/^\|(.+)\|$/, "$1")
        .replace(/_\{?\w+\}?/g, "")
        .replace(/\\frac|\\overline|\\angle|[{}]/g, "");
  if (!/^[a-zA-Z:()\s,]+$/.test(bare) || !/[a-zA-Z]/.test(bare)) return null;
  if (/\(/.test(bare) && !/^\([a-zA-Z\s,]+\)$/.test(bare)) return null; // `f(x)+g(x) = …` is an equation
  return [s, name, value];
}

/** `a \pm b` → [`a+b`, `a-b`] (first occurrence, recursively); `\mp` likewise. */
function expandPm(s: string, depth: number): Node[] {
  const m = /\\(pm|mp)(?![a-zA-Z])/.exec(s);
  if (!m || depth > 4) return [parseNode(s, depth + 1)];
  const before = s.slice(0, m.index);
  const after = s.slice(m.index + m[0].length);
  const [first, second] = m[1] === "pm" ? ["+", "-"] : ["-", "+"];
  const wrap = (op: string) => (before.trim() === "" ? `${op === "-" ? "-" : ""}${after}` : `${before}${op}${after}`);
  return [...expandPm(wrap(first), depth + 1), ...expandPm(wrap(second), depth + 1)];
}

// ---------------------------------------------------------------------------------------------
// Special scalar shapes

const CHOICE_RE = /^\(?([A-J])\)?$/;
const PRED_CHOICE_RE = /^(?:\(([A-Ja-j])\).*|([A-Ja-j])(?:[\s:.)].*)?)$/;
const TIME_RE = /^(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([ap])?\.?\s*(?:m\.?)?$/i;
const HOUR_RE = /^(\d{1,2})\s*([ap])\.?\s*m\.?$/i;
const RATIO_RE = /^(\d+):(\d+)$/;
const BASE_RE = /^(-?)([0-9A-Za-z]+(?:\.[0-9A-Za-z]+)?)_(\d{1,2})$/;
const RELATION_RE = /<|>|\\[lg]eq?(?![a-zA-Z])|\\neq(?![a-zA-Z])/;

function textKey(s: string): string {
  return s
    .replace(/\\[a-zA-Z]+/g, " ")
    .replace(/[^a-zA-Z0-9]+/g, "")
    .toLowerCase();
}

/** A word answer: letters only, with at least one run of three letters (not `p-q`, `2k`). */
export function looksLikeText(s: string): boolean {
  return /^[a-zA-Z][a-zA-Z\s'\-.]*$/.test(s) && /[a-zA-Z]{3,}/.test(s);
}

function timeMinutes(s: string): { min: number; mer: string | undefined } | null {
  const hr = HOUR_RE.exec(s);
  if (hr) return Number(hr[1]) <= 12 ? { min: (Number(hr[1]) % 12) * 60, mer: hr[2]?.toLowerCase() } : null;
  const m = TIME_RE.exec(s);
  if (!m) return null;
  const h = Number(m[1]);
  const mi = Number(m[2]);
  if (h > 23 || mi > 59) return null;
  return { min: (h % 12) * 60 + mi, mer: m[4]?.toLowerCase() ?? (h >= 12 && h <= 23 && h !== 12 ? "p" : undefined) };
}

/** Value of a numeral in base 2..36 (`141_{13}`, `0.0011_2`) as an exact rational; null if invalid. */
function baseValue(s: string): Rational | null {
  const m = BASE_RE.exec(s);
  if (!m) return null;
  const base = BigInt(m[3] ?? "0");
  if (base < 2n || base > 36n) return null;
  const [ip = "", fp = ""] = (m[2] ?? "").toLowerCase().split(".");
  let n = 0n;
  for (const ch of ip + fp) {
    const d = BigInt(parseInt(ch, 36));
    if (d >= base) return null;
    n = n * base + d;
  }
  return rat(m[1] === "-" ? -n : n, base ** BigInt(fp.length));
}

/**
 * One-variable inequalities as intervals (`x > 2` → `(2,\infty)`, `-1 \le x < 3` → `[-1,3)`), so that an
 * inequality gold matches an interval prediction (Math-Verify's README: relations vs intervals).
 * Returns the input unchanged when it is not such an inequality.
 */
export function inequalityToInterval(s: string): string {
  if (s.length > 300 || !/[<>]|\\[lg]eq/.test(s)) return s; // the patterns below are not linear in long inputs
  // `-x > -1` is `x < 1`: a negated variable flips the relation and negates the bound.
  const neg = /^-([a-zA-Z])(<|>|\\leq|\\geq)(-?)(\d+(?:\.\d+)?|\\frac\{\d+\}\{\d+\})$/.exec(s);
  if (neg) {
    const flip: Record<string, string> = { "<": ">", ">": "<", "\\leq": "\\geq", "\\geq": "\\leq" };
    s = `${neg[1] ?? ""}${flip[neg[2] ?? ""] ?? ""}${neg[3] === "-" ? "" : "-"}${neg[4] ?? ""}`;
  }
  const op = String.raw`(<|>|\\leq|\\geq)`;
  // the variable: a letter, or a function value `f(x)`
  const v = String.raw`\s?([a-zA-Z](?:\([a-zA-Z]\))?)\s?`;
  const val = String.raw`([^<>=]+?)`;
  const lo = (o: string) => (o === "<" || o === ">" ? "(" : "[");
  const hi = (o: string) => (o === "<" || o === ">" ? ")" : "]");
  const two = new RegExp(`^${val}${op}${v}${op}${val}$`).exec(s);
  if (two) {
    const [, a = "", o1 = "", , o2 = "", b = ""] = two;
    const up1 = o1 === "<" || o1 === "\\leq";
    const up2 = o2 === "<" || o2 === "\\leq";
    if (up1 && up2) return `${lo(o1)}${a},${b}${hi(o2)}`;
    if (!up1 && !up2) return `${lo(o2)}${b},${a}${hi(o1)}`;
    return s;
  }
  const left = new RegExp(`^${v}${op}${val}$`).exec(s);
  const right = new RegExp(`^${val}${op}${v}$`).exec(s);
  let dir: "gt" | "lt" | undefined;
  let strict = true;
  let bound = "";
  if (left) {
    const o = left[2] ?? "";
    dir = o === ">" || o === "\\geq" ? "gt" : "lt";
    strict = o === ">" || o === "<";
    bound = left[3] ?? "";
  } else if (right) {
    const o = right[2] ?? "";
    dir = o === "<" || o === "\\leq" ? "gt" : "lt";
    strict = o === ">" || o === "<";
    bound = right[1] ?? "";
  }
  if (dir === undefined) return s;
  return dir === "gt" ? `${strict ? "(" : "["}${bound},\\infty)` : `(-\\infty,${bound}${strict ? ")" : "]"}`;
}

// ---------------------------------------------------------------------------------------------
// Scalars

function stripPercent(s: string): { s: string; pct: boolean } {
  return s.endsWith("%") ? { s: s.slice(0, -1), pct: true } : { s, pct: false };
}

const BALANCED_RE = /[{}()[\]]/g;
const BRACKET_RE = /[{}()[\]]/;
/**
 * Two binary operators in a row, or one that starts the answer (`3 + * 4`, `+ * /`, `* 2`): not an expression.
 * (A trailing operator is left alone: a unit dropped by normalization leaves `3.033/` of `3.033 \mathrm{km}/\mathrm{hr}`.)
 */
const BROKEN_RE = /[+*/^=]\s*[+*/^=]|^\s*[*/^=]/;
/**
 * Balanced brackets and no broken operators, so that string equality of two malformed answers is not
 * taken as a match (an answer that is neither a number, a parsable expression nor a word never scores 1).
 */
function wellFormed(s: string): boolean {
  if (BROKEN_RE.test(s)) return false;
  if (!BRACKET_RE.test(s)) return true; // no bracket to balance
  let d = 0;
  for (const m of s.matchAll(BALANCED_RE)) {
    d += m[0] === "{" || m[0] === "(" || m[0] === "[" ? 1 : -1;
    if (d < 0 && m[0] === "}") return false;
  }
  return s.split("{").length === s.split("}").length;
}

function candidates(v: Rational, pct: boolean, settings: CompareSettings): Rational[] {
  if (!pct || settings.percent === "strict") return [v];
  return [v, { n: v.n, d: v.d * 100n }].map((r) => rat(r.n, r.d));
}

function fastCompare(
  g: FastResult,
  p: FastResult,
  gp: boolean,
  pp: boolean,
  settings: CompareSettings,
  places: number,
): Outcome {
  if (g.kind !== "ok" || p.kind !== "ok") return "undecidable";
  const gs = candidates(g.value, gp, settings);
  const ps = candidates(p.value, pp, settings);
  for (const a of gs) for (const b of ps) if (ratEq(a, b)) return true;
  // A decimal reference is an approximation only against a non-decimal exact prediction (3.14 vs 22/7),
  // never against another decimal (13.18 vs 13.183 is wrong).
  if (g.decimal && !p.decimal) {
    let found = false;
    gs.forEach((a, i) => {
      for (const b of ps) {
        const x = ratToNumber(a);
        const y = ratToNumber(b);
        // the second candidate is the percent read as a fraction: two more places
        if (Math.abs(x - y) <= decimalBound(x, places + 2 * i, settings.relTol)) found = true;
      }
    });
    if (found) return true;
  }
  return false;
}

const DECIMAL_RE = /^[-+]?\d*\.\d+%?$/;

/** Two numbers compared as exact rationals (`fast.ts`), or `undefined` when one does not read as one. */
function exactEq(
  g: { s: string; pct: boolean },
  p: { s: string; pct: boolean },
  settings: CompareSettings,
): Verdict | undefined {
  const gf = fastEval(g.s, settings.maxBits);
  const pf = fastEval(p.s, settings.maxBits);
  if (gf.kind === "too-big" || pf.kind === "too-big") return { outcome: "undecidable", method: "fast" };
  if (gf.kind === "ok" && pf.kind === "ok")
    return { outcome: fastCompare(gf, pf, g.pct, p.pct, settings, decimalPlaces(g.s)), method: "fast" };
  return undefined;
}

/** An integer or a decimal, signed or not: no shape, assignment, unit or percent to read. */
const PLAIN_NUMBER_RE = /^-?\d+(?:\.\d+)?$/;

/** Compares two scalar (non-list) normalized answers. */
function scalarEq(gold: string, pred: string, settings: CompareSettings): Verdict {
  if (gold === pred && wellFormed(gold)) return { outcome: true, method: "string" };
  // Multiple choice.
  const gc = CHOICE_RE.exec(gold);
  if (gc) {
    const pc = PRED_CHOICE_RE.exec(pred);
    return { outcome: pc !== null && (pc[1] ?? pc[2] ?? "").toUpperCase() === gc[1], method: "string" };
  }
  // A bare choice letter against a gold without letters.
  if (CHOICE_RE.test(pred) && !/[a-zA-Z]/.test(gold)) return { outcome: false, method: "string" };
  // Times of day (a time never equals a non-time).
  const gt = timeMinutes(gold);
  const pt = timeMinutes(pred);
  if (gt || pt) {
    const okMer = !gt || !pt || gt.mer === undefined || pt.mer === undefined || gt.mer === pt.mer;
    return { outcome: gt !== null && pt !== null && pt.min === gt.min && okMer, method: "string" };
  }
  // Ratios a:b compare as fractions; a ratio never equals a non-ratio.
  const gr = RATIO_RE.exec(gold);
  const pr = RATIO_RE.exec(pred);
  if (gr || pr) {
    if (!gr || !pr || pr[2] === "0" || gr[2] === "0") return { outcome: false, method: "fast" };
    return {
      outcome: ratEq(rat(BigInt(gr[1] ?? "0"), BigInt(gr[2] ?? "1")), rat(BigInt(pr[1] ?? "0"), BigInt(pr[2] ?? "1"))),
      method: "fast",
    };
  }
  // Numerals with a base subscript: both sides must be written in a base, values equal.
  const gb = baseValue(gold);
  const pb = baseValue(pred);
  if (gb || pb)
    return {
      outcome: gb !== null && pb !== null && ratEq(gb, pb) && gold.split("_")[1] === pred.split("_")[1],
      method: "fast",
    };
  // Relations that are not one-variable inequalities: equal only as identical strings.
  if (RELATION_RE.test(gold) || RELATION_RE.test(pred)) return { outcome: false, method: "string" };
  // Assignments and equations.
  const ga = ASSIGN_RE.exec(gold);
  const pa = ASSIGN_RE.exec(pred);
  if (ga && pa) {
    if (ga[1] !== pa[1]) return { outcome: false, method: "string" };
    return scalarEq(ga[2] ?? "", pa[2] ?? "", settings);
  }
  if (ga && !pred.includes("=")) return scalarEq(ga[2] ?? "", pred, settings);
  if (pa && !gold.includes("=")) {
    const chain = (pa[2] ?? "").split("=");
    return scalarEq(gold, chain[chain.length - 1] ?? "", settings);
  }
  const geq = splitTop(gold, "=");
  const peq = splitTop(pred, "=");
  if (geq.length === 2 && peq.length === 2) {
    return casCompareEquations([geq[0] ?? "", geq[1] ?? ""], [peq[0] ?? "", peq[1] ?? ""], settings);
  }
  if (geq.length === 1 && peq.length > 1) return scalarEq(gold, peq[peq.length - 1] ?? "", settings);
  if (geq.length > 1) return { outcome: false, method: "string" };
  // Infinities: only equal as strings.
  if (/\\infty/.test(gold) || /\\infty/.test(pred)) {
    const f = (x: string) => x.replace(/^\+/, "");
    return { outcome: f(gold) === f(pred), method: "string" };
  }
  // Numbers.
  const g = stripPercent(gold);
  const p = stripPercent(pred);
  const exact = exactEq(g, p, settings);
  if (exact !== undefined) return exact;
  // CAS (percent becomes a division by 100 on the percent side, per the percent policy).
  const goldPlaces = DECIMAL_RE.test(gold) && !DECIMAL_RE.test(pred) ? decimalPlaces(g.s) : null;
  // Two numbers with radicals or π whose values are far apart: the CAS would say `false` (apart.ts); not loaded.
  if (!g.pct && !p.pct && goldPlaces === null && !tooHeavy(g.s) && !tooHeavy(p.s) && certainlyApart(g.s, p.s))
    return { outcome: false, method: "fast" };
  const variants = (x: { s: string; pct: boolean }) =>
    x.pct && settings.percent === "equal-fraction" ? [x.s, `\\frac{${x.s}}{100}`] : [x.s];
  let best: Verdict | undefined;
  const golds = variants(g);
  for (let i = 0; i < golds.length; i++)
    for (const b of variants(p)) {
      const v = casCompare(golds[i]!, b, goldPlaces === null ? null : goldPlaces + 2 * i, settings);
      if (v.outcome === true) return v;
      if (best === undefined || (best.outcome === false && v.outcome !== false)) best = v;
    }
  return best ?? { outcome: "undecidable", method: "cas" };
}

// ---------------------------------------------------------------------------------------------
// Nodes

function combine(vs: Verdict[]): Verdict {
  const method =
    vs.find((v) => v.method === "sampling")?.method ??
    vs.find((v) => v.method === "cas")?.method ??
    vs[0]?.method ??
    "string";
  for (const v of vs) if (v.outcome === false) return { outcome: false, method: v.method };
  for (const v of vs) if (v.outcome !== true) return v;
  return { outcome: true, method };
}

function unorderedEq(gs: Node[], ps: Node[], settings: CompareSettings): Verdict {
  if (gs.length !== ps.length) return { outcome: false, method: "string" };
  const used = new Array<boolean>(ps.length).fill(false);
  const found: Verdict[] = [];
  for (const g of gs) {
    let hit: Verdict | undefined;
    let unsure: Verdict | undefined;
    for (let j = 0; j < ps.length; j++) {
      if (used[j]) continue;
      const v = nodeEq(g, ps[j] as Node, settings);
      if (v.outcome === true) {
        used[j] = true;
        hit = v;
        break;
      }
      if (v.outcome !== false) unsure ??= v;
    }
    if (!hit) return unsure ?? { outcome: false, method: "string" };
    found.push(hit);
  }
  return combine(found);
}

/** A set's items without exact repetitions (`(3,17,3,7)` listed twice is one element). */
function dedupe(items: Node[]): Node[] {
  const seen = new Set<string>();
  return items.filter((n) => {
    const k = JSON.stringify(n);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** `z = 1 + 1 = 2` → `z=2`; `1 = y = 0` → `0`: a chain of three or more members keeps its last member. */
function collapseChain(s: string): string {
  if (!s.includes("=") || splitTop(s, ",").length > 1 || splitTop(s, ";").length > 1) return s;
  const parts = splitTop(s, "=");
  if (parts.length < 3) return s;
  const first = (parts[0] ?? "").trim();
  const last = (parts[parts.length - 1] ?? "").trim();
  return ASSIGN_RE.test(`${first}=0`) ? `${first}=${last}` : last;
}

/** `1000,99` read with a decimal comma, when the other side is a decimal number (`1000.99`). */
function decimalComma(s: string, other: string): string {
  return /^-?\d+,\d+$/.test(s) && /^-?\d*\.\d+$/.test(other) ? s.replace(",", ".") : s;
}

function orderedEq(gs: Node[], ps: Node[], settings: CompareSettings): Verdict {
  if (gs.length !== ps.length) return { outcome: false, method: "string" };
  const vs: Verdict[] = [];
  for (let i = 0; i < gs.length; i++) {
    const v = nodeEq(gs[i] as Node, ps[i] as Node, settings);
    if (v.outcome === false) return v;
    vs.push(v);
  }
  return combine(vs);
}

function nodeEq(g: Node, p: Node, settings: CompareSettings): Verdict {
  if (g.kind === "scalar" && p.kind === "scalar") return scalarEq(g.s, p.s, settings);
  if (g.kind === "matrix" || p.kind === "matrix") {
    if (g.kind !== "matrix" || p.kind !== "matrix") return { outcome: false, method: "string" };
    if (g.rows.length !== p.rows.length) return { outcome: false, method: "string" };
    const gs: Node[] = [];
    const ps: Node[] = [];
    for (let r = 0; r < g.rows.length; r++) {
      const gr = g.rows[r] as string[];
      const pr = p.rows[r] as string[];
      if (gr.length !== pr.length) return { outcome: false, method: "string" };
      gr.forEach((c) => gs.push({ kind: "scalar", s: c }));
      pr.forEach((c) => ps.push({ kind: "scalar", s: c }));
    }
    return orderedEq(gs, ps, settings);
  }
  if (g.kind === "union" || p.kind === "union") {
    if (g.kind !== "union" || p.kind !== "union") return { outcome: false, method: "string" };
    return unorderedEq(g.items, p.items, settings);
  }
  if (g.kind === "seq" && p.kind === "seq") {
    if (g.open !== p.open || g.close !== p.close) return { outcome: false, method: "string" };
    return orderedEq(g.items, p.items, settings);
  }
  if (g.kind === "set" && p.kind === "set") return unorderedEq(dedupe(g.items), dedupe(p.items), settings);
  // A tuple gold and a bare list prediction (or the reverse): same order required. A set written with
  // braces (`\{1,3\}`, `{1,3}`) is a set, never a tuple: `(1,3)` ≠ `\{1,3\}` in either direction.
  if (g.kind === "seq" && p.kind === "set" && !p.braced && g.open === "(" && g.close === ")")
    return orderedEq(g.items, p.items, settings);
  if (g.kind === "set" && !g.braced && p.kind === "seq" && p.open === "(" && p.close === ")")
    return unorderedEq(g.items, p.items, settings);
  return { outcome: false, method: "string" };
}

/** The indirect shapes of `shapes.ts`: assignment groups as tuples, `|x|` inequalities, matrix arithmetic. */
function rewriteShapes(s: string): string {
  return matrixArithmetic(absoluteInequality(assignmentTuples(s)));
}

/**
 * Compares a normalized gold answer with a normalized prediction.
 * A prediction listing several values against a single-valued gold is `multiple_answers` (scored 0).
 *
 * @param gold normalized reference (see `normalizeAnswer`); `goldText` marks a `\text{}` word answer.
 * @param pred normalized prediction; `predText` likewise.
 * @returns the outcome (`true`/`false`/`undecidable`/`parse_error`) and the method that decided it.
 * @throws NeedCas when the CAS is needed and not loaded yet (the caller loads it and retries).
 */
export function compareAnswers(
  gold: string,
  pred: string,
  goldText: boolean,
  predText: boolean,
  settings: CompareSettings,
): Verdict {
  if (gold === pred && wellFormed(gold)) return { outcome: true, method: "string" };
  // two plain numbers (most wrong answers): every step below leaves them as they are and reaches the exact
  // comparison of scalarEq's numbers
  if (!goldText && !predText && PLAIN_NUMBER_RE.test(gold) && PLAIN_NUMBER_RE.test(pred)) {
    const exact = exactEq({ s: gold, pct: false }, { s: pred, pct: false }, settings);
    if (exact !== undefined) return exact;
  }
  if (goldText || looksLikeText(gold)) {
    // `Monday, Tuesday` (or `Monday or Tuesday`) offered for the word answer `Monday`.
    if (!gold.includes(",") && splitTop(pred, ",").filter((x) => x.trim() !== "").length > 1)
      return { outcome: "multiple_answers", method: "string" };
    return { outcome: textKey(gold) === textKey(pred) && textKey(gold) !== "", method: "string" };
  }
  if (predText && !CHOICE_RE.test(gold) && !TIME_RE.test(gold)) return { outcome: false, method: "string" };
  const gs = rewriteShapes(collapseChain(decimalComma(gold, pred)));
  let ps = rewriteShapes(collapseChain(decimalComma(pred, gold)));
  // A gold `NAME = value` (`AB = 4`, `(p,q) = (3,2)`) against a bare value compares the value.
  const named = ps.includes("=") ? null : nameAssignment(gs);
  const gv = named ? named[2] : gs;
  const gi = inequalityToInterval(gv);
  const g = parseNode(gi);
  if (!named && !gs.includes("=")) {
    const pn = nameAssignment(ps);
    if (pn && !ASSIGN_RE.test(ps)) ps = pn[2];
  }
  const pi = inequalityToInterval(ps);
  const p = parseNode(pi);
  // An enumeration (`1, 2, 3`, `1, 2, or 3`, `\{1,2,3\}`, `x=1, x=2`, `\pm 2`) never matches a single gold
  // value, even when one of its items is that value: hedging over candidates is not an answer.
  if (g.kind === "scalar" && p.kind === "set" && p.items.length > 1)
    return { outcome: "multiple_answers", method: "string" };
  const v = nodeEq(g, p, settings);
  // `(1,3)` is an open interval or an ordered pair: a two-sided inequality `1 < x < 3` matches it only
  // as an interval, which the gold does not say (`(2,\infty)` does). Not a confident match.
  if (
    v.outcome === true &&
    pi !== ps &&
    gi === gv &&
    g.kind === "seq" &&
    g.open === "(" &&
    g.close === ")" &&
    g.items.length === 2 &&
    !/\\infty/.test(gi)
  ) {
    return { outcome: "undecidable", method: "string" };
  }
  return v;
}
