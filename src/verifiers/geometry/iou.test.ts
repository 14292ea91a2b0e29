import { describe, expect, it } from "vitest";
import type { ComponentResult } from "../../core/types.js";
import { createScorer } from "../../engine/scorer.js";
import { parseSpec } from "../../spec/load.js";
import { gaussianPoint, iou, iouVerifier, lastTuple, toBox } from "./iou.js";

const run = (opts: Record<string, unknown>, completion: string, reference: unknown): ComponentResult =>
  iouVerifier.create(iouVerifier.options.parse(opts))({
    completion,
    reference,
    rollout: { id: "1", group: "g", completion },
  }) as ComponentResult;

describe("iou verifier", () => {
  it("IoU of boxes, hand-computed", () => {
    expect(iou([0, 0, 2, 2], [1, 1, 3, 3])).toBe(1 / 7);
    expect(iou([0, 0, 2, 2], [0, 0, 2, 2])).toBe(1);
    expect(iou([0, 0, 1, 1], [2, 2, 3, 3])).toBe(0);
    expect(iou([0, 0, 4, 2], [2, 0, 6, 2])).toBe(4 / 12);
    expect(toBox([1, 1, 2, 3], "xywh")).toEqual([1, 1, 3, 4]);
    expect(toBox([3, 4, 1, 1], "xyxy")).toEqual([1, 1, 3, 4]);
  });

  it("extracts the last box or point from the completion", () => {
    expect(lastTuple("first [1, 2, 3, 4] then (10.5,20,30,40)", 4)).toEqual([10.5, 20, 30, 40]);
    expect(lastTuple("click at (3, -4).", 2)).toEqual([3, -4]);
    expect(lastTuple("no box here", 4)).toBeUndefined();
  });

  it("scores iou, binary and gaussian-point modes", () => {
    expect(run({}, "The box is [1, 1, 3, 3].", [0, 0, 2, 2]).score).toBe(1 / 7);
    expect(run({}, "[5, 5, 6, 6]", [0, 0, 2, 2])).toMatchObject({ score: 0, reason: "wrong_answer" });
    expect(run({ format: "xywh" }, "[1, 1, 2, 2]", { bbox: [0, 0, 2, 2] }).score).toBe(1 / 7);
    expect(
      run({}, "[0, 0, 2, 2]", [
        [5, 5, 9, 9],
        [0, 0, 2, 2],
      ]).score,
    ).toBe(1);
    expect(run({ mode: "binary", threshold: 0.1 }, "[1, 1, 3, 3]", [0, 0, 2, 2]).score).toBe(1);
    expect(run({ mode: "binary", threshold: 0.5 }, "[1, 1, 3, 3]", [0, 0, 2, 2])).toMatchObject({
      score: 0,
      reason: "wrong_answer",
    });
    expect(gaussianPoint(10, 10, [0, 0, 10, 20], 0.5)).toBeCloseTo(Math.exp(-0.5), 15);
    expect(run({ mode: "gaussian-point" }, "tap (10, 10)", [0, 0, 10, 20]).score).toBeCloseTo(0.6065306597126334, 15);
    expect(run({ mode: "gaussian-point" }, "[0, 0, 10, 20]", [0, 0, 10, 20]).score).toBe(1);
    expect(run({}, "no box", [0, 0, 2, 2])).toMatchObject({ score: null, reason: "no_answer" });
    expect(run({}, "[0, 0, 1, 1]", undefined)).toMatchObject({ score: null, reason: "no_reference" });
    expect(run({}, "[0, 0, 1, 1]", "nope")).toMatchObject({ score: null, reason: "invalid_reference" });
  });

  it("its binary threshold can be performance-scheduled: it tightens as the model gets ready", async () => {
    const spec = parseSpec(
      `components:
  - name: ground
    type: iou
    mode: binary
    threshold: {schedule: performance, from: 0.1, to: 0.5, increment: 0.2, window: 2, passRate: 1, tolerance: 0}`,
      "t.yaml",
    );
    const scorer = createScorer(spec, { concurrency: 1 });
    try {
      // IoU 1/7 ≈ 0.143: passes at 0.1; after two passes (step 0) the threshold moves to 0.3 from step 1
      const r = (step: number) =>
        scorer.score({ id: String(step), group: "g", step, completion: "[1, 1, 3, 3]", reference: [0, 0, 2, 2] });
      expect((await r(0)).results[0]!.score).toBe(1);
      expect((await r(0)).results[0]!.score).toBe(1);
      expect((await r(1)).results[0]!.score).toBe(0); // same completion, stricter threshold (and not a stale cache hit)
      expect(scorer.valuesAt(1)!.options[0]!.options.threshold).toBe(0.3);
    } finally {
      await scorer.close();
    }
  });
});
