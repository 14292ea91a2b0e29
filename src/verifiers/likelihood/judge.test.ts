import { describe, expect, it } from "vitest";
import { tokenShare, weightedJudgePreference } from "./judge.js";

describe("weighted judge preference (hand-computed)", () => {
  const top = [
    { token: "M", logprob: Math.log(0.75) },
    { token: "m", logprob: Math.log(0.25) },
    { token: "The", logprob: Math.log(0.01) },
  ];
  it("renormalizes over the identifier tokens", () => {
    expect(tokenShare(top, "m", ["m", "M"])).toBeCloseTo(0.25, 14);
    expect(weightedJudgePreference(top)).toBeCloseTo(1.25, 14);
    expect(weightedJudgePreference(top, true)).toBeCloseTo(1.75, 14);
  });
  it("counts an absent identifier as 0, and gives nothing when both are absent", () => {
    expect(weightedJudgePreference([{ token: "M", logprob: -0.1 }])).toBe(1);
    expect(weightedJudgePreference([{ token: "m", logprob: -3 }])).toBe(2);
    expect(weightedJudgePreference([{ token: "Both", logprob: -0.1 }])).toBeUndefined();
  });
  it("reproduces the first RewardBench judgment (tulu-2-dpo-13b.0, id 0): 1.000037053", () => {
    const row = [
      { token: "M", logprob: -3.76236e-5 },
      { token: "m", logprob: -10.203162 },
      { token: "The", logprob: -15.484412 },
      { token: "Based", logprob: -16.187538 },
      { token: "Both", logprob: -16.421913 },
    ];
    expect(weightedJudgePreference(row)).toBeCloseTo(1.000037053, 9);
  });
});
