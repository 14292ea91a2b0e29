import { z } from "zod";
import type { AggregatorDefinition } from "./types.js";
import { termValue } from "./types.js";

/**
 * A parsed formula. Grammar (OpenAI graders' `calculate_output`, evaluated by rewardkit, never as code):
 * ```
 * expr    := term (("+" | "-") term)*
 * term    := unary (("*" | "/") unary)*
 * unary   := ("-" | "+") unary | power
 * power   := primary ("^" unary)?            right-associative; -2^2 = -(2^2)
 * primary := number | name | func "(" expr ("," expr)* ")" | "(" expr ")"
 * func    := min | max (one or more arguments) | abs | floor | ceil | exp | sqrt | log (one argument; log is ln)
 * name    := [A-Za-z_][A-Za-z0-9_.]*           a component name
 * number  := 12 | 0.8 | .5 | 1e-3
 * ```
 */
export type Expr =
  | { kind: "num"; value: number }
  | { kind: "var"; name: string }
  | { kind: "neg"; arg: Expr }
  | { kind: "bin"; op: "+" | "-" | "*" | "/" | "^"; left: Expr; right: Expr }
  | { kind: "call"; fn: FunctionName; args: Expr[] };

const FUNCTIONS = {
  min: (a: number[]) => Math.min(...a),
  max: (a: number[]) => Math.max(...a),
  abs: (a: number[]) => Math.abs(a[0]!),
  floor: (a: number[]) => Math.floor(a[0]!),
  ceil: (a: number[]) => Math.ceil(a[0]!),
  exp: (a: number[]) => Math.exp(a[0]!),
  sqrt: (a: number[]) => Math.sqrt(a[0]!),
  log: (a: number[]) => Math.log(a[0]!),
} as const;
export type FunctionName = keyof typeof FUNCTIONS;
const VARIADIC = new Set<string>(["min", "max"]);

/** A formula that does not parse; `column` is 1-based. */
export class FormulaError extends Error {
  constructor(
    message: string,
    readonly column: number,
  ) {
    super(`${message} at column ${column}`);
    this.name = "FormulaError";
  }
}

interface Token {
  type: "num" | "name" | "op" | "(" | ")" | "," | "end";
  text: string;
  pos: number;
}

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const num = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/.exec(src.slice(i));
    if (num) {
      out.push({ type: "num", text: num[0], pos: i });
      i += num[0].length;
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(src.slice(i));
    if (name) {
      out.push({ type: "name", text: name[0], pos: i });
      i += name[0].length;
      continue;
    }
    if ("+-*/^".includes(c)) out.push({ type: "op", text: c, pos: i });
    else if (c === "(" || c === ")" || c === ",") out.push({ type: c, text: c, pos: i });
    else throw new FormulaError(`unexpected character "${c}"`, i + 1);
    i++;
  }
  out.push({ type: "end", text: "end of formula", pos: src.length });
  return out;
}

/**
 * Parses a formula into an {@link Expr} with a hand-written recursive-descent parser.
 * @throws {FormulaError} naming the column of the first problem.
 */
export function parseFormula(src: string): Expr {
  const toks = tokenize(src);
  let k = 0;
  const peek = () => toks[k]!;
  const fail = (msg: string, t = peek()): never => {
    throw new FormulaError(msg, t.pos + 1);
  };
  const expect = (type: Token["type"], what: string) => {
    if (peek().type !== type) fail(`expected ${what}, found "${peek().text}"`);
    return toks[k++]!;
  };

  function expr(): Expr {
    let left = term();
    while (peek().type === "op" && (peek().text === "+" || peek().text === "-")) {
      const op = toks[k++]!.text as "+" | "-";
      left = { kind: "bin", op, left, right: term() };
    }
    return left;
  }
  function term(): Expr {
    let left = unary();
    while (peek().type === "op" && (peek().text === "*" || peek().text === "/")) {
      const op = toks[k++]!.text as "*" | "/";
      left = { kind: "bin", op, left, right: unary() };
    }
    return left;
  }
  function unary(): Expr {
    if (peek().type === "op" && (peek().text === "-" || peek().text === "+")) {
      const neg = toks[k++]!.text === "-";
      const arg = unary();
      return neg ? { kind: "neg", arg } : arg;
    }
    return power();
  }
  function power(): Expr {
    const base = primary();
    if (peek().type === "op" && peek().text === "^") {
      k++;
      return { kind: "bin", op: "^", left: base, right: unary() };
    }
    return base;
  }
  function primary(): Expr {
    const t = peek();
    if (t.type === "num") {
      k++;
      return { kind: "num", value: Number(t.text) };
    }
    if (t.type === "(") {
      k++;
      const e = expr();
      expect(")", '")"');
      return e;
    }
    if (t.type === "name") {
      k++;
      if (peek().type !== "(") return { kind: "var", name: t.text };
      if (!Object.hasOwn(FUNCTIONS, t.text))
        fail(`unknown function "${t.text}"; known: ${Object.keys(FUNCTIONS).join(", ")}`, t);
      k++;
      const args = [expr()];
      while (peek().type === ",") {
        k++;
        args.push(expr());
      }
      expect(")", '")" or ","');
      if (!VARIADIC.has(t.text) && args.length !== 1) fail(`${t.text} takes one argument, got ${args.length}`, t);
      return { kind: "call", fn: t.text as FunctionName, args };
    }
    return fail(t.type === "end" ? "unexpected end of formula" : `unexpected "${t.text}"`);
  }

  const e = expr();
  if (peek().type !== "end") fail(`unexpected "${peek().text}"`);
  return e;
}

