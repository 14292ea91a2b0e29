import { describe, expect, it } from "vitest";
import {
  brierReward,
  brierVerifier,
  extractProbability,
  logScoreReward,
  logScoreVerifier,
  outcomeOf,
} from "./forecast.js";

const brier = brierVerifier.create(brierVerifier.options.parse({}));
const logScore = logScoreVerifier.create(logScoreVerifier.options.parse({}));
const input = (completion: string, reference: unknown) => ({
  completion,
  reference,
  rollout: { id: "a", group: "g", completion },
});

describe("proper scoring rules (hand-computed)", () => {
  it("Brier: −(p − o)²", () => {
    expect(brierReward(0.7, 1)).toBeCloseTo(-0.09, 14);
    expect(brierReward(0.7, 0)).toBeCloseTo(-0.49, 14);
    expect(brierReward(0.5, 1)).toBe(-0.25);
    expect(Object.is(brierReward(1, 1), 0)).toBe(true);
    expect(brierReward(0, 1)).toBe(-1);
  });
  it("log score: ln p or ln(1 − p), clamped to [ε, 1 − ε]", () => {
    expect(logScoreReward(0.7, 1, 1e-6)).toBeCloseTo(Math.log(0.7), 14);
    expect(logScoreReward(0.7, 0, 1e-6)).toBeCloseTo(Math.log(0.3), 14);
    expect(logScoreReward(0, 1, 1e-6)).toBeCloseTo(Math.log(1e-6), 12); // −13.8155…, not −∞
    expect(logScoreReward(1, 1, 1e-6)).toBeCloseTo(Math.log(1 - 1e-6), 14);
  });
  it("both are proper: the expected score under q is maximized by reporting p = q", () => {
    const q = 0.3;
    const grid = Array.from({ length: 101 }, (_, i) => i / 100);
    const best = (rule: (p: number, o: 0 | 1) => number) =>
      grid.reduce((b, p) => (q * rule(p, 1) + (1 - q) * rule(p, 0) > q * rule(b, 1) + (1 - q) * rule(b, 0) ? p : b));
    expect(best(brierReward)).toBe(0.3);
    expect(best((p, o) => logScoreReward(p, o, 1e-6))).toBe(0.3);
  });
});

describe("extraction", () => {
  it("reads the last number, in the last <answer> block when there is one; % means /100", () => {
    expect(extractProbability("I'd say 0.7")).toEqual({ p: 0.7, text: "0.7" });
    expect(extractProbability("Between 2 options... final: 70%")).toEqual({ p: 0.7, text: "70%" });
    expect(extractProbability("<answer>.25</answer> then 0.9")).toEqual({ p: 0.25, text: ".25" });
    expect(extractProbability("7e-1")).toEqual({ p: 0.7, text: "7e-1" });
    expect(extractProbability("no idea")).toEqual({ reason: "no_answer" });
    expect(extractProbability("p = 1.5")).toEqual({ reason: "parse_error", text: "1.5" });
    expect(extractProbability("p = -0.2")).toEqual({ reason: "parse_error", text: "-0.2" });
  });
  it("reads binary outcomes", () => {
    expect([true, 1, "yes", " TRUE ", "1"].map(outcomeOf)).toEqual([1, 1, 1, 1, 1]);
    expect([false, 0, "no", "False", "0"].map(outcomeOf)).toEqual([0, 0, 0, 0, 0]);
    expect([2, "maybe", {}].map(outcomeOf)).toEqual([undefined, undefined, undefined]);
  });
});

describe("brier and log-score verifiers", () => {
  it("score a forecast against the outcome", async () => {
    expect(await brier(input("<answer>0.8</answer>", true))).toEqual({
      score: expect.closeTo(-0.04, 14),
      status: "ok",
      details: { extracted: 0.8, outcome: 1 },
    });
    expect((await logScore(input("80%", "no"))).score).toBeCloseTo(Math.log(0.2), 14);
  });
  it("unscorable without a usable forecast or outcome", async () => {
    expect(await brier(input("0.8", undefined))).toMatchObject({ status: "unscorable", reason: "no_reference" });
    expect(await brier(input("0.8", "perhaps"))).toMatchObject({ status: "unscorable", reason: "invalid_reference" });
    expect(await logScore(input("dunno", 1))).toMatchObject({ score: null, reason: "no_answer" });
    expect(await logScore(input("150%", 1))).toMatchObject({ score: null, reason: "parse_error" });
  });
  it("options: epsilon in (0, 0.5], nothing else", () => {
    expect(logScoreVerifier.options.safeParse({ epsilon: 0 }).success).toBe(false);
    expect(brierVerifier.options.safeParse({ epsilon: 0.1 }).success).toBe(false);
  });
});
