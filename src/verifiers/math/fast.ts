/**
 * Fast path: exact rational evaluation of purely numeric answers, without the CAS.
 *
 * Grammar (on a normalized string, see `normalize.ts`): integers, decimals (`.5`, `3.`), scientific
 * notation (`1.5e3`, `1.5\times10^{3}`), `+ - * / \cdot \times \div`, parentheses and braces,
 * `\frac{a}{b}` with any fast sub-expressions, mixed numbers `2\frac{1}{3}` (= 7/3; `-2\frac13` = -7/3),
 * integer powers `a^{n}` / `a^n`, factorials `n!`. Anything else (`\sqrt`, `\pi`, letters, implicit
 * products like `2(3)`) is "unsupported" and goes to the CAS.
 *
 * Arithmetic is exact (BigInt numerator/denominator), so `1/2^{99}` ≠ `1/2^{98}` and
 * `\frac{1}{2004!}` ≠ `\frac{1}{2006!}`, unlike tolerance-based comparisons. Sizes are bounded: a power
 * or factorial whose result would exceed `maxBits` bits is refused (`too-big`), so `5^{5^{5^{5^{5}}}}`
 * neither hangs nor exhausts memory.
 */

/** An exact rational `n/d`, `d > 0`, `gcd(|n|, d) = 1`. */
export interface Rational {
  n: bigint;
  d: bigint;
}

/** Result of the fast evaluator. */
export type FastResult =
  | {
      kind: "ok";
      value: Rational;
      /** the text was one decimal literal with a fractional part (`3.14`) */ decimal: boolean;
    }
  | { kind: "too-big" }
  | { kind: "unsupported" };

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

/** Builds a normalized rational; throws on a zero denominator. */
export function rat(n: bigint, d: bigint = 1n): Rational {
  if (d === 0n) throw new FastError("unsupported");
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const g = gcd(n, d);
  return g > 1n ? { n: n / g, d: d / g } : { n, d };
}

/** Exact equality of two rationals. */
export function ratEq(a: Rational, b: Rational): boolean {
  return a.n === b.n && a.d === b.d;
}

/** A rational as a float (may be 0 or ±Infinity for huge values); used only for tolerance checks. */
export function ratToNumber(r: Rational): number {
  const n = Number(r.n);
  const d = Number(r.d);
  if (Number.isFinite(n) && Number.isFinite(d)) return n / d;
  // Scale both down to keep the ratio representable.
  const shift = BigInt(Math.max(bitLength(r.n), bitLength(r.d)) - 1000);
  return Number(r.n >> shift) / Number(r.d >> shift);
}

function bitLength(x: bigint): number {
  return (x < 0n ? -x : x).toString(2).length;
}

class FastError extends Error {
  constructor(readonly kind: "too-big" | "unsupported") {
    super(kind);
  }
}

const add = (a: Rational, b: Rational): Rational => rat(a.n * b.d + b.n * a.d, a.d * b.d);
const sub = (a: Rational, b: Rational): Rational => rat(a.n * b.d - b.n * a.d, a.d * b.d);
const mul = (a: Rational, b: Rational): Rational => rat(a.n * b.n, a.d * b.d);
const div = (a: Rational, b: Rational): Rational => rat(a.n * b.d, a.d * b.n);

const NUMBER_RE = /(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d{1,6}))?/y;

class Parser {
  private i = 0;
  constructor(
    private readonly s: string,
    private readonly maxBits: number,
  ) {}

  parse(): Rational {
    const v = this.expr();
    if (this.i !== this.s.length) throw new FastError("unsupported");
    return v;
  }

  private peek(): string {
    return this.s[this.i] ?? "";
  }

  private eat(tok: string): boolean {
    if (this.s.startsWith(tok, this.i)) {
      // A command must not be a prefix of a longer command (`\times` vs `\timesx`).
      if (tok.startsWith("\\") && /[a-zA-Z]/.test(this.s[this.i + tok.length] ?? "")) return false;
      this.i += tok.length;
      return true;
    }
    return false;
  }

  private checkSize(r: Rational): Rational {
    if (bitLength(r.n) > this.maxBits || bitLength(r.d) > this.maxBits) throw new FastError("too-big");
    return r;
  }

  private expr(): Rational {
    let v = this.unary();
    for (;;) {
      if (this.eat("+")) v = add(v, this.unary());
      else if (this.eat("-")) v = sub(v, this.unary());
      else return v;
    }
  }

  private unary(): Rational {
    if (this.eat("-")) {
      const v = this.unary();
      return { n: -v.n, d: v.d };
    }
    if (this.eat("+")) return this.unary();
    return this.term();
  }

  private term(): Rational {
    let v = this.power();
    for (;;) {
      if (this.eat("*") || this.eat("\\cdot") || this.eat("\\times")) v = this.checkSize(mul(v, this.power()));
      else if (this.eat("/") || this.eat("\\div")) {
        const d = this.power();
        if (d.n === 0n) throw new FastError("unsupported");
        v = this.checkSize(div(v, d));
      } else break;
    }
    return v;
  }

