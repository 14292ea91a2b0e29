/**
 * Random and pathological inputs for the `math` verifier's stress run (`npm run stress:math`) and its
 * 300-string subset in `npm test` (`test/math-stress.test.ts`). Deterministic for a given seed.
 *
 * Kinds: `soup` (random LaTeX token soup in a box), `garbage` (random code points), `number` (long or
 * odd numerals), `patho` (power towers, 10 000-digit numbers, 10 000 nested braces, 1 MB responses,
 * unclosed boxes, long lists, huge factorials and exponents, deep fractions), `spin` (inputs the CAS
 * may spend unbounded time on: sums and products to 10^9 — these are expected to hit the deadline).
 */
import { prng } from "../src/core/prng.js";

/** One stress input. */
export interface StressCase {
  kind: "soup" | "garbage" | "number" | "patho" | "spin";
  name: string;
  completion: string;
  reference: string;
}

/** Typical gold answers (shapes of MATH / GSM8K references). */
const GOLDS = [
  "3",
  "-4",
  "0",
  "1000",
  "10{,}000",
  "0.5",
  "3.14",
  "\\frac{1}{2}",
  "\\dfrac{7}{3}",
  "2\\frac{1}{3}",
  "\\sqrt{2}",
  "2\\sqrt{3}",
  "\\frac{\\sqrt{5}-1}{2}",
  "\\pi",
  "2\\pi",
  "e",
  "x^2+1",
  "(x+1)^2",
  "2^{10}",
  "25\\%",
  "45^\\circ",
  "\\$18.90",
  "5\\text{ cm}",
  "(1,2)",
  "(3, \\frac{\\pi}{2})",
  "[2,5)",
  "(-\\infty, 1) \\cup (2, \\infty)",
  "\\{1, 2, 3\\}",
  "1, 2, 3",
  "x=5",
  "y = 2x + 3",
  "x \\geq 2",
  "\\text{Monday}",
  "(B)",
  "\\textbf{(C)}",
  "4:30 \\text{ p.m.}",
  "\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}",
  "\\begin{bmatrix} 1 & 0 \\\\ 0 & 1 \\end{bmatrix}",
  "3+4i",
  "\\pm 2",
  "\\frac{1}{2004!}",
  "1/2^{99}",
  "141_{13}",
  "-\\frac{40}{153}",
  "6.29\\times10^{6}",
];

const TOKENS = [
  "0",
  "1",
  "2",
  "3",
  "7",
  "9",
  "10",
  "42",
  "1000",
  ".",
  ",",
  " ",
  "+",
  "-",
  "*",
  "/",
  "^",
  "_",
  "!",
  "=",
  "<",
  ">",
  "%",
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  "\\{",
  "\\}",
  "\\frac",
  "\\dfrac",
  "\\sqrt",
  "\\pi",
  "\\infty",
  "\\pm",
  "\\cdot",
  "\\times",
  "\\left(",
  "\\right)",
  "\\left[",
  "\\right]",
  "\\text{",
  "\\mbox{",
  "\\cup",
  "\\cap",
  "\\leq",
  "\\geq",
  "\\neq",
  "x",
  "y",
  "n",
  "i",
  "e",
  "a",
  "\\theta",
  "\\sin",
  "\\cos",
  "\\log",
  "\\ln",
  "\\begin{pmatrix}",
  "\\end{pmatrix}",
  "&",
  "\\\\",
  "\\circ",
  "^\\circ",
  "\\$",
  "\\%",
  "\\,",
  "\\!",
  "{,}",
  "\\boxed{",
  "\\sum",
  "\\int",
  "\\lim",
  "\\mathbb{R}",
  "\\emptyset",
  "\\overline{",
  "f(x)",
  "\\displaystyle",
  "p.m.",
  "\\text{ cm}",
  "or",
  "and",
  "\u2212",
  "\u221a",
  "\u03c0",
  "\u00b1",
];

function pick<T>(rnd: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rnd() * xs.length)] as T;
}

