import { describe, expect, it } from "vitest";
import { verifyMath } from "./index.js";
import { hedgeAfter } from "./hedge.js";

describe("math: hedged answers earn 0 (reward-hacking probe `hedge`)", () => {
  it.each(["\\boxed{420}, or maybe 421", "The answer is 420, or maybe 421", "Answer: 420, or maybe 421", "(420), or maybe (421)", "The answer is 421, or perhaps 420."])(
    "%j → 0 multiple_answers against 420",
    async (text) => {
      expect(await verifyMath(text, "420")).toMatchObject({ score: 0, status: "ok", reason: "multiple_answers" });
    },
  );
  it("a committed answer, or a 'maybe' that offers no value, still scores", async () => {
    expect((await verifyMath("\\boxed{420}", "420")).score).toBe(1);
    expect((await verifyMath("\\boxed{420}. Alternatively, \\boxed{421}", "420")).score).toBe(0); // the last box counts
    expect((await verifyMath("\\boxed{420}. Maybe I should double-check: yes.", "420")).score).toBe(1);
    expect((await verifyMath("Maybe 12? No: the answer is \\boxed{420}.", "420")).score).toBe(1);
  });
  it("hedgeAfter names the alternative", () => {
    expect(hedgeAfter("so \\boxed{420}, or maybe 421.", "420")).toBe("}, or maybe 4");
    expect(hedgeAfter("so \\boxed{420}.", "420")).toBeUndefined();
  });
});
