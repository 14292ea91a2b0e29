import { describe, expect, it } from "vitest";
import { compileFormula, formatFormula, formulaNames, parseFormula, substitute } from "./formula.js";

const ev = (src: string, vars: Record<string, number> = {}) => {
  const names = Object.keys(vars);
  return compileFormula(parseFormula(src), Object.fromEntries(names.map((n, i) => [n, i])))(names.map((n) => vars[n]!));
};

describe("formula parser", () => {
  it("precedence and associativity", () => {
    expect(ev("1 + 2 * 3")).toBe(7);
    expect(ev("(1 + 2) * 3")).toBe(9);
    expect(ev("8 / 4 / 2")).toBe(1);
    expect(ev("10 - 4 - 3")).toBe(3);
    expect(ev("2 ^ 3 ^ 2")).toBe(512); // right-associative
    expect(ev("-2 ^ 2")).toBe(-4);
    expect(ev("2 ^ -1")).toBe(0.5);
    expect(ev(".5e1 + 1e-1")).toBe(5.1);
  });

  it("functions and names (OpenAI multi examples)", () => {
    expect(ev("(name + email) / 2", { name: 0.9, email: 1 })).toBeCloseTo(0.95, 15);
    expect(ev("(100 - abs(expected_score - actual_score)) / 100", { expected_score: 80, actual_score: 65 })).toBe(0.85);
    expect(ev("min(a, b, 0.3) + max(a) + ceil(0.2) + floor(-0.2)", { a: 0.5, b: 0.7 })).toBe(0.3 + 0.5 + 1 - 1);
    expect(formulaNames(parseFormula("a.b + min(c, a.b)"))).toEqual(["a.b", "c"]);
  });

  it("never evaluates code: anything outside the grammar is an error with a column", () => {
    expect(() => parseFormula("a; process.exit()")).toThrow(/unexpected character ";" at column 2/);
    expect(() => parseFormula("constructor.constructor('x')()")).toThrow(
      /unknown function "constructor.constructor"|unexpected character/,
    );
    expect(() => parseFormula("abs(1, 2)")).toThrow(/abs takes one argument/);
    expect(() => parseFormula("1 +")).toThrow(/unexpected end of formula at column 4/);
    expect(() => parseFormula("1 2")).toThrow(/unexpected "2" at column 3/);
  });

  it("prints with minimal parentheses and substitutes names", () => {
    expect(formatFormula(parseFormula("(a + b) * c - (d - e)"))).toBe("(a + b) * c - (d - e)");
    expect(formatFormula(parseFormula("a - (b + c)"))).toBe("a - (b + c)");
    expect(formatFormula(parseFormula("(a ^ b) ^ c"))).toBe("(a ^ b) ^ c");
    expect(formatFormula(parseFormula("-(a + b)"))).toBe("-(a + b)");
    const e = substitute(parseFormula("(x + y) / 2"), { x: parseFormula("1 - x") });
    expect(formatFormula(e)).toBe("(1 - x + y) / 2");
    expect(ev(formatFormula(e), { x: 1, y: 1 })).toBe(0.5);
  });
});
