import { describe, expect, it } from "vitest";
import { getSchedule } from "./registry.js";

/** The step function of a schedule object as written in a spec. */
function at(obj: Record<string, unknown>): (s: number) => number {
  const { schedule, ...rest } = obj;
  const def = getSchedule(schedule as string)!;
  return def.at(def.options.parse(rest));
}

describe("step schedules", () => {
  it("constant", () => {
    const f = at({ schedule: "constant", value: 0.5 });
    expect([f(0), f(1000)]).toEqual([0.5, 0.5]);
  });

  it("piecewise: each stage's value from its startStep on", () => {
    const f = at({
      schedule: "piecewise",
      stages: [
        { startStep: 0, value: 0 },
        { startStep: 200, value: 1 },
        { startStep: 500, value: 0.5 },
      ],
    });
    expect([0, 199, 200, 499, 500, 10_000].map(f)).toEqual([0, 0, 1, 1, 0.5, 0.5]);
  });

  it("linear: from before startStep, to after endStep, a straight line between", () => {
    const f = at({ schedule: "linear", from: 0.5, to: 0, startStep: 0, endStep: 100 });
    expect([0, 50, 100, 199, 300].map(f)).toEqual([0.5, 0.25, 0, 0, 0]);
    const g = at({ schedule: "linear", from: 1, to: 3, startStep: 10, endStep: 20 });
    expect([0, 10, 15, 20, 25].map(g)).toEqual([1, 1, 2, 3, 3]);
  });

  it("cosine: to + (from - to)(1 + cos(pi t))/2", () => {
    const f = at({ schedule: "cosine", from: 1, to: 0, endStep: 100 });
    expect(f(0)).toBe(1);
    expect(f(25)).toBeCloseTo(0.8535533905932737, 15); // (1 + √2/2)/2
    expect(f(50)).toBeCloseTo(0.5, 15);
    expect(f(100)).toBe(0);
    expect(f(150)).toBe(0);
  });

  it("exponential: the distance to `to` halves every halfLife steps", () => {
    const f = at({ schedule: "exponential", from: 1, halfLife: 50 });
    expect([0, 50, 100].map(f)).toEqual([1, 0.5, 0.25]);
    const g = at({ schedule: "exponential", from: 1, to: 0.2, halfLife: 50, startStep: 10 });
    expect([0, 10, 60].map(g)).toEqual([1, 1, 0.6000000000000001]);
  });

  it("rejects malformed schedules", () => {
    const bad = (obj: Record<string, unknown>) => {
      const { schedule, ...rest } = obj;
      return getSchedule(schedule as string)!.options.safeParse(rest).success;
    };
    expect(bad({ schedule: "piecewise", stages: [{ startStep: 5, value: 0 }] })).toBe(false);
    expect(
      bad({
        schedule: "piecewise",
        stages: [
          { startStep: 0, value: 0 },
          { startStep: 0, value: 1 },
        ],
      }),
    ).toBe(false);
    expect(bad({ schedule: "linear", from: 0, to: 1, startStep: 10, endStep: 10 })).toBe(false);
    expect(bad({ schedule: "linear", from: 0, to: 1, endStep: 10, extra: 1 })).toBe(false);
    expect(bad({ schedule: "exponential", from: 1, halfLife: 0 })).toBe(false);
    expect(bad({ schedule: "performance", from: 0.5, to: 0.5, increment: 0.1 })).toBe(false);
  });
});
