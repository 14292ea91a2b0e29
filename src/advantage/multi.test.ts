import { describe, expect, it } from "vitest";
import { advantageDiagnostics } from "../diagnostics/advantages.js";
import { advantages } from "./compute.js";
import { buildGroupIndex } from "./groups.js";
import { close, run } from "./golden.test-helper.js";
import type { AdvantageInput } from "./types.js";

function whiten(xs: number[], mode: "sqrt-var" | "std-plus", eps: number): number[] {
  const v = xs.filter((x) => !Number.isNaN(x));
  const m = v.reduce((s, x) => s + x, 0) / v.length;
  const var_ = v.reduce((s, x) => s + (x - m) ** 2, 0) / (v.length - 1);
  const d = mode === "sqrt-var" ? Math.sqrt(var_ + eps) : Math.sqrt(var_) + eps;
  return xs.map((x) => (Number.isNaN(x) ? NaN : (x - m) / d));
}

// g0 (pos 0–3): acc [1, 0, 0, 1], fmt [.5, .5, 1, 0]; g1 (pos 4–6): acc [1, 1, 1] (zero variance), fmt [0, 1, .5];
// g2 (pos 7): singleton acc 1, fmt .3; pos 8: g1 with a null reward (left out everywhere).
const N = NaN;
const acc = Float64Array.from([1, 0, 0, 1, 1, 1, 1, 1, 0]);
const fmt = Float64Array.from([0.5, 0.5, 1, 0, 0, 1, 0.5, 0.3, 1]);
const rewards = Float64Array.from([1.5, 0.5, 1, 1, 1, 2, 1.5, 1.3, NaN]);
const input: AdvantageInput = {
  rewards,
  groups: buildGroupIndex([0, 0, 0, 0, 1, 1, 1, 2, 1]),
  components: { names: ["acc", "fmt"], scores: [acc, fmt] },
};

/** GDPO sums before the batch step, given per-component ε and singleton value. */
function gdpoSums(eps: number, singletonUnit: boolean): number[] {
  const a0 = 0.5 / (Math.sqrt(1 / 3) + eps); // acc g0: mean .5, unbiased std sqrt(1/3)
  const f0 = 0.5 / (Math.sqrt(1 / 6) + eps); // fmt g0: mean .5, Σd² = .5, unbiased var 1/6
  const f1 = 0.5 / (0.5 + eps); // fmt g1: mean .5, Σd² = .5, unbiased var .25
  const s = singletonUnit ? (1 + 0.3) / (1 + eps) : 0; // verl singleton: μ = 0, σ = 1 per component
  return [a0, -a0, -a0 + f0, a0 - f0, -f1, f1, 0, s, N];
}

describe("gdpo", () => {
  it("verl: per component (r − μ)/(σ_{n−1} + 1e-6), summed with weight 1, then (x − μ)/sqrt(var_{n−1} + 1e-8)", () => {
    close(run("gdpo", input, "verl"), whiten(gdpoSums(1e-6, true), "sqrt-var", 1e-8));
  });
  it("trl: per component ε = 1e-4, then (x − μ)/(σ_{n−1} + 1e-4)", () => {
    close(run("gdpo", input, "trl"), whiten(gdpoSums(1e-4, false), "std-plus", 1e-4));
  });
  it("weights scale each component before the sum; unknown names are refused", () => {
    const a0 = 0.5 / (Math.sqrt(1 / 3) + 1e-6);
    const f0 = 0.5 / (Math.sqrt(1 / 6) + 1e-6);
    const f1 = 0.5 / (0.5 + 1e-6);
    const x = [
      2 * a0,
      -2 * a0,
      -2 * a0 + 0.5 * f0,
      2 * a0 - 0.5 * f0,
      -0.5 * f1,
      0.5 * f1,
      0,
      (2 + 0.15) / (1 + 1e-6),
      N,
    ];
    close(run("gdpo", input, "verl", { weights: { acc: 2, fmt: 0.5 } }), whiten(x, "sqrt-var", 1e-8));
    expect(() => run("gdpo", input, "verl", { weights: { nope: 1 } })).toThrow(/unknown component "nope"/);
    expect(() => run("gdpo", { rewards, groups: input.groups })).toThrow(/per-component/);
  });
});

describe("mo_grpo", () => {
  it("each component divided by its within-group population std", () => {
    const e = 1e-6;
    const a0 = 0.5 / (0.5 + e);
    const f0 = 0.5 / (Math.sqrt(0.5 / 4) + e);
    const f1 = 0.5 / (Math.sqrt(0.5 / 3) + e);
    close(run("mo_grpo", input), [a0, -a0, -a0 + f0, a0 - f0, -f1, f1, 0, 0, N]);
  });
});

