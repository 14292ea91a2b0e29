import { describe, expect, it } from "vitest";
import { getEstimator } from "./registry.js";
import { buildGroupIndex } from "./groups.js";

const est = getEstimator("reinforce_pp")!;
const input = (rewards: number[], lengths?: number[]) => ({
  rewards: Float64Array.from(rewards),
  groups: buildGroupIndex(rewards.map((_, i) => i % 2)),
  ...(lengths ? { lengths: Float64Array.from(lengths) } : {}),
});

describe("reinforce_pp (verl compute_reinforce_plus_plus_outcome_advantage, γ = 1)", () => {
  it("whitens the rewards over the batch: mean 0.5, unbiased var 1/3", () => {
    const a = est.compute(input([1, 0, 0, 1]), est.options.parse({}));
    const v = 0.5 / Math.sqrt(1 / 3 + 1e-8);
    [v, -v, -v, v].forEach((x, i) => expect(a[i]).toBeCloseTo(x, 12));
  });
  it("per token (verl's masked_whiten): lengths [1, 1, 2, 2] give W = 6, mean 0.5, var 6·0.25/5 = 0.3", () => {
    const a = est.compute(input([1, 0, 0, 1], [1, 1, 2, 2]), est.options.parse({ whiten: "token" }));
    const v = 0.5 / Math.sqrt(0.3 + 1e-8);
    [v, -v, -v, v].forEach((x, i) => expect(a[i]).toBeCloseTo(x, 12));
  });
  it("a null reward stays null and is left out of the statistics", () => {
    const a = est.compute(input([1, NaN, 0]), est.options.parse({}));
    expect(Number.isNaN(a[1]!)).toBe(true);
    expect(a[0]).toBeCloseTo(0.5 / Math.sqrt(0.5 + 1e-8), 12);
  });
});
