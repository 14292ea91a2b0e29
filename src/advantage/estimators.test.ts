import { describe, expect, it } from "vitest";
import { buildGroupIndex } from "./groups.js";
import { close, run } from "./golden.test-helper.js";
import type { AdvantageInput } from "./types.js";

/** Runs a registered estimator with a preset and/or options. */

// The shared batch, interleaved on purpose: g0 = [1, 0, 0, 1]; g1 = [1, 1, 1] (zero variance); g2 = [0.5] (singleton);
// g3 = [2, null, 0] (a null reward is left out).
//          pos:  0  1  2  3    4  5  6  7    8  9  10
const rewards = Float64Array.from([1, 1, 0, 0.5, 2, 0, 1, NaN, 1, 1, 0]);
const groupIds = [0, 1, 0, 2, 3, 0, 1, 3, 0, 1, 3];
const input: AdvantageInput = { rewards, groups: buildGroupIndex(groupIds) };
const N = NaN;
const S0u = Math.sqrt(1 / 3); // g0 unbiased std: 4 · 0.25 / 3
const S3u = Math.SQRT2; // g3 [2, 0]: mean 1, (1 + 1)/1

describe("grpo presets reproduce each peer's formula (hand-derived)", () => {
  it("verl: (r − μ)/(σ_{n−1} + 1e-6); singleton μ = 0, σ = 1 → r/(1 + 1e-6)", () => {
    const a = 0.5 / (S0u + 1e-6);
    const b = 1 / (S3u + 1e-6);
    close(run("grpo", input, "verl"), [a, 0, -a, 0.5 / (1 + 1e-6), b, -a, 0, N, a, 0, -b]);
  });
  it("trl: ε = 1e-4, singleton 0", () => {
    const a = 0.5 / (S0u + 1e-4);
    const b = 1 / (S3u + 1e-4);
    close(run("grpo", input, "trl"), [a, 0, -a, 0, b, -a, 0, N, a, 0, -b]);
  });
  it("openrlhf: ε = 1e-9, singleton 0", () => {
    const a = 0.5 / (S0u + 1e-9);
    const b = 1 / (S3u + 1e-9);
    close(run("grpo", input, "openrlhf"), [a, 0, -a, 0, b, -a, 0, N, a, 0, -b]);
  });
  it("open-instruct: population std + 1e-8", () => {
    const a = 0.5 / (0.5 + 1e-8); // g0 population std 0.5
    const b = 1 / (1 + 1e-8); // g3 population std 1
    close(run("grpo", input, "open-instruct"), [a, 0, -a, 0, b, -a, 0, N, a, 0, -b]);
  });
  it("nemo: leave-one-out baseline and std of the others, ÷(σ + 1e-6) only where σ > 0", () => {
    // g0, r = 1: others [0, 0, 1], b = 1/3, m2 = 2/9 + 4/9, unbiased std sqrt((2/3)/2) = sqrt(1/3)
    // g0, r = 0: others [0, 1, 1], b = 2/3, same std
    const up = 2 / 3 / (Math.sqrt(1 / 3) + 1e-6);
    const dn = -2 / 3 / (Math.sqrt(1 / 3) + 1e-6);
    // g3: one other each, its std is 0 (NeMo's nan_to_num) → no division: 2 − 0 and 0 − 2
    close(run("grpo", input, "nemo"), [up, 0, dn, 0, 2, dn, 0, N, up, 0, -2]);
  });
  it("nemo: the others' std is zero for a lone different reward", () => {
    // [1, 1, 0]: r = 0 sees others [1, 1] (σ = 0) → 0 − 1 = −1 undivided; r = 1 sees [1, 0]: b = .5, σ = sqrt(.5)
    const inp = { rewards: Float64Array.from([1, 1, 0]), groups: buildGroupIndex([0, 0, 0]) };
    const a = 0.5 / (Math.sqrt(0.5) + 1e-6);
    close(run("grpo", inp, "nemo"), [a, a, -1]);
  });
  it("explicit options override a preset", () => {
    close(run("grpo", input, "verl", { singleton: "zero" }).subarray(3, 4), [0]);
  });
});

