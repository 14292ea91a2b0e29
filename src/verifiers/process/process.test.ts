import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ComponentResult, Rollout } from "../../core/types.js";
import { createScorer } from "../../engine/scorer.js";
import { parseSpec } from "../../spec/load.js";
import { getVerifier } from "../registry.js";
import { clipReward, deltaRewards, firstError, STEP_AGGREGATIONS } from "./aggregate.js";
import { createProcessVerifier } from "./index.js";
import { splitSteps } from "./steps.js";

const def = createProcessVerifier(getVerifier);
async function run(
  options: Record<string, unknown>,
  rollout: Partial<Rollout> & { completion?: string },
): Promise<ComponentResult> {
  const fn = def.create(def.options.parse(options));
  const r: Rollout = { id: "r", group: "g", completion: "", ...rollout };
  return fn({ completion: typeof r.completion === "string" ? r.completion : "", reference: r.reference, rollout: r });
}
const ctx = { threshold: 0.5, eta: 1 };
const agg = (name: string, r: number[]) => STEP_AGGREGATIONS[name]!.aggregate(r, ctx);

describe("step aggregations (golden values, hand-computed)", () => {
  const r = [0.9, 0.6, 0.8, 0.3, 0.7];
  it("min, product, last, mean, sum", () => {
    expect(agg("min", r).score).toBe(0.3);
    expect(agg("product", r).score).toBeCloseTo(0.9 * 0.6 * 0.8 * 0.3 * 0.7, 15); // 0.09072
    expect(agg("product", r).score).toBeCloseTo(0.09072, 12);
    expect(agg("last", r).score).toBe(0.7);
    expect(agg("mean", r).score).toBeCloseTo(3.3 / 5, 15);
    expect(agg("sum", r).score).toBeCloseTo(3.3, 14);
    // the raw scores are the step rewards
    expect(agg("min", r).stepRewards).toEqual(r);
  });
  it("first-error: 0-based index of the first score below the threshold, −1 when none", () => {
    expect(agg("first-error", r).score).toBe(3);
    expect(agg("first-error", [1, 1, 1]).score).toBe(-1);
    expect(agg("first-error", [0.2]).score).toBe(0);
    expect(agg("first-error", [0.5, 0.5]).score).toBe(-1); // "below": 0.5 is not below 0.5
    expect(firstError([0.9, null, 0.1], 0.5)).toBe(2); // an unscored step is not an error
  });
  it("clip: Σ min(r − η, 0)", () => {
    expect(agg("clip", [0.9, 0.6]).score).toBeCloseTo(-0.1 - 0.4, 15);
    expect(agg("clip", [0.9, 0.6]).stepRewards.map((x) => +x.toFixed(12))).toEqual([-0.1, -0.4]);
    expect(Object.is(clipReward(1, 1), 0)).toBe(true);
    expect(clipReward(1.5, 1)).toBe(0); // above η pays nothing extra
  });
  it("delta: r̃_k = r_k − r_{k+1}, r̃_K = r_K, total r_1", () => {
    expect(deltaRewards([0.9, 0.6, 0.8]).map((x) => +x.toFixed(12))).toEqual([0.3, -0.2, 0.8]);
    expect(agg("delta", [0.9, 0.6, 0.8]).score).toBeCloseTo(0.9, 14);
  });
  it("clip-delta: r̃ = Δ of min(r − 1, 0); the total is the first step's clipped score", () => {
    const a = agg("clip-delta", [0.9, 0.6, 0.8, 0.3, 0.7]);
    // c = [−0.1, −0.4, −0.2, −0.7, −0.3]; r̃ = [0.3, −0.2, 0.5, −0.4, −0.3]
    expect(a.stepRewards.map((x) => +x.toFixed(12))).toEqual([0.3, -0.2, 0.5, -0.4, -0.3]);
    expect(a.score).toBeCloseTo(-0.1, 15);
    expect(a.stepRewards.reduce((x, y) => x + y, 0)).toBeCloseTo(a.score, 12);
    expect(agg("clip-delta", [1]).score).toBe(0);
    expect(agg("clip-delta", [0.6]).score).toBeCloseTo(-0.4, 15);
  });
  it("property: clip-delta is bounded by 0 for scores in [0, 1], never grows by adding steps, and pays a better first step more", () => {
    const score = fc.double({ min: 0, max: 1, noNaN: true });
    fc.assert(
      fc.property(
        fc.array(score, { minLength: 1, maxLength: 40 }),
        fc.array(score, { minLength: 0, maxLength: 40 }),
        (r, extra) => {
          const a = agg("clip-delta", r);
          const b = agg("clip-delta", [...r, ...extra]);
          // the bound: the accumulated step rewards (the return) never exceed 0 ≤ 1, whatever K
          const ret = a.stepRewards.reduce((x, y) => x + y, 0);
          expect(ret).toBeLessThanOrEqual(1e-12);
          expect(a.score).toBeLessThanOrEqual(0);
          expect(a.score).toBeGreaterThanOrEqual(-1);
          // appending steps (any scores) cannot raise the return
          expect(b.score).toBeLessThanOrEqual(a.score + 1e-12);
          // every return-to-go is bounded by 0 too: no suffix can be padded into profit
          let togo = 0;
          for (let k = b.stepRewards.length - 1; k >= 0; k--) {
            togo += b.stepRewards[k]!;
            expect(togo).toBeLessThanOrEqual(1e-9);
          }
        },
      ),
      { numRuns: 300, seed: 17 },
    );
    // "sum" has no such bound: 30 good steps pay 30 times one
    expect(agg("sum", new Array(30).fill(0.9)).score).toBeCloseTo(27, 12);
    expect(agg("clip-delta", new Array(30).fill(0.9)).score).toBeCloseTo(
      agg("clip-delta", new Array(10).fill(0.9)).score,
      15,
    );
    expect(agg("clip-delta", [1]).score).toBeGreaterThan(agg("clip-delta", [0.6]).score);
  });
});