function soup(rnd: () => number): string {
  const n = 1 + Math.floor(rnd() * 40);
  let s = "";
  for (let k = 0; k < n; k++) s += pick(rnd, TOKENS);
  return s;
}

function garbage(rnd: () => number): string {
  const n = 1 + Math.floor(rnd() * 80);
  let s = "";
  for (let k = 0; k < n; k++) {
    const r = rnd();
    s +=
      r < 0.5
        ? String.fromCharCode(32 + Math.floor(rnd() * 95))
        : r < 0.9
          ? String.fromCharCode(Math.floor(rnd() * 0x3000))
          : "\\";
  }
  return s;
}

function digits(rnd: () => number, n: number): string {
  let s = String(1 + Math.floor(rnd() * 9));
  for (let k = 1; k < n; k++) s += String(Math.floor(rnd() * 10));
  return s;
}

function numberCase(rnd: () => number): string {
  const r = rnd();
  if (r < 0.25) return digits(rnd, 1 + Math.floor(rnd() * 400));
  if (r < 0.5) return `${digits(rnd, 1 + Math.floor(rnd() * 30))}.${digits(rnd, 1 + Math.floor(rnd() * 30))}`;
  if (r < 0.65) return `${digits(rnd, 3)}e${Math.floor(rnd() * 2000) - 1000}`;
  if (r < 0.8) return `${digits(rnd, 2)}\\times10^{${Math.floor(rnd() * 4000) - 2000}}`;
  return `\\frac{${digits(rnd, 1 + Math.floor(rnd() * 50))}}{${digits(rnd, 1 + Math.floor(rnd() * 50))}}`;
}

const box = (s: string) => `Reasoning... so the answer is $\\boxed{${s}}$.`;

/** Fixed pathological inputs (each once). */
export function pathological(): StressCase[] {
  const p = (name: string, completion: string, reference = "3"): StressCase => ({
    kind: "patho",
    name,
    completion,
    reference,
  });
  const tower = (k: number) => "5^{".repeat(k - 1) + "5" + "}".repeat(k - 1);
  const out: StressCase[] = [
    p("power tower 5^5^5^5^5", box(tower(5))),
    p("power tower depth 50", box(tower(50))),
    p("power tower as gold", box("3"), tower(5)),
    p("2^{10^{100}}", box("2^{10^{100}}")),
    p("9^{9^{9}} vs itself", box("9^{9^{9}}"), "9^{9^{9}}"),
    p("10^{100000}", box("10^{100000}"), "10^{100000}"),
    p("10 000-digit number", box("7".repeat(10_000)), "7".repeat(10_000)),
    p("10 000-digit numbers differing", box("7".repeat(9_999) + "8"), "7".repeat(10_000)),
    p("100 000-digit number", box("9".repeat(100_000))),
    p("10 000 nested braces", box("{".repeat(10_000) + "1" + "}".repeat(10_000))),
    p("10 000 nested parens", box("(".repeat(10_000) + "1" + ")".repeat(10_000))),
    p("10 000 open braces", box("{".repeat(10_000))),
    p("nested fractions depth 60", box("\\frac{1}{".repeat(60) + "2" + "}".repeat(60))),
    p("nested sqrt depth 60", box("\\sqrt{".repeat(60) + "2" + "}".repeat(60))),
    p("1 MB response", "Let me think. ".repeat(75_000) + box("3")),
    p("1 MB of digits", "1".repeat(1_000_000)),
    p("1 MB of unclosed boxes", "\\boxed{".repeat(150_000)),
    p("1 MB of boxes", "\\boxed{1}".repeat(110_000)),
    p("1 MB answer", box("1+".repeat(500_000) + "1")),
    p("1 MB of spaces then a box", " ".repeat(1_000_000) + box("3")),
    p("1 MB 'the answer is'", "the answer is ".repeat(70_000)),
    p("1 MB of Answer: lines", "Answer: \n".repeat(110_000)),
    p("1 MB of ####", "#### ".repeat(200_000)),
    p("10 000 trailing spaces in an answer", box("1" + " ".repeat(10_000) + "x")),
    p(
      "list of 5 000 items",
      box(Array.from({ length: 5000 }, (_, i) => i).join(",")),
      Array.from({ length: 5000 }, (_, i) => 4999 - i).join(","),
    ),
    p("\\pm chain", box("\\pm 1 \\pm 2 \\pm 3 \\pm 4 \\pm 5 \\pm 6 \\pm 7 \\pm 8 \\pm 9 \\pm 10")),
    p("100000!", box("100000!")),
    p("1/2004! vs 1/2006!", box("\\frac{1}{2006!}"), "\\frac{1}{2004!}"),
    p("factorial tower", box("((10!)!)!")),
    p(
      "huge matrix",
      box(
        `\\begin{pmatrix}${Array.from({ length: 200 }, () => Array(50).fill("1").join("&")).join("\\\\")}\\end{pmatrix}`,
      ),
    ),
    p(
      "long polynomial",
      box(Array.from({ length: 500 }, (_, i) => `${i}x^{${i}}`).join("+")),
      Array.from({ length: 500 }, (_, i) => `${i}x^{${i}}`)
        .reverse()
        .join("+"),
    ),
    p("many variables", box(Array.from({ length: 26 }, (_, i) => String.fromCharCode(97 + i)).join("+")), "z+y"),
    p("deep exponent of x", box("x^{x^{x^{x^{x}}}}"), "x^{x^{x^{x^{x}}}}"),
    p("sin tower", box("\\sin(".repeat(60) + "1" + ")".repeat(60)), "\\sin(1)"),
    p("binomial huge", box("\\binom{100000}{50000}")),
    p("e^{e^{e^{e}}}", box("e^{e^{e^{e}}}"), "e^{e^{e^{e}}}"),
    p("decimal with 10 000 digits", box("0." + "3".repeat(10_000)), "\\frac{1}{3}"),
    p("unicode soup", box("\u2212\u221a\u03c0\u00b1".repeat(2000))),
    p("null bytes", box("\u0000".repeat(1000))),
    p("lone surrogates", box("\ud800\udc00\ud800".repeat(100))),
  ];
  return out;
}

