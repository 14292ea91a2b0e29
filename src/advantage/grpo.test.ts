import { describe, expect, it } from "vitest";
import { buildGroupIndex } from "./groups.js";
import { grpo, grpoOptions } from "./grpo.js";
import { rloo, rlooOptions } from "./rloo.js";

// Batch: group 0 = [1, 0, 0, 1]; group 1 = [1, 1, 1] (zero variance); group 2 = [0.5] (singleton);
// group 3 = [2, null, 0] (a null reward is left out). Interleaved on purpose: groups need not be contiguous.
const rewards = Float64Array.from([1, 1, 0, 0.5, 2, 0, 1, NaN, 1, 1, 0]);
const groupIds = [0, 1, 0, 2, 3, 0, 1, 3, 0, 1, 3];
const groups = buildGroupIndex(groupIds);
const opts = (o: object) => grpoOptions.parse(o);

describe("grpo", () => {
  it("verl convention: unbiased std + 1e-6, hand-computed", () => {
    const a = grpo({ rewards, groups }, opts({ std: "unbiased", epsilon: 1e-6 }));
    const s0 = Math.sqrt(1 / 3); // group 0: mean 0.5, var (4 · 0.25)/3
    const s3 = Math.SQRT2; // group 3: [2, 0]: mean 1, var (1 + 1)/1
    const want = [
      0.5 / (s0 + 1e-6),
      0,
      -0.5 / (s0 + 1e-6),
      0,
      1 / (s3 + 1e-6),
      -0.5 / (s0 + 1e-6),
      0,
      NaN,
      0.5 / (s0 + 1e-6),
      0,
      -1 / (s3 + 1e-6),
    ];
    want.forEach((w, i) => (Number.isNaN(w) ? expect(a[i]).toBeNaN() : expect(a[i]).toBeCloseTo(w, 12)));
    expect(a[0]).toBeCloseTo(0.8660239, 6);
  });

  it("population std (open-instruct) and no std (Dr.GRPO)", () => {
    const pop = grpo({ rewards, groups }, opts({ std: "population", epsilon: 0 }));
    expect(pop[0]).toBeCloseTo(1, 12); // 0.5 / 0.5
    expect(pop[4]).toBeCloseTo(1, 12); // group 3: (2 − 1) / 1
    const none = grpo({ rewards, groups }, opts({ std: "none" }));
    expect([...none.subarray(0, 7)]).toEqual([0.5, 0, -0.5, 0, 1, -0.5, 0]);
  });

  it("zero-variance groups get 0, singletons 0 by default and the raw reward with singleton: raw", () => {
    const a = grpo({ rewards, groups }, opts({}));
    expect([a[1], a[6], a[9]]).toEqual([0, 0, 0]);
    expect(a[3]).toBe(0);
    expect(grpo({ rewards, groups }, opts({ singleton: "raw" }))[3]).toBe(0.5);
  });

  it("leave-one-out baseline", () => {
    const a = grpo({ rewards, groups }, opts({ baseline: "leave-one-out", std: "none" }));
    expect(a[0]).toBeCloseTo(1 - 1 / 3, 12); // 1 − mean(0, 0, 1)
    expect(a[2]).toBeCloseTo(0 - 2 / 3, 12);
  });

  it("a null reward keeps a null advantage", () => {
    expect(grpo({ rewards, groups }, opts({}))[7]).toBeNaN();
  });
});

describe("rloo", () => {
  it("r_i − mean of the others, hand-computed", () => {
    const a = rloo({ rewards, groups }, rlooOptions.parse({ singleton: "zero" }));
    expect(a[0]).toBeCloseTo(2 / 3, 12);
    expect(a[2]).toBeCloseTo(-2 / 3, 12);
    expect(a[4]).toBeCloseTo(2, 12); // group 3: 2 − 0
    expect(a[10]).toBeCloseTo(-2, 12);
    expect([a[1], a[6], a[9]]).toEqual([0, 0, 0]);
    expect(a[3]).toBe(0);
    expect(a[7]).toBeNaN();
    expect(rloo({ rewards, groups }, rlooOptions.parse({ singleton: "raw" }))[3]).toBe(0.5);
  });
});

describe("buildGroupIndex", () => {
  it("stable contiguous segments", () => {
    expect([...groups.offsets]).toEqual([0, 4, 7, 8, 11]);
    expect([...groups.order]).toEqual([0, 2, 5, 8, 1, 6, 9, 3, 4, 7, 10]);
    expect(() => buildGroupIndex([0, -1])).toThrow(RangeError);
  });
});