describe("step splitting", () => {
  it("blank-line, newline, marker and tag, with spans", () => {
    expect(splitSteps("a\n\n b \n\n\n\nc\n", { split: "blank-line", marker: "", tag: "" })).toEqual({
      steps: ["a", "b", "c"],
      source: "blank-line",
      spans: [
        [0, 1],
        [4, 5],
        [10, 11],
      ],
    });
    expect(splitSteps("a\nb\n\nc", { split: "newline", marker: "", tag: "" }).steps).toEqual(["a", "b", "c"]);
    const def0 = def.options.parse({});
    expect(
      splitSteps("Let me see.\nStep 1: x = 2.\nStep 2: y = 3.\n## Step 3. done", { ...def0, split: "marker" }).steps,
    ).toEqual(["Let me see.", "Step 1: x = 2.", "Step 2: y = 3.", "## Step 3. done"]);
    expect(
      splitSteps("pre <step>one</step> mid <step id=2>\ntwo\n</step> <step></step>", { ...def0, split: "tag" }).steps,
    ).toEqual(["one", "two"]);
  });

  it("the rollout's steps win over the split; the split is recorded", async () => {
    const r = await run(
      { aggregate: "min" },
      { completion: "a\n\nb\n\nc", steps: ["ab", "c"], step_scores: [0.4, 0.9] },
    );
    expect(r).toMatchObject({ score: 0.4, status: "ok", details: { split: "rollout", steps: 2 } });
    const s = await run({ aggregate: "min" }, { completion: "a\n\nb\n\nc", step_scores: [0.4, 0.9, 0.1] });
    expect(s).toMatchObject({
      score: 0.1,
      details: {
        split: "blank-line",
        steps: 3,
        step_spans: [
          [0, 1],
          [3, 4],
          [6, 7],
        ],
      },
    });
  });
});

