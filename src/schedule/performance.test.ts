import { describe, expect, it } from "vitest";
import type { Rollout } from "../core/types.js";
import { createScorer } from "../engine/scorer.js";
import { parseSpec } from "../spec/load.js";
import { PerformanceTracker } from "./performance.js";
import { ScheduleStateError } from "./runtime.js";
import { EXPECTED, SCRIPT, SPEC, TEXT } from "./script.test-helper.js";

function rollouts(steps: number[]): Rollout[] {
  return steps.flatMap((s) =>
    SCRIPT[s]!.map((v, k) => ({ id: `${s}-${k}`, group: `g${s}`, step: s, completion: TEXT[String(v)]! })),
  );
}

describe("performance schedule (MedLoc-R1 style)", () => {
  it("tracker: one move per sealing, window cleared after a move, clamped at the target", () => {
    const t = new PerformanceTracker({ from: 0.5, to: 0.7, increment: 0.15, window: 2, passRate: 1, tolerance: 0 });
    expect(t.observe([true], 1)).toBe(false); // window not full
    expect(t.observe([true], 2)).toBe(true);
    expect(t.value).toBe(0.65);
    expect(t.observe([true], 3)).toBe(false); // cleared: one result only
    expect(t.observe([true], 4)).toBe(true);
    expect(t.value).toBe(0.7); // clamped
    expect([0, 1, 2, 3, 4, 9].map((s) => t.valueAt(s))).toEqual([0.5, 0.5, 0.65, 0.65, 0.7, 0.7]);
  });

  it("replays a scripted sequence of pass rates, sequentially and all at once, with the same thresholds", async () => {
    const spec = parseSpec(SPEC, "t.yaml");
    const seq = createScorer(spec, { concurrency: 1 });
    const par = createScorer(spec, { concurrency: 1 });
    try {
      for (const r of rollouts([0, 1, 2, 3, 4, 5])) await seq.score(r);
      await seq.score({ id: "6", group: "g6", step: 6, completion: "x" });
      expect([0, 1, 2, 3, 4, 5, 6].map((s) => seq.valuesAt(s)!.thresholds[0])).toEqual(EXPECTED);
      // everything submitted at once: later steps wait for earlier ones, so the result is the same
      await Promise.all(
        [...rollouts([0, 1, 2, 3, 4, 5]), { id: "6", group: "g6", step: 6, completion: "x" }].map((r) => par.score(r)),
      );
      expect([0, 1, 2, 3, 4, 5, 6].map((s) => par.valuesAt(s)!.thresholds[0])).toEqual(EXPECTED);
      expect(seq.snapshot()).toEqual(par.snapshot());
    } finally {
      await seq.close();
      await par.close();
    }
  });

  it("a restart from a snapshot resumes where it was", async () => {
    const spec = parseSpec(SPEC, "t.yaml");
    const first = createScorer(spec, { concurrency: 1 });
    for (const r of rollouts([0, 1, 2])) await first.score(r);
    const state = JSON.parse(JSON.stringify(first.snapshot()));
    await first.close();
    // step 2's results are pending (not sealed yet) and travel in the state
    expect(state.pending).toHaveLength(4);
    expect(state.schedules["components.loc.passThreshold"].value).toBe(0.5);

    const second = createScorer(spec, { concurrency: 1 });
    second.restore(state);
    for (const r of rollouts([3, 4, 5])) await second.score(r);
    await second.score({ id: "6", group: "g6", step: 6, completion: "x" });
    expect([0, 1, 2, 3, 4, 5, 6].map((s) => second.valuesAt(s)!.thresholds[0])).toEqual(EXPECTED);
    await second.close();

    const other = parseSpec(SPEC.replace("window: 4", "window: 8"), "t.yaml");
    const third = createScorer(other, { concurrency: 1 });
    expect(() => third.restore(state)).toThrow(/other schedule options/);
    await third.close();

    // a corrupt (hand-edited) state is a ScheduleStateError (a user error), not a TypeError
    const fourth = createScorer(spec, { concurrency: 1 });
    for (const pending of [7, [{ step: 1 }], [null]]) {
      expect(() => fourth.restore({ ...state, pending })).toThrow(ScheduleStateError);
    }
    await fourth.close();
  });

  it("a late rollout of an already sealed step gets the value in force at its step", async () => {
    const spec = parseSpec(SPEC, "t.yaml");
    const s = createScorer(spec, { concurrency: 1 });
    for (const r of rollouts([0, 1, 2])) await s.score(r);
    const late = await s.score({ id: "late", group: "g0", step: 0, completion: TEXT["0.25"]! });
    expect(late.results[0]!.score).toBe(0.25);
    expect(s.valuesAt(0)!.thresholds[0]).toBe(0.25);
    await s.close();
  });
});
