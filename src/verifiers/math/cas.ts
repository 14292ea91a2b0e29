/**
 * CAS fallback over `@cortex-js/compute-engine`, loaded lazily.
 *
 * The engine module costs ~150 ms to import and ~90 ms to construct, so it is loaded with a dynamic
 * `import()` on the first answer the fast path cannot decide ({@link loadCas}); until then the
 * synchronous comparison throws {@link NeedCas} and `verifyMath` returns a Promise once.
 *
 * Known gaps of the engine worked around here (see docs/dependencies.md, "LaTeX parsing"):
 * - its `isEqual` uses a numeric tolerance (`1/2004!` = `1/2006!`): never used; equality is a symbolic
 *   difference that simplifies/expands to 0, or a numeric difference at 50 significant digits that is
 *   below 1e-25 relative (and a difference above 1e-12 relative is a definite "not equal");
 * - `isEqual` is `undefined` with free variables: numeric sampling at seeded random points instead;
 * - parse errors compare equal to each other: any `Error` node (invalid expression) is `parse_error`;
 * - the engine keeps state per instance (assignments `x \coloneqq 3`, declarations, assumptions, inferred
 *   types): an answer that would change it (an `Assign`, `Declare`, `Assume`, … node) is `parse_error`, and
 *   after every verdict that used the engine its state is rewound to a checkpoint taken when it was built
 *   ({@link casRewind}), so no rollout can change the verdict of a later one (red-team finding F2).
 */
import type * as CE from "@cortex-js/compute-engine";
import type { ComputeEngine, Expression } from "@cortex-js/compute-engine";
import { decimalBound, NeedCas, type CompareSettings, type Verdict } from "./verdict.js";
import { prng } from "../../core/prng.js";

type CeModule = typeof CE;

let mod: CeModule | undefined;
let engine: ComputeEngine | undefined;
let loading: Promise<void> | undefined;
/** The engine's state right after construction; every verdict that used the engine rewinds to it. */
let pristine: ReturnType<ComputeEngine["checkpoint"]> | undefined;
/** Lowercase Greek letters (except `\pi`), declared as numbers in the pristine engine. */
const GREEK = [
  "alpha",
  "beta",
  "gamma",
  "delta",
  "epsilon",
  "zeta",
  "eta",
  "theta",
  "iota",
  "kappa",
  "lambda",
  "mu",
  "nu",
  "xi",
  "rho",
  "sigma",
  "tau",
  "upsilon",
  "phi",
  "chi",
  "psi",
  "omega",
];
/** Whether the engine was used since the last rewind. */
let touched = false;
/** While set, the engine counts as not loaded ({@link withoutCas}). */
let barred = false;

/** Whether the engine is loaded (then CAS comparisons run synchronously). */
export function casLoaded(): boolean {
  return engine !== undefined;
}

/**
 * Loads and constructs the compute engine once (idempotent). Precision is set to 50 digits.
 * @returns a Promise resolved when the engine is ready; rejects only if the module cannot load.
 */
export function loadCas(): Promise<void> {
  loading ??= import("@cortex-js/compute-engine").then((m) => {
    mod = m;
    const ce = new m.ComputeEngine();
    ce.precision = 50;
    // Greek letters are numbers: `\omega(v+1/2)` is a product, as in physics answers, on every fresh engine
    // (the engine would otherwise infer a function from the first use, and a later `\omega^2` would not parse).
    for (const g of GREEK) ce.declare(g, "number");
    pristine = ce.checkpoint("rewardkit-pristine");
    engine = ce;
  });
  return loading;
}

/**
 * Runs `f` as if the engine were not loaded: any comparison that would use it throws {@link NeedCas}, so `f`
 * either decides without the CAS or says it cannot (the inline fast path of `verifyMathInline`).
 */
export function withoutCas<T>(f: () => T): T {
  const was = barred;
  barred = true;
  try {
    return f();
  } finally {
    barred = was;
  }
}

function ce(): ComputeEngine {
  if (!engine || barred) throw new NeedCas();
  touched = true;
  return engine;
}

/**
 * Rewinds the engine to its state right after construction when it was used since the last rewind:
 * symbols assigned, declared or typed while comparing one answer do not exist for the next one. Called
 * by the verifier after every verdict (cost ≈ 1 ms, only on the verdicts that reached the CAS).
 */
export function casRewind(): void {
  if (!touched || !engine || !pristine) return;
  touched = false;
  engine.restore(pristine);
}