describe("process component results", () => {
  it("records step scores, step rewards, first error and the advantage weight", async () => {
    const r = await run({ aggregate: "clip-delta", threshold: 0.5 }, { steps: ["a", "b"], step_scores: [0.9, 0.3] });
    expect(r.score).toBeCloseTo(-0.1, 15);
    expect(r.details).toMatchObject({ step_scores: [0.9, 0.3], first_error: 1, advantage_weight: 1 });
    expect((r.details!.step_rewards as number[]).map((x) => +x.toFixed(12))).toEqual([0.6, -0.7]);
  });

  it("malformed or missing step scores are unscorable with a reason, never a silent 0", async () => {
    expect(await run({}, { steps: ["a"] })).toMatchObject({
      score: null,
      status: "unscorable",
      reason: "invalid_steps",
      details: { problem: expect.stringContaining("no `step_scores`") },
    });
    expect(await run({}, { steps: ["a", "b"], step_scores: [1] })).toMatchObject({
      reason: "invalid_steps",
      details: { problem: "1 step_scores for 2 steps" },
    });
    expect(await run({}, { steps: ["a"], step_scores: ["0.9"] })).toMatchObject({ reason: "invalid_steps" });
    expect(await run({}, { steps: "a b", step_scores: [1] })).toMatchObject({
      reason: "invalid_steps",
      details: { problem: "`steps` must be an array of strings" },
    });
    expect(await run({}, { completion: "  ", step_scores: [] })).toMatchObject({ reason: "no_completion" });
    expect(await run({}, { steps: [], step_scores: [] })).toMatchObject({
      reason: "invalid_steps",
      details: { problem: "no steps" },
    });
  });

  it("an unscorable step: fail (default, keeps its reason), skip, or zero", async () => {
    const rollout = { steps: ["a", "b", "c"], step_scores: [0.8, null, 0.4] };
    expect(await run({ aggregate: "mean" }, rollout)).toMatchObject({
      score: null,
      reason: "invalid_steps",
      details: { unscorable_step: 1, step_reasons: [null, "invalid_steps", null] },
    });
    const skip = await run({ aggregate: "mean", onUnscorableStep: "skip" }, rollout);
    expect(skip.score).toBeCloseTo(0.6, 15);
    expect(skip.details!.step_rewards).toEqual([0.8, null, 0.4]);
    expect((await run({ aggregate: "mean", onUnscorableStep: "zero" }, rollout)).score).toBeCloseTo(0.4, 15);
    // first-error under skip keeps the original step numbering
    expect((await run({ aggregate: "first-error", onUnscorableStep: "skip" }, rollout)).score).toBe(2);
  });

  it("a rule verifier per step (contains), per prefix, and its unscorable steps keep their reasons", async () => {
    const steps = ["x = 2", "so x = 3 (wrong)", "answer 3"];
    const perStep = await run(
      { aggregate: "first-error", stepVerifier: { type: "regex", pattern: "wrong" }, threshold: 0.5 },
      { steps },
    );
    // regex scores 1 on a match: invert with a pattern on "ok" steps instead
    expect(perStep.details!.step_scores).toEqual([0, 1, 0]);
    const prefix = await run(
      { aggregate: "last", stepVerifier: { type: "regex", pattern: "wrong" }, stepInput: "prefix" },
      { steps },
    );
    expect(prefix.details!.step_scores).toEqual([0, 1, 1]); // the prefix up to step 3 contains step 2
    const exact = await run(
      { aggregate: "mean", stepVerifier: { type: "exact" }, onUnscorableStep: "fail" },
      { steps },
    );
    expect(exact).toMatchObject({
      score: null,
      reason: "no_reference",
      details: { step_reasons: ["no_reference", "no_reference", "no_reference"] },
    });
  });

  it("gated (G-RA): step credit only when the outcome is right; mix: o + w·P", async () => {
    const steps = ["a", "b"];
    const right = await run(
      { aggregate: "gated", base: "mean", processWeight: 0.5 },
      { steps, step_scores: [0.8, 0.4], outcome: true },
    );
    expect(right.score).toBeCloseTo(1 + 0.5 * 0.6, 15);
    expect(right.details).toMatchObject({ outcome: 1, gate_open: true, step_rewards: [0.4, 0.2] });
    const wrong = await run(
      { aggregate: "gated", base: "mean", processWeight: 0.5 },
      { steps, step_scores: [0.8, 0.4], outcome: 0 },
    );
    expect(wrong.score).toBe(0);
    expect(wrong.details).toMatchObject({ gate_open: false, step_rewards: [0, 0], process: expect.closeTo(0.6, 12) });
    const mix = await run(
      { aggregate: "mix", base: "min", processWeight: 0.25 },
      { steps, step_scores: [0.8, 0.4], outcome: 0 },
    );
    expect(mix.score).toBeCloseTo(0.1, 15);
    expect(await run({ aggregate: "mix" }, { steps, step_scores: [0.8, 0.4] })).toMatchObject({
      score: null,
      reason: "no_outcome",
    });
    // the outcome from a verifier on the whole completion
    const byVerifier = await run(
      { aggregate: "gated", outcome: { type: "contains", value: "42" } },
      { completion: "so 42", steps, step_scores: [1, 1] },
    );
    expect(byVerifier.score).toBe(2);
  });

  it("rejects bad options at compile time, naming the field", () => {
    expect(() => parseSpec(`components:\n  - {name: p, type: process, aggregate: median}`, "t.yaml")).toThrow(
      /aggregate/,
    );
    expect(() => parseSpec(`components:\n  - {name: p, type: process, stepVerifier: {type: regex}}`, "t.yaml")).toThrow(
      /stepVerifier\.pattern/,
    );
    expect(() => parseSpec(`components:\n  - {name: p, type: process, stepVerifier: {type: nope}}`, "t.yaml")).toThrow(
      /unknown verifier type "nope"/,
    );
    expect(() =>
      parseSpec(`components:\n  - {name: p, type: process, stepVerifier: {type: process}}`, "t.yaml"),
    ).toThrow(/cannot nest/);
    expect(() => parseSpec(`components:\n  - {name: p, type: process, split: marker, marker: "("}`, "t.yaml")).toThrow(
      /marker: invalid regular expression/,
    );
  });

  it("through the engine: a scheduled processWeight of mix is resolved at the rollout's step", async () => {
    const spec = parseSpec(
      `components:\n  - {name: p, type: process, aggregate: mix, processWeight: {schedule: linear, from: 1, to: 0, startStep: 0, endStep: 100}}`,
      "t.yaml",
    );
    const scorer = createScorer(spec, { concurrency: 1 });
    try {
      const at = async (step: number) =>
        (
          await scorer.score({
            id: `s${step}`,
            group: "g",
            completion: "a\n\nb",
            step_scores: [0.5, 0.5],
            outcome: 1,
            step,
          })
        ).results[0]!.score;
      expect(await at(0)).toBeCloseTo(1.5, 12);
      expect(await at(50)).toBeCloseTo(1.25, 12);
      expect(await at(100)).toBeCloseTo(1, 12);
    } finally {
      await scorer.close();
    }
  });
});
