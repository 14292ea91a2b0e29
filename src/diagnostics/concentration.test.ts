import { describe, expect, it } from "vitest";
import { ok } from "../core/types.js";
import type { CompiledSpec } from "../spec/types.js";
import {
  ConcentrationCollector,
  checkGroup,
  concentrationPenalty,
  concentrationSettings,
  formatConcentration,
  spearman,
} from "./concentration.js";

const S = { maxStd: 0.01, minGroup: 4, minLength: 0, penalty: 0 };

describe("collapse rule", () => {
  it("fires on ≥ minGroup traces of differing length in a narrow band", () => {
    const c = checkGroup([0.5, 0.505, 0.495, 0.5], [800, 1200, 1600, 2000], S);
    expect(c.collapsed).toBe(true);
    expect(c.std).toBeCloseTo(Math.sqrt(0.0000125), 14);
    expect(c.meanLength).toBe(1400);
  });
  it("stays quiet on spread rewards, small groups, identical traces, short traces", () => {
    expect(checkGroup([0.1, 0.5, 0.9, 0.3], [10, 20, 30, 40], S).collapsed).toBe(false);
    expect(checkGroup([0.5, 0.5, 0.5], [10, 20, 30], S).collapsed).toBe(false);
    expect(checkGroup([0.5, 0.5, 0.5, 0.5], [10, 10, 10, 10], S).collapsed).toBe(false);
    expect(checkGroup([0.5, 0.5, 0.5, 0.5], [10, 20, 30, 40], { ...S, minLength: 100 }).collapsed).toBe(false);
  });
  it("length penalty: linear from 0 (shortest) to −λ (longest)", () => {
    expect(concentrationPenalty([100, 200, 300], 0.1)).toEqual([0, -0.05, -0.1]);
    expect(concentrationPenalty([100, 100], 0.1)).toEqual([0, 0]);
  });
  it("Spearman ρ with ties", () => {
    expect(spearman([1, 2, 3, 4], [10, 20, 30, 40])).toBeCloseTo(1, 14);
    expect(spearman([1, 2, 3, 4], [4, 3, 2, 1])).toBeCloseTo(-1, 14);
    expect(spearman([1, 2, 2, 3], [1, 2, 3, 4])).toBeCloseTo(0.9486832980505138, 12);
    expect(spearman([1, 1, 1], [1, 2, 3])).toBeNull();
  });
  it("defaults depend on the form; non-likelihood components are not checked", () => {
    expect(concentrationSettings("likelihood", { form: "mean-prob" })?.maxStd).toBe(0.01);
    expect(concentrationSettings("likelihood", { form: "logprob" })?.maxStd).toBe(0.05);
    expect(concentrationSettings("math", {})).toBeUndefined();
  });
});

describe("ConcentrationCollector", () => {
  const spec = {
    components: [
      { name: "acc", type: "math", options: {} },
      { name: "p", type: "likelihood", options: { form: "mean-prob", collapsePenalty: 0.2, filterStd: 0.05 } },
    ],
  } as unknown as CompiledSpec;
  const res = (score: number, len: number) => [ok(1), ok(score, undefined, { traceLength: len })];

  it("reports a constructed collapsed group and not the healthy one", () => {
    const c = new ConcentrationCollector(spec);
    const groups: number[] = [];
    // group 0: healthy spread; group 1: long traces collapsed around 0.62
    [0.1, 0.6, 0.9, 0.3].forEach((s, k) => (c.add(res(s, 100 + k)), groups.push(0)));
    [0.62, 0.621, 0.619, 0.62].forEach((s, k) => (c.add(res(s, 3000 + 1000 * k)), groups.push(1)));
    c.add([ok(1), { score: null, status: "unscorable", reason: "logprob_error" }]);
    groups.push(1);
    const r = c.finish(Int32Array.from(groups))!.p!;
    expect(r.groupsChecked).toBe(2);
    expect(r.collapsedGroups).toBe(1);
    expect(r.collapsedFraction).toBe(0.5);
    expect(r.filteredGroups).toBe(1);
    expect(r.examples).toEqual([{ firstRollout: 4, n: 4, std: expect.closeTo(0.000707, 6), meanLength: 4500 }]);
    expect(r.meanPenalty).toBeCloseTo((0 - 0.2 / 3 - 0.4 / 3 - 0.2) / 4, 6);
    expect(formatConcentration({ p: r })[0]).toMatch(
      /^concentration p: 1\/2 groups collapsed .* RLPR filter: 1 groups std < 0.05 .* e\.g\. groups at rollouts 4$/,
    );
  });

  it("is inactive without likelihood components", () => {
    const c = new ConcentrationCollector({ components: [{ name: "acc", type: "math", options: {} }] });
    expect(c.active).toBe(false);
    expect(c.finish(new Int32Array(0))).toBeUndefined();
  });
});