describe("corr_grpo", () => {
  it("centered total over sqrt(Σ ρ + ε), ε inside the root (the authors' Listing 1)", () => {
    // g0: c_acc = [.5, −.5, −.5, .5], c_fmt = [0, 0, .5, −.5]; ρ = −.5 / sqrt(1 · .5) = −1/√2; D = 2 − √2
    const d0 = Math.sqrt(2 - Math.SQRT2 + 1e-6);
    // g1: only fmt active → D = 1
    const d1 = Math.sqrt(1 + 1e-6);
    close(run("corr_grpo", input), [0.5 / d0, -0.5 / d0, 0, 0, -0.5 / d1, 0.5 / d1, 0, 0, N]);
  });
});

describe("rdpo", () => {
  it("uncorrelated binary components: quantiles ±1/4, C = diag(1/16) → z = 4u", () => {
    const inp = {
      rewards: Float64Array.from([2, 0, 1, 1]),
      groups: buildGroupIndex([0, 0, 0, 0]),
      components: { names: ["a", "b"], scores: [Float64Array.from([1, 0, 0, 1]), Float64Array.from([1, 0, 1, 0])] },
    };
    close(run("rdpo", inp), [2, -2, 0, 0]);
  });
  it("magnitude-aware: a group's spread relative to the batch range scales its quantiles", () => {
    // g0 [0, 1]: m = 1, u = ∓.25; g1 [.4, .6]: m = .2, u = ∓.05; C = (2·.0625 + 2·.0025)/4 = .0325
    const inp = {
      rewards: Float64Array.from([0, 1, 0.4, 0.6]),
      groups: buildGroupIndex([0, 0, 1, 1]),
      components: { names: ["a"], scores: [Float64Array.from([0, 1, 0.4, 0.6])] },
    };
    const s = Math.sqrt(0.0325);
    close(run("rdpo", inp), [-0.25 / s, 0.25 / s, -0.05 / s, 0.05 / s]);
  });
});

describe("advantage diagnostics", () => {
  it("mean/std, zero share, ESS, zero-variance groups, collapse, component correlation", () => {
    // GRPO on the summed reward: (1, 0) and (0, 1) get the same advantage → a collapse GDPO avoids
    const comps = { a: [1, 0, 0, 1], b: [0, 1, 0, 1] };
    const r = [1, 1, 0, 2];
    const grpo = advantages({ rewards: r, groups: ["p", "p", "p", "p"] }, { estimator: "grpo", preset: "verl" });
    const inp: AdvantageInput = {
      rewards: Float64Array.from(r),
      groups: buildGroupIndex([0, 0, 0, 0]),
      components: { names: ["a", "b"], scores: [Float64Array.from(comps.a), Float64Array.from(comps.b)] },
    };
    const d = advantageDiagnostics(inp, grpo);
    expect(d.collapse).toEqual({ collapsedGroups: 1, distinctVectors: 4, distinctAdvantages: 3, rate: 0.25 });
    expect(d.zeroFraction).toBe(0.5);
    expect(d.mean).toBeCloseTo(0, 12);
    // |A| = [0, 0, s, s] → ESS = (2s)²/(2s²) = 2
    expect(d.ess).toBeCloseTo(2, 12);
    expect(d.componentCorrelation!.matrix[0]![1]).toBeCloseTo(0, 12);
    const gd = advantages(
      { rewards: r, groups: ["p", "p", "p", "p"], components: comps },
      { estimator: "gdpo", preset: "verl" },
    );
    expect(advantageDiagnostics(inp, gd).collapse!.collapsedGroups).toBe(1); // GDPO also maps (1,0) and (0,1) together here: equal per-component scales
    const flat = advantageDiagnostics(
      { rewards: Float64Array.from([1, 1, 2]), groups: buildGroupIndex([0, 0, 1]) },
      Float64Array.from([0, 0, 0]),
    );
    expect(flat.groups).toEqual({ count: 2, singletons: 1, zeroVariance: 1, zeroVarianceFraction: 1 });
    expect(flat.ess).toBe(0);
  });
});

describe("advantages() library API", () => {
  it("accepts plain arrays, null rewards, string group keys, presets and option overrides", () => {
    const a = advantages(
      { rewards: [1, null, 0, 0, 1], groups: ["x", "x", "x", "y", "y"] },
      { estimator: "grpo", preset: "trl", options: { epsilon: 0 } },
    );
    close(a, [1 / Math.SQRT2, N, -1 / Math.SQRT2, -1 / Math.SQRT2, 1 / Math.SQRT2]);
    expect(() => advantages({ rewards: [1], groups: ["x"] }, { estimator: "nope" })).toThrow(/unknown estimator/);
    expect(() => advantages({ rewards: [1], groups: ["x"] }, { preset: "nope" })).toThrow(/no preset "nope"/);
    expect(() => advantages({ rewards: [1, 2], groups: ["x"] })).toThrow(RangeError);
  });
});