describe("dr_grpo / rloo", () => {
  it("dr_grpo: r − μ; verl singleton → r", () => {
    close(run("dr_grpo", input, "verl"), [0.5, 0, -0.5, 0.5, 1, -0.5, 0, N, 0.5, 0, -1]);
    close(run("dr_grpo", input), [0.5, 0, -0.5, 0, 1, -0.5, 0, N, 0.5, 0, -1]);
  });
  it("rloo verl: r − mean of the others; singleton → r", () => {
    const t = 2 / 3;
    close(run("rloo", input, "verl"), [t, 0, -t, 0.5, 2, -t, 0, N, t, 0, -2]);
  });
});

/** Whitening reference: (x − mean)/sqrt(var + eps) with var over the listed values. */
function whiten(xs: number[], unbiased: boolean, mode: "sqrt-var" | "clamp-var" | "std-plus", eps: number): number[] {
  const v = xs.filter((x) => !Number.isNaN(x));
  const m = v.reduce((s, x) => s + x, 0) / v.length;
  const var_ = v.reduce((s, x) => s + (x - m) ** 2, 0) / (unbiased ? v.length - 1 : v.length);
  const d =
    mode === "sqrt-var"
      ? Math.sqrt(var_ + eps)
      : mode === "clamp-var"
        ? Math.sqrt(Math.max(var_, eps))
        : Math.sqrt(var_) + eps;
  return xs.map((x) => (Number.isNaN(x) ? NaN : (x - m) / d));
}

describe("reinforce_pp_baseline", () => {
  it("verl: r − μ (singleton μ = 0), whitened over the batch with unbiased var + 1e-8", () => {
    const x = [0.5, 0, -0.5, 0.5, 1, -0.5, 0, N, 0.5, 0, -1];
    close(run("reinforce_pp_baseline", input, "verl"), whiten(x, true, "sqrt-var", 1e-8));
  });
  it("openrlhf: singleton 0, population var clamped at 1e-8", () => {
    const x = [0.5, 0, -0.5, 0, 1, -0.5, 0, N, 0.5, 0, -1];
    close(run("reinforce_pp_baseline", input, "openrlhf"), whiten(x, false, "clamp-var", 1e-8));
  });
  it("token whitening weighs by length; equal lengths L differ from rollout whitening only by the Bessel factor", () => {
    const lengths = Float64Array.from(rewards, () => 5);
    const tok = run("reinforce_pp_baseline", { ...input, lengths }, "verl", { whiten: "token", epsilon: 0 });
    const rol = run("reinforce_pp_baseline", input, "verl", { epsilon: 0 });
    const Nn = 10;
    const L = 5;
    const f = Math.sqrt((Nn * L - 1) / (L * (Nn - 1))); // tok = rol · f
    for (let i = 0; i < rewards.length; i++)
      if (!Number.isNaN(rol[i]!)) expect(Math.abs(tok[i]! - rol[i]! * f)).toBeLessThan(1e-12);
  });
});

describe("opo", () => {
  it("length-weighted baseline b = Σ L r / Σ L", () => {
    const lengths = Float64Array.from([10, 7, 30, 3, 5, 20, 7, 9, 40, 7, 15]);
    const b0 = (10 * 1 + 40 * 1) / (10 + 30 + 20 + 40); // g0 positions 0, 2, 5, 8
    const b3 = (5 * 2) / (5 + 15); // g3 positions 4, 10 (7 is null)
    close(run("opo", { ...input, lengths }, "verl"), [1 - b0, 0, -b0, 0.5, 2 - b3, -b0, 0, N, 1 - b0, 0, -b3]);
    expect(() => run("opo", input)).toThrow(/response lengths/);
  });
});

describe("grpo_passk", () => {
  it("only the best gets (r_max − r_2nd)/(σ + ε); ties at the top give 0", () => {
    // g0 [1, 0, 0, 1]: top tie → all 0; g3 [2, 0]: 2/(sqrt 2 + 1e-6) to position 4
    close(run("grpo_passk", input, "verl"), [0, 0, 0, 0, 2 / (S3u + 1e-6), 0, 0, N, 0, 0, 0]);
    const inp = { rewards: Float64Array.from([3, 1, 1, 0, 2]), groups: buildGroupIndex([0, 0, 0, 0, 0]) };
    // mean 1.4, Σd² = 2.56 + .16 + .16 + 1.96 + .36 = 5.2, unbiased var 1.3
    close(run("grpo_passk", inp), [1 / (Math.sqrt(1.3) + 1e-6), 0, 0, 0, 0]);
    close(run("grpo_passk", inp, undefined, { std: "none" }), [1, 0, 0, 0, 0]);
  });
});