/** Inputs on which the CAS may spin: they must come back as `timeout` at the deadline. */
export function spinners(): StressCase[] {
  const s = (name: string, completion: string, reference: string): StressCase => ({
    kind: "spin",
    name,
    completion,
    reference,
  });
  return [
    s("sum to 10^9", box("\\sum_{n=1}^{10^{9}} n"), "500000000500000000"),
    s("product to 10^6", box("\\prod_{n=1}^{10^{6}} n"), "3"),
  ];
}

/**
 * `n` stress inputs for `seed`: every pathological and spinning case once (when `withFixed`), the rest
 * random (token soup, garbage, numbers) against typical golds.
 */
export function stressCases(n: number, seed = 1, withFixed = true): StressCase[] {
  const rnd = prng(seed);
  const out: StressCase[] = withFixed ? [...pathological(), ...spinners()] : [];
  let k = 0;
  while (out.length < n) {
    const r = rnd();
    const reference = rnd() < 0.1 ? soup(rnd) : pick(rnd, GOLDS);
    k++;
    if (r < 0.6) out.push({ kind: "soup", name: `soup-${k}`, completion: box(soup(rnd)), reference });
    else if (r < 0.75)
      out.push({ kind: "soup", name: `bare-${k}`, completion: `The answer is ${soup(rnd)}`, reference });
    else if (r < 0.85)
      out.push({
        kind: "garbage",
        name: `garbage-${k}`,
        completion: rnd() < 0.5 ? box(garbage(rnd)) : garbage(rnd),
        reference,
      });
    else
      out.push({
        kind: "number",
        name: `number-${k}`,
        completion: box(numberCase(rnd)),
        reference: rnd() < 0.5 ? numberCase(rnd) : reference,
      });
  }
  return out.slice(0, n);
}
