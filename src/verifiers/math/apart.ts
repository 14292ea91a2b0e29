/**
 * Certainly-different check for numeric answers with radicals and π, without the CAS.
 *
 * `28` against `\sqrt{34}+3\sqrt{10}` (≈ 15.3) is outside the exact rationals of `fast.ts`, and loading the CAS
 * (≈ 0.3–1 s per process) only to learn that 28 ≠ 15.3 cost more than scoring every other answer of a file. Both
 * sides are evaluated in double precision with a rigorous bound on the rounding error carried through every
 * operation (a value `v ± e`); when the two intervals are apart by more than 1e-9 of their magnitude, the true
 * values differ by more than the CAS's own "not equal" threshold (1e-12 relative at 50 digits), so the verdict
 * is the CAS's: `false`. Anything else — equal-looking values, a side outside the grammar — goes on to the CAS.
 *
 * Grammar (normalized LaTeX, at most {@link MAX_CHARS} characters): integers (no decimals: a decimal gold is an
 * approximation with its own tolerance), `+ - \cdot \times /`, `\frac{a}{b}`, `\sqrt{a}`, `\sqrt[n]{a}`, `\pi`,
 * parentheses, `^n` / `^{n}` with a natural exponent ≤ 64, and implicit products only before `\sqrt`, `\frac` and
 * `\pi` (`3\sqrt{10}`, `2\pi`), which the CAS reads the same way. One recursive-descent pass, depth ≤ 16: linear.
 */

/** Longest side evaluated (characters). */
const MAX_CHARS = 200;
/** Deepest nesting of groups. */
const MAX_DEPTH = 16;
/** Relative rounding of one double operation, doubled for safety. */
const EPS = 2 ** -51;
/** Two values are "apart" when they differ by more than this, relative to the larger magnitude. */
const APART = 1e-9;

/** A value and a bound on its absolute error. */
interface Approx {
  v: number;
  e: number;
}

class Refused extends Error {}

function round(v: number, e: number): Approx {
  if (!Number.isFinite(v) || !Number.isFinite(e) || Math.abs(v) > 1e150) throw new Refused();
  return { v, e: e + Math.abs(v) * EPS };
}

const add = (a: Approx, b: Approx, sign: 1 | -1): Approx => round(a.v + sign * b.v, a.e + b.e);
const mul = (a: Approx, b: Approx): Approx => round(a.v * b.v, Math.abs(a.v) * b.e + Math.abs(b.v) * a.e + a.e * b.e);
function div(a: Approx, b: Approx): Approx {
  const m = Math.abs(b.v) - b.e; // the smallest |b| can be
  if (!(m > 0)) throw new Refused();
  return round(a.v / b.v, (Math.abs(a.v) * b.e + Math.abs(b.v) * a.e) / (Math.abs(b.v) * m));
}
function root(a: Approx, n: number): Approx {
  const lo = a.v - a.e;
  if (!(lo > 0)) throw new Refused(); // a possibly negative radicand: complex, or a sign the CAS decides
  const v = Math.pow(a.v, 1 / n);
  // |x^(1/n) − y^(1/n)| ≤ |x − y| / (n · lo^(1 − 1/n)) for x, y ≥ lo; `Math.pow` is not correctly rounded: 4 ulps.
  return round(v, a.e / (n * Math.pow(lo, 1 - 1 / n)) + 4 * Math.abs(v) * EPS);
}
function power(a: Approx, n: number): Approx {
  let r: Approx = { v: 1, e: 0 };
  for (let k = 0; k < n; k++) r = mul(r, a);
  return r;
}

