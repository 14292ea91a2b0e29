import { describe, expect, it } from "vitest";
import { monteCarloOption, monteCarloScores, prefixValue } from "./monte-carlo.js";

const o = (x: Record<string, unknown> = {}) => monteCarloOption.parse(x);

describe("Monte-Carlo step values (Math-Shepherd, PAV)", () => {
  it("by hand: [1, 0, 0, 1] → soft 0.5, hard 1, posterior (Beta(1, 1)) 0.5; [1] → 1, 1, 2/3", () => {
    expect(prefixValue([1, 0, 0, 1], o())).toBe(0.5);
    expect(prefixValue([1, 0, 0, 1], o({ estimate: "hard" }))).toBe(1);
    expect(prefixValue([1, 0, 0, 1], o({ estimate: "posterior" }))).toBe(0.5);
    expect(prefixValue([1], o({ estimate: "posterior" }))).toBeCloseTo(2 / 3, 15);
    // Beta(1, 3): (1 + 1)/(1 + 3 + 1) = 0.4; no continuations → the prior mean 0.25 (soft/hard: null)
    expect(prefixValue([true], o({ estimate: "posterior", prior: { alpha: 1, beta: 3 } }))).toBeCloseTo(0.4, 15);
    expect(prefixValue([], o({ estimate: "posterior", prior: { alpha: 1, beta: 3 } }))).toBe(0.25);
    expect(prefixValue([], o())).toBeNull();
    // success threshold: partial outcomes below it are failures
    expect(prefixValue([0.9, 1, 0.5], o({ successThreshold: 0.8 }))).toBeCloseTo(2 / 3, 15);
  });

  it("progress = v_k − v_{k−1} needs the prompt's own continuations first", () => {
    expect(
      monteCarloScores(
        [
          [0, 1],
          [1, 1],
          [1, 0],
        ],
        2,
        o({ score: "progress" }),
      ),
    ).toEqual({
      scores: [0.5, -0.5],
      values: [0.5, 1, 0.5],
    });
    expect(monteCarloScores([[1], [0]], 2, o())).toEqual({ scores: [1, 0], values: [1, 0] });
    expect(monteCarloScores([[1], [0]], 2, o({ score: "progress" }))).toHaveProperty("problem");
    expect(monteCarloScores(undefined, 2, o())).toHaveProperty("problem");
  });

  it("policy trick: one lucky continuation makes a hard value 1; the posterior with n = 1 stays at 2/3", () => {
    // a step that is usually wrong but was followed by a single (lucky) successful continuation
    expect(prefixValue([1], o({ estimate: "hard" }))).toBe(1);
    expect(prefixValue([1], o({ estimate: "soft" }))).toBe(1);
    expect(prefixValue([1], o({ estimate: "posterior" }))).toBeCloseTo(2 / 3, 15);
    // with 16 continuations the posterior tracks the rate: 2/16 successes → 3/18
    expect(prefixValue([1, 1, ...new Array<number>(14).fill(0)], o({ estimate: "posterior" }))).toBeCloseTo(1 / 6, 15);
  });
});
