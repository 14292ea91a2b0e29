import { describe, expect, it } from "vitest";
import { clip, debiased, formValue, logprobProblem } from "./forms.js";

const L = [Math.log(0.5), Math.log(0.25)];

describe("formValue (hand-computed)", () => {
  it("gives sum, mean, mean of exp and exp of sum", () => {
    expect(formValue("logprob", L)).toBeCloseTo(Math.log(0.125), 14);
    expect(formValue("mean-logprob", L)).toBeCloseTo(Math.log(0.125) / 2, 14);
    expect(formValue("mean-prob", L)).toBeCloseTo(0.375, 14);
    expect(formValue("seq-prob", L)).toBeCloseTo(0.125, 14);
  });

  it("on one certain token is 0 or 1", () => {
    expect(formValue("logprob", [0])).toBe(0);
    expect(formValue("mean-prob", [0])).toBe(1);
    expect(formValue("seq-prob", [0])).toBe(1);
  });

  it("seq-prob underflows to 0 on long unlikely references (why log forms exist), logprob stays finite", () => {
    const lp = new Array<number>(400).fill(-2);
    expect(formValue("seq-prob", lp)).toBeCloseTo(0, 300);
    expect(formValue("logprob", lp)).toBe(-800);
    expect(formValue("mean-prob", lp)).toBeCloseTo(Math.exp(-2), 14);
  });
});

describe("debiasing and clipping (RLPR)", () => {
  it("subtracts the no-reasoning value: 0.8 − 0.4 = 0.4", () => {
    expect(debiased("mean-prob", [Math.log(0.9), Math.log(0.7)], [Math.log(0.5), Math.log(0.3)])).toBeCloseTo(0.4, 14);
  });
  it("clips to [min, max], either bound optional, without −0", () => {
    expect(clip(-0.2, 0, 1)).toBe(0);
    expect(Object.is(clip(-0, undefined, undefined), 0)).toBe(true);
    expect(clip(1.5, undefined, 1)).toBe(1);
    expect(clip(-3, -2, undefined)).toBe(-2);
    expect(clip(0.3, 0, 1)).toBe(0.3);
  });
});

describe("logprobProblem", () => {
  it("accepts finite non-positive numbers and engine rounding just above 0", () => {
    expect(logprobProblem([-1, 0, -0.5])).toBeUndefined();
    expect(logprobProblem([3e-7])).toBeUndefined();
  });
  it("names the problem otherwise", () => {
    expect(logprobProblem(undefined)).toBe("missing");
    expect(logprobProblem([])).toMatch(/empty/);
    expect(logprobProblem("-1,-2")).toMatch(/array/);
    expect(logprobProblem([-1, null])).toBe("[1]: expected a number, got null");
    expect(logprobProblem([-1, NaN])).toMatch(/not finite/);
    expect(logprobProblem([-Infinity])).toMatch(/not finite/);
    expect(logprobProblem([-1, 0.7])).toMatch(/not a log-probability/);
  });
});
