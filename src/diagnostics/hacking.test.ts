import { describe, expect, it } from "vitest";
import { CoMoments, HackingCollector, diagnosticLength } from "./hacking.js";
import type { ComponentResult } from "../core/types.js";

const ok = (score: number | null): ComponentResult => ({ score, status: score === null ? "unscorable" : "ok" });

describe("hacking diagnostics", () => {
  it("Pearson r of streamed pairs (hand-computed)", () => {
    const m = new CoMoments();
    // x = 1,2,3,4; y = 2,4,5,9: mean 2.5 and 5; Sxy = 11, Sxx = 5, Syy = 26 → r = 11 / √130 = 0.964763…
    [
      [1, 2],
      [2, 4],
      [3, 5],
      [4, 9],
    ].forEach(([x, y]) => m.push(x!, y!));
    expect(m.r).toBeCloseTo(11 / Math.sqrt(130), 12);
    const flat = new CoMoments();
    flat.push(1, 3);
    flat.push(2, 3);
    expect(flat.r).toBeNull(); // a constant side has no correlation
  });
  it("length correlation, dominance, and both per step", () => {
    const h = new HackingCollector(["accuracy", "bonus"]);
    // reward = accuracy + bonus; bonus grows with length, accuracy does not
    const rows: Array<[number, number, number, number]> = [
      [1, 0, 100, 0],
      [0, 0, 200, 0],
      [1, 0.5, 300, 1],
      [0, 1, 400, 1],
    ];
    for (const [a, b, len, step] of rows) h.add([ok(a), ok(b)], a + b, len, step);
    const d = h.finish();
    expect(d.n).toBe(4);
    expect(d.meanReward).toBe(0.875);
    // r(length, bonus): x = 1..4 (scaled), y = 0,0,.5,1 → Sxy = 1.75, Sxx = 5, Syy = 0.6875 → r = 0.943880…
    expect(d.lengthCorrelation.bonus).toBeCloseTo(Math.round((1.75 / Math.sqrt(5 * 0.6875)) * 1e6) / 1e6, 6);
    // r(length, accuracy): y = 1,0,1,0 → Sxy = −1, Sxx = 5, Syy = 1 → −0.447214
    expect(d.lengthCorrelation.accuracy).toBe(-0.447214);
    // rewards 1, 0, 1.5, 1 (mean 0.875): Sxy = 0.75, Sxx = 1, Syy = 1.1875 → corr(accuracy, reward)² = 0.5625 / 1.1875
    expect(d.dominance.accuracy).toBe(0.473684);
    expect(d.bySteps?.map((s) => s.step)).toEqual([0, 1]);
    expect(d.bySteps?.[0]?.dominance.bonus).toBeNull(); // bonus constant at step 0
    expect(d.bySteps?.[1]?.meanReward).toBe(1.25);
  });
  it("a reward that is one component: dominance 1", () => {
    const h = new HackingCollector(["only"]);
    [0, 1, 1, 0, 1].forEach((s, i) => h.add([ok(s)], s, 10 * i, 0));
    const d = h.finish();
    expect(d.dominance.only).toBe(1);
    expect(d.bySteps).toBeUndefined();
  });
  it("unscorable scores and null rewards are left out", () => {
    const h = new HackingCollector(["c"]);
    h.add([ok(null)], null, 5, 0);
    h.add([ok(1)], 1, 6, 0);
    expect(h.finish()).toMatchObject({ n: 2, meanReward: 1, dominance: { c: null } });
  });
  it("length: completion_tokens, else ceil(characters / 4)", () => {
    expect(diagnosticLength(12, 999)).toBe(12);
    expect(diagnosticLength(undefined, 9)).toBe(3);
  });
});
