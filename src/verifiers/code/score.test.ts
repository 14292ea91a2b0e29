import { describe, expect, it } from "vitest";
import type { TestStatus } from "../../sandbox/types.js";
import { difficultyWeights, scoreTests } from "./score.js";

const S = (s: string): TestStatus[] => [...s].map((c) => (c === "1" ? "pass" : "fail"));

describe("scoreTests", () => {
  it("all and fraction", () => {
    expect(scoreTests(S("111"), "all")).toBe(1);
    expect(scoreTests(S("101"), "all")).toBe(0);
    expect(scoreTests(S("101"), "fraction")).toBeCloseTo(2 / 3, 12);
    expect(scoreTests([], "fraction")).toBe(0);
  });
  it("weighted: the docstring example (VeRPO difficulty weights, denseScale 0.5)", () => {
    const w = difficultyWeights([1, 0.5, 0]);
    expect(w).toEqual([0.05, 0.5, 1]);
    expect(scoreTests(S("101"), "weighted", w, 0.5)).toBeCloseTo((0.5 * 1.05) / 1.55, 12);
  });
  it("weighted: a full pass is 1 and beats every partial pass; harder passed tests score higher", () => {
    const w = difficultyWeights([0.9, 0.9, 0.1]);
    expect(scoreTests(S("111"), "weighted", w)).toBe(1);
    expect(scoreTests(S("110"), "weighted", w)).toBeLessThan(scoreTests(S("001"), "weighted", w));
    expect(scoreTests(S("110"), "weighted", w)).toBeLessThan(0.5);
  });
  it("weighted without statistics is denseScale × fraction; weights of the wrong length are ignored", () => {
    expect(scoreTests(S("1100"), "weighted", undefined, 0.5)).toBeCloseTo(0.25, 12);
    expect(scoreTests(S("1100"), "weighted", [1, 2], 0.5)).toBeCloseTo(0.25, 12);
  });
});