/** Names a formula refers to, in first-use order. */
export function formulaNames(e: Expr, out: string[] = []): string[] {
  if (e.kind === "var") {
    if (!out.includes(e.name)) out.push(e.name);
  } else if (e.kind === "neg") formulaNames(e.arg, out);
  else if (e.kind === "bin") {
    formulaNames(e.left, out);
    formulaNames(e.right, out);
  } else if (e.kind === "call") for (const a of e.args) formulaNames(a, out);
  return out;
}

/**
 * Compiles a parsed formula into a function of a value array, with each name bound to an index.
 * Example: `compileFormula(parseFormula("0.8 * a + 0.2 * b"), {a: 0, b: 1})([1, 0.5])` → 0.9.
 */
export function compileFormula(
  e: Expr,
  index: Readonly<Record<string, number>>,
): (values: ArrayLike<number>) => number {
  switch (e.kind) {
    case "num": {
      const v = e.value;
      return () => v;
    }
    case "var": {
      const i = index[e.name];
      if (i === undefined) throw new Error(`formula name "${e.name}" is not bound`);
      return (x) => x[i]!;
    }
    case "neg": {
      const a = compileFormula(e.arg, index);
      return (x) => -a(x);
    }
    case "bin": {
      const l = compileFormula(e.left, index);
      const r = compileFormula(e.right, index);
      switch (e.op) {
        case "+":
          return (x) => l(x) + r(x);
        case "-":
          return (x) => l(x) - r(x);
        case "*":
          return (x) => l(x) * r(x);
        case "/":
          return (x) => l(x) / r(x);
        case "^":
          return (x) => l(x) ** r(x);
      }
      break;
    }
    case "call": {
      const f = FUNCTIONS[e.fn];
      const args = e.args.map((a) => compileFormula(a, index));
      return (x) => f(args.map((a) => a(x)));
    }
  }
  throw new Error("unreachable");
}

const PREC = { "+": 1, "-": 1, "*": 2, "/": 2, "^": 4 } as const;

/** Prints an expression with the fewest parentheses that keep its meaning (for `check` and the grader import). */
export function formatFormula(e: Expr, parent = 0, rightSide = false): string {
  switch (e.kind) {
    case "num":
      return String(e.value);
    case "var":
      return e.name;
    case "call":
      return `${e.fn}(${e.args.map((a) => formatFormula(a)).join(", ")})`;
    case "neg": {
      const s = `-${formatFormula(e.arg, 3)}`;
      return parent >= 3 ? `(${s})` : s;
    }
    case "bin": {
      const p = PREC[e.op];
      // left-associative + - * /: parenthesize a right operand of equal precedence; ^ is right-associative
      const s = `${formatFormula(e.left, e.op === "^" ? p + 1 : p)} ${e.op} ${formatFormula(e.right, e.op === "^" ? p - 1 : p, e.op !== "^")}`;
      return p < parent || (p === parent && rightSide) ? `(${s})` : s;
    }
  }
}

/** Replaces names by expressions (the grader import uses it to turn `ne` checks into `(1 - x)`). */
export function substitute(e: Expr, by: Readonly<Record<string, Expr>>): Expr {
  switch (e.kind) {
    case "var":
      return by[e.name] ?? e;
    case "neg":
      return { kind: "neg", arg: substitute(e.arg, by) };
    case "bin":
      return { ...e, left: substitute(e.left, by), right: substitute(e.right, by) };
    case "call":
      return { ...e, args: e.args.map((a) => substitute(a, by)) };
    default:
      return e;
  }
}

const formulaOptions = z.strictObject({
  /** The reward as a formula of component names, e.g. `"0.8 * accuracy + 0.2 * format"`. */
  formula: z.string().min(1),
});

/**
 * `formula`: the reward is a formula of component scores in the grammar of OpenAI graders' `calculate_output`
 * (see {@link Expr}). A component's variable is its score; under `onUnscorable: zero` an unscorable component
 * and a component whose gate is closed enter as 0. Component weights are not used. A formula whose value is not
 * finite (division by zero, `log(0)`, `sqrt(-1)`) gives `reward: null`.
 * Example: `0.8 * accuracy + 0.2 * format` with accuracy 1, format 0 → 0.8.
 */
export const formulaAggregator: AggregatorDefinition<z.infer<typeof formulaOptions>> = {
  type: "formula",
  summary: "a restricted arithmetic formula of component scores (OpenAI calculate_output grammar)",
  options: formulaOptions,
  weighted: false,
  compile(o, ctx) {
    let ast: Expr;
    try {
      ast = parseFormula(o.formula);
    } catch (e) {
      return { issues: [{ path: ["formula"], message: (e as Error).message }] };
    }
    const index: Record<string, number> = {};
    ctx.names.forEach((n, i) => (index[n] = i));
    const unknown = formulaNames(ast).filter((n) => index[n] === undefined);
    if (unknown.length > 0) {
      return {
        issues: [
          {
            path: ["formula"],
            message: `unknown component${unknown.length > 1 ? "s" : ""} ${unknown.map((n) => `"${n}"`).join(", ")}; known: ${ctx.names.join(", ")}`,
          },
        ],
      };
    }
    const uses = ctx.names.map((n) => formulaNames(ast).includes(n));
    const f = compileFormula(ast, index);
    const values = new Float64Array(ctx.names.length);
    return {
      aggregate(terms) {
        for (let i = 0; i < terms.length; i++) values[i] = termValue(terms[i]!);
        const r = f(values);
        return Number.isFinite(r) ? r : null;
      },
      uses,
      describe: formatFormula(ast),
    };
  },
};
