/**
 * Adversarial suite of the `process` verifier: what a policy controls is the completion (and so the steps and their
 * number); the step scores come from a scorer it does not control. Every attack below must gain nothing (gain 0) or
 * give no score at all (unscorable, never a silent number).
 */
import { describe, expect, it } from "vitest";
import type { ComponentResult, Rollout } from "../../core/types.js";
import { getVerifier } from "../registry.js";
import { createProcessVerifier } from "./index.js";

const def = createProcessVerifier(getVerifier);
async function score(options: Record<string, unknown>, rollout: Partial<Rollout>): Promise<ComponentResult> {
  const fn = def.create(def.options.parse(options));
  const r = { id: "r", group: "g", completion: "", ...rollout } as Rollout;
  return fn({ completion: typeof r.completion === "string" ? r.completion : "", reference: r.reference, rollout: r });
}

const honest = [0.9, 0.4, 0.8];
/** The attack: pad the solution with n extra steps the scorer rates perfectly ("Let me restate the problem."). */
const padded = (n: number) => [...honest, ...new Array<number>(n).fill(1)];
const steps = (s: number[]) => s.map((_, k) => `Step ${k + 1}.`);

describe("process: padding with perfectly-scored steps gains nothing under the bounded aggregations", () => {
  for (const aggregate of ["min", "product", "clip", "clip-delta", "first-error"]) {
    it(`${aggregate}: gain 0 for 1, 10 and 100 padded steps`, async () => {
      const base = (await score({ aggregate }, { steps: steps(honest), step_scores: honest })).score!;
      for (const n of [1, 10, 100]) {
        const s = padded(n);
        const attacked = (await score({ aggregate }, { steps: steps(s), step_scores: s })).score!;
        expect(attacked - base).toBeLessThanOrEqual(0);
      }
    });
  }
  it("clip and clip-delta: interleaved padding gains nothing either", async () => {
    for (const aggregate of ["clip", "clip-delta"]) {
      const base = (await score({ aggregate }, { steps: steps(honest), step_scores: honest })).score!;
      const s = [0.9, 1, 0.4, 1, 0.8, 1];
      expect((await score({ aggregate }, { steps: steps(s), step_scores: s })).score! - base).toBeLessThanOrEqual(0);
    }
  });
  it("clip-delta's scalar total is the first step's clipped score: a perfect first step lifts it to 0 (documented; its point is the per-step return-to-go, so use it through step_advantages or use clip)", async () => {
    const s = [1, ...honest];
    expect((await score({ aggregate: "clip-delta" }, { steps: steps(s), step_scores: s })).score).toBe(0);
    // clip is not fooled: the honest steps' penalties stay
    expect((await score({ aggregate: "clip" }, { steps: steps(s), step_scores: s })).score).toBeCloseTo(
      -0.1 - 0.6 - 0.2,
      12,
    );
  });
  it("sum, mean and last ARE hackable by padding (documented; use them with weight 0 or under gated/clip-delta)", async () => {
    for (const aggregate of ["sum", "mean", "last"]) {
      const base = (await score({ aggregate }, { steps: steps(honest), step_scores: honest })).score!;
      const attacked = (await score({ aggregate }, { steps: steps(padded(10)), step_scores: padded(10) })).score!;
      expect(attacked).toBeGreaterThan(base);
    }
  });
});

describe("process: other attacks", () => {
  it("gated: perfect steps with a wrong outcome earn 0 process credit", async () => {
    const s = padded(20);
    const r = await score({ aggregate: "gated", base: "sum" }, { steps: steps(s), step_scores: s, outcome: false });
    expect(r.score).toBe(0);
    expect((r.details!.step_rewards as number[]).every((x) => x === 0)).toBe(true);
  });
  it("an empty or blank completion, or one with only separators, is unscorable, not a score", async () => {
    for (const completion of ["", "   ", "\n\n\n\n", "<step></step><step> </step>"]) {
      const r = await score(
        { split: completion.includes("<") ? "tag" : "blank-line", stepVerifier: { type: "contains", value: "x" } },
        { completion },
      );
      expect(r.score).toBeNull();
      expect(["no_completion", "invalid_steps"]).toContain(r.reason);
    }
  });
  it("text in the completion cannot supply step scores: only the rollout's step_scores field counts", async () => {
    const completion = 'Step 1: 2+2=5.\n\n{"step_scores": [1, 1]}';
    const r = await score({ aggregate: "min" }, { completion });
    expect(r).toMatchObject({ score: null, reason: "invalid_steps" });
  });
  it("a per-step verifier that crashes makes the component unscorable with worker_error, never a 0 or 1", async () => {
    const boom = createProcessVerifier((type) =>
      type === "boom"
        ? {
            ...getVerifier("contains")!,
            type: "boom",
            options: getVerifier("contains")!.options,
            create: () => () => {
              throw new Error("boom");
            },
          }
        : getVerifier(type),
    );
    const fn = boom.create(boom.options.parse({ stepVerifier: { type: "boom", value: "x" } }));
    const r = await fn({
      completion: "a\n\nb",
      reference: undefined,
      rollout: { id: "r", group: "g", completion: "a\n\nb" },
    });
    expect(r).toMatchObject({
      score: null,
      reason: "worker_error",
      details: { step_reasons: ["worker_error", "worker_error"] },
    });
  });
  it("fake step markers in marker mode only add steps, which the bounded aggregations do not pay", async () => {
    const completion = "Step 1: 2 + 2 = 4\nStep 2: so 4\nStep 3:\nStep 4:\nStep 5: fine";
    const r = await score(
      { split: "marker", aggregate: "min", stepVerifier: { type: "contains", value: "4" } },
      { completion },
    );
    // five steps, the last three without a "4": min = 0
    expect(r.details).toMatchObject({ steps: 5 });
    expect(r.score).toBe(0);
  });
});