/**
 * MathJSON heads that change the engine's state or are not a pure value (assignments, declarations,
 * assumptions, definitions, randomness, I/O): an answer containing one is `parse_error`.
 */
const STATEFUL_HEAD_RE = /\["(?:Assign|Declare|Assume|Forget|Define\w*|Let|Random\w*|Print|Timing|Compile)"/;

/**
 * Inputs the engine could spend unbounded time or memory on (it has no deadline of its own): power
 * towers three levels deep, exponents above 10 000, factorials of numbers above 5 000, answers longer
 * than {@link CAS_MAX_CHARS} characters or nested deeper than {@link CAS_MAX_DEPTH} brackets (a
 * 500-term polynomial or `\sin(\sin(…))` sixty deep takes the engine seconds to minutes; real answers
 * are below 100 characters). Sums and products with huge bounds are NOT refused here: they are left to
 * the worker deadline (`timeout`).
 * @returns true when the CAS must not be asked (the verdict is `undecidable`).
 */
export function tooHeavy(latex: string): boolean {
  if (latex.length > CAS_MAX_CHARS) return true;
  let nest = 0;
  for (let i = 0; i < latex.length; i++) {
    const c = latex.charCodeAt(i);
    if (c === 123 || c === 40 || c === 91) {
      if (++nest > CAS_MAX_DEPTH) return true;
    } else if (c === 125 || c === 41 || c === 93) nest--;
  }
  // Depth of nested exponents: `^` inside the exponent group of another `^`.
  const stack: number[] = []; // for each open brace: exponent depth inside it
  let depth = 0;
  let pendingExp = false;
  for (let i = 0; i < latex.length; i++) {
    const c = latex[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "^") {
      if (depth + 1 >= 3) return true;
      pendingExp = true;
      continue;
    }
    if (c === "{") {
      stack.push(depth);
      if (pendingExp) depth++;
    } else if (c === "}") depth = stack.pop() ?? 0;
    if (c !== " ") pendingExp = false; // a one-token exponent `a^5` opens no group
  }
  for (const m of latex.matchAll(/\^\s*\{?\s*-?(\d+)/g)) if (Number(m[1]) > 10_000) return true;
  for (const m of latex.matchAll(/(\d+)\s*\}?\s*!/g)) if (Number(m[1]) > 5_000) return true;
  for (const m of latex.matchAll(/\\[dt]?binom\s*\{?\s*(\d+)/g)) if (Number(m[1]) > 5_000) return true;
  return false;
}

/** Longest answer handed to the CAS (characters). */
export const CAS_MAX_CHARS = 600;
/** Deepest bracket nesting handed to the CAS. */
export const CAS_MAX_DEPTH = 16;

function hasError(e: Expression): boolean {
  if (!e.isValid) return true;
  const j = JSON.stringify(e.json);
  return j.includes('"Error"') || STATEFUL_HEAD_RE.test(j);
}

/**
 * `4e+7p` is `4e + 7p` (Euler's number), not `4·10^7·p`: scientific notation is a number token of its
 * own, so an exponent followed by a letter, a command or a bracket makes the `e` a constant.
 */
const NOT_SCIENTIFIC_RE = /(\d)e(?=[+-]?\d+(?:\.\d+)?[a-zA-Z\\({])/g;

/** Parses LaTeX; `null` on a parse error (Error nodes never compare equal). */
export function casParse(latex: string): Expression | null {
  try {
    const e = ce().parse(latex.replace(NOT_SCIENTIFIC_RE, "$1\\cdot e"));
    return hasError(e) ? null : e;
  } catch (err) {
    if (err instanceof NeedCas) throw err;
    return null;
  }
}

/** log10 of |x| for a numeric expression (bignum aware, so 1e-5749 is not 0); `NaN` if not numeric. */
function log10Abs(x: Expression): number {
  const im = x.im;
  if (Number.isFinite(im) && im !== 0) return Math.log10(Math.hypot(x.re, im));
  const big = x.bignumRe;
  if (big !== undefined) {
    const m = /^(-?)(\d+)(?:\.(\d*))?(?:e([-+]?\d+))?$/i.exec(String(big));
    if (m) {
      const digits = ((m[2] ?? "") + (m[3] ?? "")).replace(/^0+/, "");
      if (digits === "") return -Infinity;
      const lead = Number(`${digits[0]}.${digits.slice(1, 16) || "0"}`);
      const intLen = (m[2] ?? "").replace(/^0+/, "").length;
      const fracLeadingZeros = intLen === 0 ? (m[3] ?? "").length - (m[3] ?? "").replace(/^0+/, "").length : 0;
      const exp10 = (intLen > 0 ? intLen - 1 : -(fracLeadingZeros + 1)) + Number(m[4] ?? 0);
      return Math.log10(lead) + exp10;
    }
  }
  const re = x.re;
  if (!Number.isFinite(re)) return NaN;
  return re === 0 ? -Infinity : Math.log10(Math.abs(re));
}

function isZero(e: Expression): boolean {
  const j = e.json;
  return j === 0 || (typeof j === "object" && j !== null && "num" in j && Number(j.num) === 0);
}

/** Numeric value as complex floats (NaN when not numeric). */
function complexAt(e: Expression): [number, number] {
  const v = e.N();
  const re = v.re;
  const im = v.im;
  return [re, Number.isFinite(im) ? im : 0];
}

function close(a: [number, number], b: [number, number], tol: number): boolean {
  const scale = Math.max(1, Math.hypot(a[0], a[1]), Math.hypot(b[0], b[1]));
  return Math.hypot(a[0] - b[0], a[1] - b[1]) <= tol * scale;
}

function finite(a: [number, number]): boolean {
  return Number.isFinite(a[0]) && Number.isFinite(a[1]);
}

function variables(...es: Expression[]): string[] {
  const s = new Set<string>();
  for (const e of es) for (const v of e.unknowns) s.add(v);
  return [...s].sort();
}

/** Sample values in [0.35, 2.65], away from 0, 1 and integers, where typical answers are defined. */
function samplePoints(vars: string[], settings: CompareSettings): Record<string, number>[] {
  const rnd = prng(settings.seed);
  const pts: Record<string, number>[] = [];
  for (let k = 0; k < settings.samplePoints; k++) {
    const p: Record<string, number> = {};
    for (const v of vars) p[v] = 0.35 + 2.3 * rnd();
    pts.push(p);
  }
  return pts;
}

/**
 * Sign checks: the first positive points with every variable negated, then with every other variable
 * negated. Two answers that agree only for positive values (`x|x|` vs `x^2`, `|x|^3` vs `x^3`, `|xy|`
 * vs `xy`) disagree at one of them; identities that hold only on a positive domain
 * (`\sqrt{x}\sqrt{y}` vs `\sqrt{xy}`) do too, so a disagreement there is `undecidable`, never 0.
 */
function signPoints(pts: Record<string, number>[], vars: string[]): Record<string, number>[] {
  const out: Record<string, number>[] = [];
  for (let k = 0; k < Math.min(4, pts.length); k++) {
    const src = pts[k] as Record<string, number>;
    const p: Record<string, number> = {};
    vars.forEach((v, j) => {
      const x = src[v] as number;
      p[v] = k < 2 || j % 2 === 0 ? -x : x;
    });
    out.push(p);
  }
  return out;
}

function at(e: Expression, p: Record<string, number>): [number, number] {
  try {
    return complexAt(e.subs(p));
  } catch {
    return [NaN, NaN];
  }
}

/**
 * Compares two scalar LaTeX expressions with the CAS.
 *
 * Order: parse (Error → `parse_error`); symbolic difference simplifies to 0 → equal (`cas`);
 * without free variables, a 50-digit numeric difference (|a−b| ≤ 1e-25·max(|a|,|b|) → equal,
 * > 1e-12 → not equal; when `goldPlaces` (a decimal gold), |a−b| within {@link decimalBound} → equal); with free variables,
 * `expand(a−b) = 0` → equal, else numeric sampling at `samplePoints` seeded points (all finite points
 * agree within `sampleTol` and ≥ 2 are finite → equal via `sampling`; one finite disagreement → not
 * equal); anything else → `undecidable`.
 *
 * @throws NeedCas when the engine is not loaded yet.
 */
export function casCompare(gold: string, pred: string, goldPlaces: number | null, settings: CompareSettings): Verdict {
  if (tooHeavy(gold) || tooHeavy(pred)) return { outcome: "undecidable", method: "cas" };
  const a = casParse(gold);
  const b = casParse(pred);
  if (!a || !b) return { outcome: "parse_error", method: "cas" };
  const vars = variables(a, b);
  try {
    const diff = a.sub(b);
    if (isZero(diff) || isZero(diff.simplify())) return { outcome: true, method: "cas" };
    if (vars.length === 0) {
      const na = a.N();
      const nb = b.N();
      const la = log10Abs(na);
      const lb = log10Abs(nb);
      const ld = log10Abs(diff.N());
      if (Number.isNaN(la) || Number.isNaN(lb) || Number.isNaN(ld)) return { outcome: "undecidable", method: "cas" };
      const scale = Math.max(la, lb);
      if (goldPlaces !== null && ld <= Math.log10(decimalBound(10 ** la, goldPlaces, settings.relTol)))
        return { outcome: true, method: "cas" };
      if (ld === -Infinity || ld - scale <= -25) return { outcome: true, method: "cas" };
      if (ld - scale > -12) return { outcome: false, method: "cas" };
      return { outcome: "undecidable", method: "cas" };
    }
    const ex = mod?.expand(diff);
    if (ex && isZero(ex)) return { outcome: true, method: "cas" };
  } catch (err) {
    if (err instanceof NeedCas) throw err;
    // fall through to sampling
  }
  // One side with an absolute value: its sign checks count even where the values are not real
  // (`-25 r|r| \sqrt{2r}` vs `-25 r^2 \sqrt{2r}`).
  const absOnOneSide = ABS_RE.test(gold) !== ABS_RE.test(pred);
  return sample(
    vars,
    settings,
    (p) => [at(a, p), at(b, p)],
    (x, y) => close(x, y, settings.sampleTol),
    absOnOneSide,
  );
}

/** An absolute value in LaTeX. */
const ABS_RE = /\||\\[lr]?vert|\\abs(?![a-zA-Z])/;

function sample(
  vars: string[],
  settings: CompareSettings,
  values: (p: Record<string, number>) => [[number, number], [number, number]],
  same: (x: [number, number], y: [number, number]) => boolean,
  complexSignChecks = false,
): Verdict {
  if (vars.length === 0) return { outcome: "undecidable", method: "sampling" };
  let agree = 0;
  const pts = samplePoints(vars, settings);
  for (const p of pts) {
    const [x, y] = values(p);
    if (!finite(x) || !finite(y)) continue;
    if (!same(x, y)) return { outcome: false, method: "sampling" };
    agree++;
  }
  if (agree < 2) return { outcome: "undecidable", method: "sampling" };
  // Agreement at positive points only: check signs where both sides are real.
  for (const p of signPoints(pts, vars)) {
    const [x, y] = values(p);
    if (!finite(x) || !finite(y) || (!complexSignChecks && (!real(x) || !real(y)))) continue;
    if (!same(x, y)) return { outcome: "undecidable", method: "sampling" };
  }
  return { outcome: true, method: "sampling" };
}

function real(a: [number, number]): boolean {
  return Math.abs(a[1]) <= 1e-12 * Math.max(1, Math.abs(a[0]));
}

/**
 * Compares two equations `gl = gr` and `pl = pr` (not single-variable assignments, e.g. planes
 * `5x - 7y + 11z + 4 = 0`): equivalent when `gl − gr` and `pl − pr` are proportional by a nonzero
 * constant, checked by sampling the ratio at seeded points.
 * @throws NeedCas when the engine is not loaded yet.
 */
export function casCompareEquations(g: [string, string], p: [string, string], settings: CompareSettings): Verdict {
  const gl = casParse(g[0]);
  const gr = casParse(g[1]);
  const pl = casParse(p[0]);
  const pr = casParse(p[1]);
  if (!gl || !gr || !pl || !pr) return { outcome: "parse_error", method: "cas" };
  const f = gl.sub(gr);
  const h = pl.sub(pr);
  const vars = variables(f, h);
  let ratio: [number, number] | undefined;
  return sample(
    vars,
    settings,
    (pt) => {
      const x = at(f, pt);
      const y = at(h, pt);
      // Encode the ratio check as "x = r·y" with r fixed by the first usable point.
      if (!finite(x) || !finite(y) || Math.hypot(y[0], y[1]) < 1e-12)
        return [
          [NaN, NaN],
          [NaN, NaN],
        ];
      const den = y[0] * y[0] + y[1] * y[1];
      const r: [number, number] = [(x[0] * y[0] + x[1] * y[1]) / den, (x[1] * y[0] - x[0] * y[1]) / den];
      if (ratio === undefined) {
        if (Math.hypot(r[0], r[1]) < 1e-12)
          return [
            [0, 0],
            [1, 0],
          ];
        ratio = r;
      }
      return [r, ratio];
    },
    (x, y) => close(x, y, settings.sampleTol),
  );
}