/** A recursive-descent evaluator over one string; throws {@link Refused} outside the grammar. */
function evaluate(s: string): Approx {
  let i = 0;
  let depth = 0;
  const peek = (t: string): boolean => s.startsWith(t, i);
  const word = (t: string): boolean => peek(t) && !/[a-zA-Z]/.test(s[i + t.length] ?? "");
  const skip = (): void => {
    while (s[i] === " ") i++;
  };
  const expect = (t: string): void => {
    skip();
    if (!peek(t)) throw new Refused();
    i += t.length;
  };
  const group = (open: string, close: string): Approx => {
    expect(open);
    if (++depth > MAX_DEPTH) throw new Refused();
    const v = sum();
    depth--;
    expect(close);
    return v;
  };
  const natural = (): number => {
    const m = /^\d{1,15}/.exec(s.slice(i, i + 16));
    if (!m) throw new Refused();
    i += m[0].length;
    return Number(m[0]);
  };
  function atom(): Approx {
    skip();
    const c = s[i];
    if (c !== undefined && c >= "0" && c <= "9") {
      const n = natural();
      if (s[i] === ".") throw new Refused();
      return { v: n, e: 0 };
    }
    if (c === "(") return group("(", ")");
    if (c === "{") return group("{", "}");
    if (word("\\pi")) {
      i += 3;
      return { v: Math.PI, e: Math.PI * EPS };
    }
    if (word("\\frac")) {
      i += 5;
      const a = group("{", "}");
      return div(a, group("{", "}"));
    }
    if (word("\\sqrt")) {
      i += 5;
      skip();
      let n = 2;
      if (s[i] === "[") {
        i++;
        skip();
        n = natural();
        expect("]");
        if (n < 2 || n > 64) throw new Refused();
      }
      return root(group("{", "}"), n);
    }
    throw new Refused();
  }
  function powered(): Approx {
    const a = atom();
    skip();
    if (s[i] !== "^") return a;
    i++;
    skip();
    let n: number;
    if (s[i] === "{") {
      i++;
      skip();
      n = natural();
      expect("}");
    } else {
      const c = s[i];
      if (c === undefined || c < "0" || c > "9") throw new Refused();
      n = Number(c);
      i++;
      if (/\d/.test(s[i] ?? "")) throw new Refused(); // `2^10`: LaTeX reads 2^1 then 0, a parser may not
    }
    if (n > 64) throw new Refused();
    return power(a, n);
  }
  function product(): Approx {
    let a = powered();
    let divided = false;
    for (;;) {
      skip();
      if (word("\\cdot") || word("\\times")) {
        i += peek("\\cdot") ? 5 : 6;
        a = mul(a, powered());
        divided = false;
      } else if (s[i] === "*") {
        i++;
        a = mul(a, powered());
        divided = false;
      } else if (s[i] === "/") {
        i++;
        a = div(a, powered());
        divided = true;
      } else if (word("\\sqrt") || word("\\frac") || word("\\pi")) {
        // `1/2\sqrt{3}`: (1/2)·√3 or 1/(2√3), depending on the reader: not certain
        if (divided) throw new Refused();
        a = mul(a, powered());
      } else return a;
    }
  }
  function signed(): Approx {
    skip();
    if (s[i] === "-") {
      i++;
      const a = signed();
      return { v: -a.v, e: a.e };
    }
    if (s[i] === "+") {
      i++;
      return signed();
    }
    return product();
  }
  function sum(): Approx {
    let a = signed();
    for (;;) {
      skip();
      if (s[i] === "+" || s[i] === "-") {
        const sign = s[i] === "+" ? 1 : -1;
        i++;
        a = add(a, product(), sign);
      } else return a;
    }
  }
  const v = sum();
  skip();
  if (i !== s.length) throw new Refused();
  return v;
}

/**
 * Whether two normalized numeric answers certainly have different values (then the CAS would say `false`).
 * `false` means "not certain": equal, too close to tell, or outside the grammar — never "equal".
 * @example certainlyApart("28", "\\sqrt{34}+3\\sqrt{10}") // true
 * @example certainlyApart("\\sqrt{8}", "2\\sqrt{2}") // false (equal: the CAS decides)
 */
export function certainlyApart(a: string, b: string): boolean {
  if (a.length > MAX_CHARS || b.length > MAX_CHARS) return false;
  try {
    const x = evaluate(a);
    const y = evaluate(b);
    const gap = Math.abs(x.v - y.v) - x.e - y.e;
    return gap > APART * Math.max(Math.abs(x.v), Math.abs(y.v));
  } catch (err) {
    if (err instanceof Refused) return false;
    throw err;
  }
}
