import { describe, expect, it } from "vitest";
import { ok, unscorable } from "../core/types.js";
import type { ComponentResult } from "../core/types.js";
import { SpecError } from "../spec/errors.js";
import { parseSpec } from "../spec/load.js";
import { desirability } from "./desirability.js";
import { computeReward } from "./reward.js";

/** A spec with components a, b, c (exact, contains, overlong) and the given top-level lines. */
const spec = (top: string, comp = "") =>
  parseSpec(
    `components:
  - {name: a, type: exact${comp}}
  - {name: b, type: contains, value: x, weight: 0.5}
  - {name: c, type: overlong, maxLength: 100, bufferLength: 20, weight: 2}
${top}`,
    "t.yaml",
  );
const R = (...s: Array<number | null>): ComponentResult[] =>
  s.map((v) => (v === null ? unscorable("no_answer") : ok(v)));

describe("aggregators", () => {
  it("weighted-sum is the default and accepts the string form", () => {
    expect(computeReward(spec(""), R(1, 1, -0.5))).toBe(0.5); // 1 + 0.5 − 1
    expect(computeReward(spec("aggregate: weighted-sum"), R(1, 0, -0.25))).toBe(0.5);
  });

  it("gated: a component counts only when its gate passes; unscorable enters as 0", () => {
    const s = parseSpec(
      `components:
  - {name: accuracy, type: exact}
  - {name: brevity, type: overlong, maxLength: 100, bufferLength: 20, gate: accuracy}
aggregate: gated`,
      "t.yaml",
    );
    expect(computeReward(s, R(1, -0.25))).toBe(0.75);
    expect(computeReward(s, R(0, -0.25))).toBe(0);
    expect(computeReward(s, R(null, -0.25))).toBe(0);
    expect(() => spec("aggregate: gated")).toThrow(/gated needs at least one component with a `gate`/);
  });

  it("formula: OpenAI calculate_output grammar over component names; weights ignored; unscorable → 0", () => {
    const s = spec(`aggregate: {type: formula, formula: "0.8 * a + 0.2 * b"}`);
    expect(computeReward(s, R(1, 0, -3))).toBeCloseTo(0.8, 15);
    expect(computeReward(s, R(1, 1, -3))).toBeCloseTo(1, 15);
    expect(computeReward(s, R(null, 1, 0))).toBeCloseTo(0.2, 15);
    const f = spec(
      `aggregate: {type: formula, formula: "max(a, b) - abs(c) ^ 2 / 4 + sqrt(4) * floor(1.7) - log(exp(1))"}`,
    );
    // max(0, 1) − 0.25 / 4 + 2 · 1 − 1 = 1.9375
    expect(computeReward(f, R(0, 1, -0.5))).toBe(1.9375);
    expect(computeReward(spec(`aggregate: {type: formula, formula: "a / b"}`), R(1, 0, 0))).toBeNull();
  });

  it("formula errors name the column and the unknown names", () => {
    expect(() => spec(`aggregate: {type: formula, formula: "0.8 * accuracy + b"}`)).toThrow(
      /aggregate.formula: unknown component "accuracy"; known: a, b, c/,
    );
    expect(() => spec(`aggregate: {type: formula, formula: "0.8 * (a + b"}`)).toThrow(
      /expected "\)", found "end of formula" at column 13/,
    );
    expect(() => spec(`aggregate: {type: formula, formula: "eval(a)"}`)).toThrow(/unknown function "eval"/);
    expect(() => spec(`aggregate: formula`)).toThrow(/aggregate.formula: required/);
  });

  it("lexicographic: priority digits, by pass (base 2) or by quantized score", () => {
    const s = spec(`aggregate: {type: lexicographic, order: [b, c, a]}`);
    // b pass, c pass (overlong passes at 0), a fail → (4 + 2 + 0)/7
    expect(computeReward(s, R(0, 1, 0))).toBeCloseTo(6 / 7, 15);
    // b fail, c pass, a pass → 3/7 < any reward with b passing
    expect(computeReward(s, R(1, 0, 0))).toBeCloseTo(3 / 7, 15);
    expect(computeReward(s, R(0, 1, -1))).toBeCloseTo(4 / 7, 15);
    const q = spec(`aggregate: {type: lexicographic, order: [a, b], by: score, levels: 3}`);
    // digits floor(s·2): a 0.5 → 1, b 1 → 2: (1·3 + 2)/8
    expect(computeReward(q, R(0.5, 1, 0))).toBeCloseTo(5 / 8, 15);
  });

  it("geometric-desirability: Derringer–Suich curves and a weighted geometric mean", () => {
    expect(desirability({ kind: "larger-is-better", low: 0, high: 10, shape: 2 }, 5)).toBe(0.25);
    expect(desirability({ kind: "smaller-is-better", low: 0, high: 10, shape: 1 }, 2)).toBe(0.8);
    expect(desirability({ kind: "target-is-best", low: 0, target: 5, high: 10, shapeLow: 1, shapeHigh: 1 }, 7.5)).toBe(
      0.5,
    );
    expect(desirability({ kind: "target-is-best", low: 0, target: 5, high: 10, shapeLow: 1, shapeHigh: 1 }, 11)).toBe(
      0,
    );
    const s = spec(`aggregate:
  type: geometric-desirability
  curves:
    c: {kind: smaller-is-better, low: -1, high: 0}`);
    // weights a 1, b 0.5, c 2; c = −0.5 → d = 0.5; a = 1 → 1; b = 0.25 → 0.25
    // D = 1^(1/3.5) · 0.25^(0.5/3.5) · 0.5^(2/3.5)
    const want = 0.25 ** (0.5 / 3.5) * 0.5 ** (2 / 3.5);
    expect(computeReward(s, R(1, 0.25, -0.5))).toBeCloseTo(want, 14);
    expect(computeReward(s, R(0, 1, -0.5))).toBe(0); // one unacceptable measurement
  });

  it("min, log-sigmoid-sum and par", () => {
    expect(computeReward(spec("aggregate: min"), R(1, 0.5, -0.25))).toBe(-0.25);
    const ls = spec(`aggregate: {type: log-sigmoid-sum, references: {a: 0.5}}`);
    // 1·logσ(1 − 0.5) + 0.5·logσ(0) + 2·logσ(0)
    const lsig = (x: number) => -Math.log(1 + Math.exp(-x));
    expect(computeReward(ls, R(1, 0, 0))).toBeCloseTo(lsig(0.5) + 0.5 * Math.log(0.5) + 2 * Math.log(0.5), 14);
    expect(lsig(1)).toBeCloseTo(-0.3132616875182228, 15);
    const par = spec(`aggregate: {type: par, reference: 0.5}`);
    // r = 1 + 0.5 − 0 = 1.5 → σ(1) = 0.7310585786300049
    expect(computeReward(par, R(1, 1, 0))).toBeCloseTo(0.7310585786300049, 15);
  });

  it("onUnscorable: exclude nulls the reward only for components the aggregator reads", () => {
    const s = spec(`aggregate: {type: formula, formula: "a"}\nonUnscorable: exclude`);
    expect(computeReward(s, R(1, null, 0))).toBe(1);
    expect(computeReward(s, R(null, 1, 0))).toBeNull();
  });

  it("unknown aggregators and options are spec errors with a path", () => {
    expect(() => spec("aggregate: product")).toThrow(SpecError);
    expect(() => spec("aggregate: product")).toThrow(
      /aggregate: unknown aggregator "product"; known: formula, gated, geometric-desirability, lexicographic/,
    );
    expect(() => spec("aggregate: {type: min, foo: 1}")).toThrow(/aggregate.foo: unknown min option "foo"/);
    expect(() => spec("aggregate: {type: lexicographic, order: [a, z]}")).toThrow(
      /aggregate.order\[1\]: unknown component "z"/,
    );
  });
});
