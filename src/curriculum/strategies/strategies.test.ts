import { describe, expect, it } from "vitest";
import { emptyStats, promptRow } from "../stats.js";
import type { PromptRow } from "../stats.js";
import { allocate, knapsack, mixedProbability } from "./knapsack.js";
import { successGuided } from "./success-guided.js";
import { currentStage, difficultyBins, stagesOf } from "./difficulty-bins.js";

const row = (id: string, attempts: number, successes: number, ew?: number): PromptRow => {
  const r = promptRow(id, { ...emptyStats(), attempts, successes }, { a: 1, b: 1 });
  return ew === undefined ? r : { ...r, ew_pass_rate: ew };
};

describe("success-guided", () => {
  it("weight ∝ ε + p(1−p): the worked example of the docstring", () => {
    const w = successGuided.weigh([row("a", 8, 0), row("b", 8, 4), row("c", 8, 8)], {}).map((x) => x.weight);
    expect(w[0]).toBeCloseTo(0.01 / 0.28, 12);
    expect(w[1]).toBeCloseTo(0.26 / 0.28, 12);
    expect(w[2]).toBeCloseTo(0.01 / 0.28, 12);
  });

  it("smooth: E[p(1−p)] under the Beta posterior (2 failures weigh more than 50)", () => {
    const [two, fifty] = successGuided.weigh([row("a", 2, 0), row("b", 50, 0)], { smooth: true, floor: 0 });
    // Beta(1, 3): 1·3 / (4·5) = 0.15; Beta(1, 51): 51 / (52·53)
    const e2 = 0.15;
    const e50 = 51 / (52 * 53);
    expect(two!.weight).toBeCloseTo(e2 / (e2 + e50), 12);
    expect(fifty!.weight).toBeCloseTo(e50 / (e2 + e50), 12);
  });
});

describe("knapsack", () => {
  it("f(n) = 1 − pⁿ − (1−p)ⁿ; the hand example: p = 0.5, 0.1, budget 4 → 4 rollouts to the first", () => {
    expect(mixedProbability(0.5, 2)).toBe(0.5);
    expect(mixedProbability(0.1, 2)).toBeCloseTo(0.18, 15);
    expect(mixedProbability(0.3, 0)).toBe(0);
    expect(mixedProbability(0.3, 1)).toBeCloseTo(0, 15);
    // gains: 0.5 (first pair of a), then a: 0.875 − 0.5 = 0.375 > 0.18 (first pair of b)
    expect(allocate([0.5, 0.1], 4, 4, 2)).toEqual([4, 0]);
    expect(allocate([0.5, 0.1], 6, 4, 2)).toEqual([4, 2]); // a capped at 4
    expect(allocate([0, 1], 8, 8, 2)).toEqual([0, 0]); // no gain anywhere: nothing is spent
  });

  it("greedy by marginal gain equals brute force on small cases", () => {
    const value = (ps: number[], ns: number[]) => ps.reduce((s, p, i) => s + mixedProbability(p, ns[i]!), 0);
    const cases: Array<[number[], number, number, number]> = [
      [[0.5, 0.2, 0.9], 10, 6, 2],
      [[0.05, 0.5, 0.7, 0.3], 12, 8, 2],
      [[0.1, 0.4, 0.6], 12, 9, 3],
      [[0.02, 0.98, 0.5, 0.25], 16, 8, 4],
    ];
    for (const [ps, budget, cap, unit] of cases) {
      let best = 0;
      const maxU = Math.floor(cap / unit);
      const walk = (i: number, left: number, ns: number[]): void => {
        if (i === ps.length) {
          best = Math.max(best, value(ps, ns));
          return;
        }
        for (let u = 0; u <= maxU && u * unit <= left; u++) walk(i + 1, left - u * unit, [...ns, u * unit]);
      };
      walk(0, budget, []);
      const got = allocate(ps, budget, cap, unit);
      expect(got.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(budget);
      expect(value(ps, got)).toBeCloseTo(best, 12);
    }
  });

  it("weights are the shares of the budget, with the rollouts as an extra column", () => {
    const w = knapsack.weigh([row("a", 8, 4), row("b", 10, 1)], { budget: 6, cap: 4 });
    expect(w).toEqual([
      { weight: 4 / 6, extra: { rollouts: 4 } },
      { weight: 2 / 6, extra: { rollouts: 2 } },
    ]);
  });
});

describe("difficulty-bins", () => {
  const rows = [
    row("e1", 10, 9, 0.9),
    row("e2", 10, 8, 0.85),
    row("m1", 10, 5, 0.5),
    row("m2", 10, 4, 0.4),
    row("h1", 10, 1, 0.1),
    row("h2", 10, 0, 0),
  ];

  it("stages from easy to hard by pass rate, equal sizes", () => {
    expect(stagesOf(rows, 3)).toEqual([0, 0, 1, 1, 2, 2]);
    expect(stagesOf(rows.slice(0, 5), 2)).toEqual([0, 0, 0, 1, 1]);
  });

  it("advances when a stage has window attempts at passRate (EW), and weighs current 1, passed review, later 0", () => {
    const st = stagesOf(rows, 3);
    expect(currentStage(rows, st, { window: 20, passRate: 0.8 })).toBe(1); // easy: 20 attempts at 0.875
    expect(currentStage(rows, st, { window: 21, passRate: 0.8 })).toBe(0); // window not full
    expect(currentStage(rows, st, { window: 20, passRate: 0.9 })).toBe(0); // not good enough
    const w = difficultyBins.weigh(rows, { window: 20 }).map((x) => x.weight);
    // current stage 1 (2 prompts · 1), passed stage 0 (2 · 0.1): total 2.2
    expect(w[0]).toBeCloseTo(0.1 / 2.2, 12);
    expect(w[2]).toBeCloseTo(1 / 2.2, 12);
    expect(w[4]).toBe(0);
  });
});