  private power(): Rational {
    const base = this.postfix();
    if (!this.eat("^")) return base;
    let e: Rational;
    if (this.peek() === "{") {
      this.i++;
      e = this.expr();
      if (!this.eat("}")) throw new FastError("unsupported");
    } else if (/\d/.test(this.peek())) {
      e = rat(BigInt(this.peek()));
      this.i++;
    } else if (this.eat("-")) {
      const digit = this.peek();
      if (!/\d/.test(digit)) throw new FastError("unsupported");
      e = rat(-BigInt(digit));
      this.i++;
    } else throw new FastError("unsupported");
    if (e.d !== 1n) throw new FastError("unsupported");
    return this.pow(base, e.n);
  }

  private pow(b: Rational, e: bigint): Rational {
    if (e === 0n) {
      if (b.n === 0n) throw new FastError("unsupported");
      return rat(1n);
    }
    const absE = e < 0n ? -e : e;
    const bits = Math.max(bitLength(b.n), bitLength(b.d));
    // |b|^e has about bits*(e) bits; refuse before computing (power towers).
    const isUnit = (b.n === 1n || b.n === -1n || b.n === 0n) && b.d === 1n;
    if (!isUnit && (absE > BigInt(this.maxBits) || (bits - 1) * Number(absE) > this.maxBits))
      throw new FastError("too-big");
    let r: Rational = isUnit
      ? rat(b.n === 0n ? 0n : b.n === 1n || absE % 2n === 0n ? 1n : -1n)
      : rat(b.n ** absE, b.d ** absE);
    if (e < 0n) {
      if (r.n === 0n) throw new FastError("unsupported");
      r = rat(r.d, r.n);
    }
    return this.checkSize(r);
  }

  private postfix(): Rational {
    let v = this.primary();
    while (this.peek() === "!") {
      this.i++;
      if (v.d !== 1n || v.n < 0n) throw new FastError("unsupported");
      // log2(n!) ≈ n log2 n; refuse before computing.
      const n = Number(v.n);
      if (n > 1 && n * Math.log2(n) > this.maxBits * 1.1) throw new FastError("too-big");
      let f = 1n;
      for (let k = 2n; k <= v.n; k++) f *= k;
      v = this.checkSize(rat(f));
    }
    return v;
  }

  private group(): Rational {
    if (!this.eat("{")) throw new FastError("unsupported");
    const v = this.expr();
    if (!this.eat("}")) throw new FastError("unsupported");
    return v;
  }

  private primary(): Rational {
    const c = this.peek();
    if (c === "(") {
      this.i++;
      const v = this.expr();
      if (!this.eat(")")) throw new FastError("unsupported");
      return v;
    }
    if (c === "{") return this.group();
    if (this.eat("\\frac")) {
      const a = this.group();
      const b = this.group();
      if (b.n === 0n) throw new FastError("unsupported");
      return div(a, b);
    }
    if (/[\d.]/.test(c)) {
      const lit = this.number();
      // Mixed number: an integer literal directly followed by \frac of two integers.
      if (lit.d === 1n && this.s.startsWith("\\frac", this.i)) {
        const save = this.i;
        this.i += 5;
        const a = this.group();
        const b = this.group();
        if (a.d === 1n && b.d === 1n && a.n >= 0n && b.n > 0n && lit.n >= 0n) return add(lit, rat(a.n, b.n));
        this.i = save;
        throw new FastError("unsupported");
      }
      return lit;
    }
    throw new FastError("unsupported");
  }

  private number(): Rational {
    NUMBER_RE.lastIndex = this.i;
    const m = NUMBER_RE.exec(this.s);
    if (!m || m[0] === "" || m[0] === "." || (m[1] === "" && !m[2])) throw new FastError("unsupported");
    this.i += m[0].length;
    const intPart = m[1] ?? "";
    const frac = m[2] ?? "";
    let v = rat(BigInt((intPart || "0") + frac), 10n ** BigInt(frac.length));
    if (m[3] !== undefined) v = mul(v, this.pow(rat(10n), BigInt(m[3])));
    return v;
  }
}

const DECIMAL_LITERAL = /^[-+]?\d*\.\d+$/;

/**
 * Evaluates a normalized numeric answer exactly.
 *
 * @param s normalized answer (no `%`; the caller strips it and scales).
 * @param maxBits size bound for any intermediate numerator/denominator (default 32 768 bits).
 * @returns `ok` with the exact value (and whether `s` was one decimal literal such as `3.14`),
 *   `too-big` when a power or factorial would exceed the bound, or `unsupported` for anything outside
 *   the numeric grammar (then the CAS decides).
 */
export function fastEval(s: string, maxBits = 32768): FastResult {
  if (s === "" || s.length > 100_000) return { kind: "unsupported" };
  try {
    const value = new Parser(s, maxBits).parse();
    return { kind: "ok", value, decimal: DECIMAL_LITERAL.test(s) };
  } catch (e) {
    if (e instanceof FastError) return { kind: e.kind };
    if (e instanceof RangeError) return { kind: "too-big" };
    throw e;
  }
}
