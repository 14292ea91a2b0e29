import { describe, expect, it } from "vitest";
import { arithmeticVerifier, checkEquations, evaluate } from "./arithmetic.js";

const fn = arithmeticVerifier.create({});
const score = async (text: string) =>
  (await fn({ completion: text, reference: undefined, rollout: { id: "r", group: "g", completion: text } })).score;

describe("arithmetic step checker", () => {
  it("evaluates + - * / ( ) exactly, rejecting anything else", () => {
    expect(evaluate("2 + 3 * 4")).toBe(14);
    expect(evaluate("(2 + 3) * 4")).toBe(20);
    expect(evaluate("-3 + 10 / 4")).toBe(-0.5);
    expect(evaluate("2 ^ 3")).toBeUndefined();
    expect(evaluate("2 +")).toBeUndefined();
    expect(evaluate("1/0")).toBeUndefined();
  });

  it("checks the equations of real ProcessBench steps (gsm8k-36 step 3, gsm8k-313 step 2)", () => {
    expect(checkEquations("we sum the number of people seen each day: \\[ 50 + 70 + 140 + 240 = 400 \\]")).toEqual([
      { text: "50 + 70 + 140 + 240 = 400", holds: false },
    ]);
    expect(
      checkEquations("Now, add these results together: \\[ 150 + 160 = 310 \\] \\[ 310 + 190 = 500 \\]").map(
        (e) => e.holds,
      ),
    ).toEqual([true, true]);
  });

  it("reads LaTeX, Unicode operators, units, money and thousands separators", () => {
    expect(
      checkEquations("Total weight: \\(2 \\text{ books} \\times 2 \\text{ pounds/book} = 4 \\text{ pounds}\\)."),
    ).toEqual([{ text: "2 * 2 = 4", holds: true }]);
    expect(checkEquations("So 1/3 × 18 = 6 and 18 − 6 = 12.").map((e) => e.holds)).toEqual([true, true]);
    expect(checkEquations("$1,200 + $300 = $1,500")).toEqual([{ text: "1200 + 300 = 1500", holds: true }]);
    expect(checkEquations("4 pounds + 4 pounds = 8 pounds")).toEqual([{ text: "4 + 4 = 8", holds: true }]);
    expect(checkEquations("\\frac{3}{4} \\cdot 8 = 6")).toEqual([{ text: "((3)/(4)) * 8 = 6", holds: true }]);
    expect(checkEquations("Increase = 20% of $20 = 0.20 × $20 = $4.")).toEqual([
      { text: "0.20 * 20 = 4", holds: true },
    ]);
    expect(checkEquations("10 / 3 = 3.33")[0]!.holds).toBe(true); // rounded to the decimals shown
    expect(checkEquations("10 / 3 = 3.4")[0]!.holds).toBe(false);
    expect(checkEquations("36/5 = 7 full pens")[0]!.holds).toBe(true); // a division written as a whole number: floor
    expect(checkEquations("40/5 = 3 dollars")[0]!.holds).toBe(false);
  });

  it("leaves alone what is not plain arithmetic", () => {
    for (const t of [
      "2x + 3 = 7",
      "3^2 + 4 = 13",
      "x = 5",
      "D - 8 = 60 - 9 + y",
      "f(3) + 1 = 5",
      "\\sqrt{16} + 1 = 5",
      "a_1 + 2 = 3",
      "heat up to 400 degrees = 20 + 8",
    ]) {
      expect(checkEquations(t).filter((e) => !e.holds)).toEqual([]);
    }
    // the left side after words is dropped, the rest is still checked
    expect(checkEquations("Alyana's Age = Chenny's Age - 4 = 10 - 4 = 6")).toEqual([
      { text: "10 - 4 = 6", holds: true },
    ]);
  });

  it("adversarial: a wrong equation scores 0 however it is dressed", async () => {
    for (const t of [
      "2 + 2 = 5",
      "2+2=5.",
      "So 2 + 2 = 4 = 5",
      "\\(2 \\times 3 = 7\\)",
      "2 × 3 = 7 apples",
      "$4 + $4 = $9",
      "1,000 + 1 = 1,002",
      "7 − 2 = 4",
      "(2 + 3) * 2 = 11",
      "10 / 4 = 2.4",
    ]) {
      expect(await score(t)).toBe(0);
    }
    expect(await score("2 + 2 = 4, and 3 * 3 = 9.")).toBe(1);
    expect(
      (await fn({ completion: " ", reference: undefined, rollout: { id: "r", group: "g", completion: " " } })).reason,
    ).toBe("no_completion");
  });
});