describe("gpg", () => {
  it("α = B / #non-zero over the batch, A = α(r − μ)", () => {
    const alpha = 10 / 7; // 10 non-null rewards, 7 non-zero
    close(run("gpg", input, "verl"), [
      0.5 * alpha,
      0,
      -0.5 * alpha,
      0.5 * alpha,
      alpha,
      -0.5 * alpha,
      0,
      N,
      0.5 * alpha,
      0,
      -alpha,
    ]);
    close(run("gpg", input).subarray(3, 4), [0]);
  });
});

describe("rank", () => {
  it("mid-ranks for ties, scaled to [−1, 1]", () => {
    const inp = { rewards: Float64Array.from([3, 1, 1, 0, 2]), groups: buildGroupIndex([0, 0, 0, 0, 0]) };
    // ranks 5, 2.5, 2.5, 1, 4; center 3; scale 2/(n−1) = 0.5
    close(run("rank", inp), [1, -0.25, -0.25, -1, 0.5]);
    close(run("rank", inp, undefined, { scale: "none" }), [2, -0.5, -0.5, -2, 1]);
    // the shared batch: g0 [1, 0, 0, 1] mid-ranks 3.5 / 1.5 around 2.5, scale 2/3 → ±2/3; g1 all tied → 0;
    // singleton 0; g3 [2, 0] → ±1
    const t = 2 / 3;
    close(run("rank", input), [t, 0, -t, 0, 1, -t, 0, N, t, 0, -1]);
  });
});

describe("stratified", () => {
  it("SAN within strata blended with the group estimate; a singleton stratum falls back to the group estimate", () => {
    // g0 = [1, 0, 0, 1, 1, 0] strata [a, a, a, b, b, b]; g1 = [1, 0, 0.5] strata [c, c, d]
    const r = Float64Array.from([1, 0, 0, 1, 1, 0, 1, 0, 0.5]);
    const strata = Int32Array.from([0, 0, 0, 1, 1, 1, 2, 2, 3]);
    const inp = { rewards: r, groups: buildGroupIndex([0, 0, 0, 0, 0, 0, 1, 1, 1]), strata };
    const e = 1e-6;
    const sa = Math.sqrt(2) / 3; // population std of [1, 0, 0] and of [1, 1, 0]
    const glob = (x: number) => (x - 0.5) / (0.5 + e); // g0 mean .5, population std .5
    const san = (x: number, m: number) => (x - m) / (sa + e);
    const g1s = Math.sqrt(1 / 6); // [1, 0, .5]: mean .5, Σd² = .5, population var 1/6
    const g1 = (x: number) => (x - 0.5) / (g1s + e);
    const c = (x: number) => (x - 0.5) / (0.5 + e); // stratum c [1, 0]
    close(run("stratified", inp), [
      0.5 * san(1, 1 / 3) + 0.5 * glob(1),
      0.5 * san(0, 1 / 3) + 0.5 * glob(0),
      0.5 * san(0, 1 / 3) + 0.5 * glob(0),
      0.5 * san(1, 2 / 3) + 0.5 * glob(1),
      0.5 * san(1, 2 / 3) + 0.5 * glob(1),
      0.5 * san(0, 2 / 3) + 0.5 * glob(0),
      0.5 * c(1) + 0.5 * g1(1),
      0.5 * c(0) + 0.5 * g1(0),
      g1(0.5),
    ]);
    expect(() => run("stratified", input)).toThrow(/stratum/);
  });
});

describe("filter: zero_variance (DAPO dynamic sampling)", () => {
  it("drops zero-variance groups and singletons before computing", () => {
    const a = 0.5 / (S0u + 1e-6);
    const b = 1 / (S3u + 1e-6);
    close(run("grpo", input, "verl", { filter: "zero_variance" }), [a, N, -a, N, b, -a, N, N, a, N, -b]);
    // whitening sees only the kept rollouts
    const x = [0.5, N, -0.5, N, 1, -0.5, N, N, 0.5, N, -1];
    close(run("reinforce_pp_baseline", input, "verl", { filter: "zero_variance" }), whiten(x, true, "sqrt-var", 1e-8));
  });
});

describe("conventions added for the peers (issue 12)", () => {
  it("grpo scale: batch (TRL scale_rewards='batch'): group mean, one std of every non-null reward", () => {
    const xs = [1, 1, 0, 0.5, 2, 0, 1, 1, 1, 0]; // the non-null rewards
    const m = xs.reduce((a, b) => a + b, 0) / xs.length;
    const sd = Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
    const f = 1 / (sd + 1e-4);
    close(run("grpo", input, "trl", { scale: "batch" }), [
      0.5 * f,
      0,
      -0.5 * f,
      0,
      1 * f,
      -0.5 * f,
      0,
      N,
      0.5 * f,
      0,
      -1 * f,
    ]);
  });
  it("rank scale: gopo is 2 − 4(ρ − 1)/(n − 1) on untied rewards; ties keep the mid-rank", () => {
    const untied: AdvantageInput = {
      rewards: Float64Array.from([0.3, 0.9, 0.1, 0.5]),
      groups: buildGroupIndex([0, 0, 0, 0]),
    };
    // descending ranks ρ = [3, 1, 4, 2] → 2 − 4(ρ − 1)/3
    close(run("rank", untied, undefined, { scale: "gopo" }), [-2 / 3, 2, -2, 2 / 3]);
    const tied: AdvantageInput = { rewards: Float64Array.from([1, 0, 0, 1]), groups: buildGroupIndex([0, 0, 0, 0]) };
    close(run("rank", tied, undefined, { scale: "gopo" }), [4 / 3, -4 / 3, -4 / 3, 4 / 3]);
  });
  it("whiten auto: per token with lengths, per rollout without (reinforce_pp_baseline --preset verl)", () => {
    const x = [0.5, 0, -0.5, 0.5, 1, -0.5, 0, N, 0.5, 0, -1];
    const L = [10, 1, 3, 7, 2, 5, 4, 9, 8, 6, 2];
    const live = x.map((v, i) => [v, L[i]!] as const).filter(([v]) => !Number.isNaN(v));
    const wm = (w: (l: number) => number) => {
      const W = live.reduce((a, [, l]) => a + w(l), 0);
      const mu = live.reduce((a, [v, l]) => a + w(l) * v, 0) / W;
      const vr = live.reduce((a, [v, l]) => a + w(l) * (v - mu) ** 2, 0) / (W - 1);
      return x.map((v) => (v - mu) / Math.sqrt(vr + 1e-8));
    };
    // the singleton's x is r itself under verl's rule (baseline 0): 0.5
    x[3] = 0.5;
    close(
      run("reinforce_pp_baseline", { ...input, lengths: Float64Array.from(L) }, "verl"),
      wm((l) => l),
    );
    close(
      run("reinforce_pp_baseline", input, "verl"),
      wm(() => 1),
    );
    expect(() => run("reinforce_pp_baseline", input, undefined, { whiten: "token" })).toThrow(/needs response lengths/);
  });
  it("gdpo: a scored rollout whose every component is unscorable stays out of the batch statistics and gets 0 (TRL)", () => {
    const inp: AdvantageInput = {
      rewards: Float64Array.from([1, 0, 0.5, 0]),
      groups: buildGroupIndex([0, 0, 0, 0]),
      components: { names: ["a"], scores: [Float64Array.from([1, 0, 0.5, NaN])] },
    };
    const z = run("gdpo", inp, "trl");
    expect(z[3]).toBe(0);
    // the other three are exactly what they are without the fourth rollout
    const without = run(
      "gdpo",
      {
        rewards: inp.rewards.slice(0, 3),
        groups: buildGroupIndex([0, 0, 0]),
        components: { names: ["a"], scores: [Float64Array.from([1, 0, 0.5])] },
      },
      "trl",
    );
    close(z.slice(0, 3), [...without]);
  });
});

describe("advantages(): group keys", () => {
  it("contiguous and interleaved keys, numbers and strings (1 and '1' are one group), give the same advantages", async () => {
    const { advantages, groupIndexOf } = await import("./compute.js");
    const { StringIds } = await import("./groups.js");
    const r = [1, 0, 0.5, 1, 0, 0, 1, 0.25];
    const contiguous = advantages({ rewards: r, groups: ["a", "a", "a", "b", "b", 1, 1, 1] }, { preset: "verl" });
    const interleaved = advantages(
      {
        rewards: [r[0]!, r[3]!, r[5]!, r[1]!, r[4]!, r[6]!, r[2]!, r[7]!],
        groups: ["a", "b", "1", "a", "b", 1, "a", 1],
      },
      { preset: "verl" },
    );
    close(interleaved, [
      contiguous[0]!,
      contiguous[3]!,
      contiguous[5]!,
      contiguous[1]!,
      contiguous[4]!,
      contiguous[6]!,
      contiguous[2]!,
      contiguous[7]!,
    ]);
    expect(groupIndexOf(["x", "x", "y", "z", "z"])).toMatchObject({
      count: 3,
      identity: true,
      offsets: Int32Array.from([0, 2, 3, 5]),
    });
    expect(groupIndexOf(["x", "y", "x"]).count).toBe(2);
    // FNV-1a: the published 32-bit values ("" → 0x811c9dc5, "a" → 0xe40c292c), and integers hashed as their strings
    const { fnv1a, fnv1aOfInteger } = await import("./groups.js");
    expect(fnv1a("") >>> 0).toBe(0x811c9dc5);
    expect(fnv1a("a") >>> 0).toBe(0xe40c292c);
    for (const k of [0, 7, -12, 1e15, -9007199254740991, 123456789]) expect(fnv1aOfInteger(k)).toBe(fnv1a(String(k)));
    // numeric keys are hashed from their digits without making strings: the same groups as their string forms
    const numeric = [7, 7, -12, -12, 0, -0, 1e15, 1e15, 3.5, 3.5, 123456789];
    expect(groupIndexOf(numeric)).toMatchObject({ count: 6, offsets: Int32Array.from([0, 2, 4, 6, 8, 10, 11]) });
    // a number run and a string run of the same key are one group, not two (`3` then `"3"`, after another key)
    const mixed = groupIndexOf([3, 3, "x", "3", -5, "-5"]);
    expect(mixed.count).toBe(3);
    expect(Array.from(mixed.order.subarray(mixed.offsets[0], mixed.offsets[1]))).toEqual([0, 1, 3]);
    // contiguous runs in a big batch: the run table holds every key once, and a repeat far apart is caught
    const big = Array.from({ length: 40_000 }, (_, i) => `prompt-${Math.floor(i / 16)}`);
    expect(groupIndexOf(big)).toMatchObject({ count: 2500, identity: true });
    expect(groupIndexOf([...big, "prompt-0"]).count).toBe(2500);
    const ids = new StringIds();
    const keys = Array.from({ length: 5000 }, (_, i) => `k${i % 1234}`);
    expect(keys.map((k) => ids.idOf(k))).toEqual(keys.map((_, i) => i % 1234));
    expect(ids.size).toBe(1234);
  });
});

describe("out buffers", () => {
  it("every estimator given `out` returns the same advantages as without it", async () => {
    const { getEstimator, estimatorNames } = await import("./registry.js");
    const inp: AdvantageInput = {
      ...input,
      components: {
        names: ["a", "b"],
        scores: [
          Float64Array.from([1, 0, 1, 0, 1, 0.5, 0, 0, 1, 1, 0]),
          Float64Array.from([0, 1, 0.5, 1, 0, 0, 1, 1, 0.5, 0, 1]),
        ],
      },
      lengths: Float64Array.from([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5]),
      strata: Int32Array.from([0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0]),
    };
    for (const name of estimatorNames()) {
      const est = getEstimator(name)!;
      const o = est.options.parse({});
      const buf = new Float64Array(inp.rewards.length).fill(7);
      close(est.compute(inp, o, buf), [...est.compute(inp, o)]);
    }
  });
});
