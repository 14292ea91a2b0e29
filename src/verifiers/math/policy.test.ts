import { describe, it, expect } from "vitest";
import { allBoxed, extractAnswer } from "./extract.js";
import { afterThink } from "../reasoning.js";
import { verifyMath } from "./index.js";

describe("extraction policy", () => {
  it("allBoxed lists every balanced box once, outer boxes only, in linear time", () => {
    expect(
      allBoxed("\\boxed{1} x \\boxed{\\frac{1}{2}} \\boxed{} \\boxed{\\boxed{5}} \\boxed 7").map((b) => b.inner),
    ).toEqual(["1", "\\frac{1}{2}", "\\boxed{5}", "7"]);
    // 100 000 unclosed boxes: linear scanning returns at once; a quadratic one would run for minutes and hit this
    // test's 10 s limit (a hang guard, not a speed test: speed is measured by npm run stress:math)
    expect(allBoxed("\\boxed{".repeat(100_000))).toEqual([]);
  }, 10_000);

  it("first / last boxed, 'answer is' phrases and the opt-in last number", () => {
    const t = "First \\boxed{3}, then \\boxed{4}.";
    expect(extractAnswer(t)?.answer).toBe("4");
    expect(extractAnswer(t, undefined, "first")?.answer).toBe("3");
    expect(extractAnswer(t)?.boxed).toEqual(["3", "4"]);
    expect(extractAnswer("We get 12 apples, so the answer is 15.", ["final-answer"])?.answer).toBe("15");
    expect(extractAnswer("We get 12 apples and then 1,250 more.", ["last-number"])?.answer).toBe("1,250");
    expect(extractAnswer("no digits", ["last-number"])).toBeNull();
  });

  it("multipleBoxed: last (default), first, all, reject", async () => {
    const t = "Intermediate \\boxed{3}; final \\boxed{4}.";
    expect((await verifyMath(t, "4")).score).toBe(1);
    expect((await verifyMath(t, "4", { multipleBoxed: "first" })).score).toBe(0);
    expect(await verifyMath(t, "4", { multipleBoxed: "all" })).toMatchObject({
      score: 0,
      status: "ok",
      reason: "multiple_answers",
    });
    expect(await verifyMath(t, "4", { multipleBoxed: "reject" })).toMatchObject({
      score: 0,
      status: "ok",
      reason: "multiple_answers",
    });
    // The same value boxed twice (or written two ways) is one answer.
    const same = "So \\boxed{\\frac12}, i.e. \\boxed{0.5}.";
    expect((await verifyMath(same, "1/2", { multipleBoxed: "reject" })).score).toBe(1);
    expect((await verifyMath(same, "1/2", { multipleBoxed: "all" })).score).toBe(1);
    expect(await verifyMath("\\boxed{5} \\boxed{6}", "4", { multipleBoxed: "reject" })).toMatchObject({
      reason: "multiple_answers",
    });
    expect(await verifyMath("\\boxed{5} \\boxed{6}", "4", { multipleBoxed: "all" })).toMatchObject({
      reason: "wrong_answer",
    });
  });

  it("an enumeration never matches a single gold: score 0, status ok, multiple_answers", async () => {
    for (const pred of [
      "\\boxed{1, 2, 3}",
      "The answer is 1, 2, or 3.",
      "\\boxed{x=1, x=2}",
      "\\boxed{\\{1,2,3\\}}",
      "\\boxed{\\pm 2}",
      "\\boxed{2 \\text{ or } 3}",
    ]) {
      expect(await verifyMath(pred, "2"), pred).toMatchObject({ score: 0, status: "ok", reason: "multiple_answers" });
    }
    expect(await verifyMath("\\boxed{\\text{Monday or Tuesday}}", "\\text{Monday}")).toMatchObject({
      score: 0,
      reason: "multiple_answers",
    });
    expect(await verifyMath("\\boxed{(B), (C)}", "(B)")).toMatchObject({ score: 0, reason: "multiple_answers" });
    // A list gold still takes a list.
    expect((await verifyMath("\\boxed{3, 1, 2}", "1, 2, 3")).score).toBe(1);
    expect((await verifyMath("\\boxed{1, 2}", "1, 2, 3")).reason).toBe("wrong_answer");
  });

  it("answerAfterThink: an answer only inside <think> does not count", async () => {
    expect(afterThink("<think>\\boxed{4}</think> So 4.")).toBe(" So 4.");
    expect(afterThink("<think>never closed \\boxed{4}")).toBeNull();
    expect(afterThink("plain \\boxed{4}")).toBe("plain \\boxed{4}");
    // a lone closing tag with nothing after it: the text before it is the answer region (the only answer given)
    expect(afterThink("so 4</think>  ")).toBe("so 4");
    expect(afterThink("so \\boxed{4}</think>\n<|im_end|>")).toBe("so \\boxed{4}");
    // a complete block with nothing after it: the answer is hidden in the reasoning, no answer region
    expect(afterThink("<think>so \\boxed{4}</think>\n<|im_end|>")).toBe("\n<|im_end|>");
    const inside = "<think>so \\boxed{4}</think>I am not sure.";
    expect((await verifyMath(inside, "4", { answerAfterThink: false })).score).toBe(1); // false: anywhere
    expect(await verifyMath(inside, "4")).toMatchObject({ score: null, reason: "no_answer" }); // default true
    expect(await verifyMath(inside, "4", { answerAfterThink: true })).toMatchObject({
      score: null,
      reason: "no_answer",
    });
    // the trial's case: a boxed guess inside <think> no longer beats the unboxed final answer
    expect((await verifyMath("<think>maybe \\boxed{5}? no.</think>\n**7**", "7")).score).toBe(1);
    expect(
      (await verifyMath("<think>maybe \\boxed{5}? no.</think>\n**7**", "7", { answerAfterThink: false })).score,
    ).toBe(0);
    expect(
      (await verifyMath("<think>maybe \\boxed{3}</think> The answer is \\boxed{4}.", "4", { answerAfterThink: true }))
        .score,
    ).toBe(1);
    expect(await verifyMath("<think>\\boxed{4}", "4", { answerAfterThink: true })).toMatchObject({
      reason: "no_answer",
    });
    expect(
      (await verifyMath("<reason>\\boxed{3}</reason>\\boxed{4}", "4", { answerAfterThink: true, thinkTag: "reason" }))
        .score,
    ).toBe(1);
  });
});

describe("pathological inputs return quickly", () => {
  const cases: [string, string][] = [
    ["power tower", "\\boxed{5^{5^{5^{5^{5}}}}}"],
    ["10 000-digit number", `\\boxed{${"7".repeat(10_000)}}`],
    ["20 000-digit number", `\\boxed{${"7".repeat(20_000)}}`],
    ["10 000 nested braces", `\\boxed{${"{".repeat(10_000)}1${"}".repeat(10_000)}}`],
    ["10 000 nested parens", `\\boxed{${"(".repeat(10_000)}1${")".repeat(10_000)}}`],
    ["1 MB response", `${"blah 1 ".repeat(150_000)} \\boxed{3}`],
    ["1 MB of unclosed boxes", "\\boxed{".repeat(150_000)],
    ["1 MB answer", `\\boxed{${"1+".repeat(500_000)}1}`],
    ["huge factorial", "\\boxed{\\frac{1}{100000!}}"],
    ["huge exponent", "\\boxed{2^{10^{100}}}"],
  ];
  for (const [name, completion] of cases) {
    // a hang guard (10 s), not a speed test: the fast path refuses these shapes instead of computing them
    it(
      name,
      async () => {
        const r = await verifyMath(completion, "3");
        expect(["ok", "unscorable"]).toContain(r.status);
        if (r.status === "unscorable") expect(["parse_error", "undecidable", "no_answer"]).toContain(r.reason);
      },
      10_000,
    );
  }
  it("a 10 000-digit number is still compared exactly", async () => {
    const big = "7".repeat(10_000);
    expect((await verifyMath(`\\boxed{${big}}`, big)).score).toBe(1);
    expect((await verifyMath(`\\boxed{${big}8}`, `${big}7`)).score).toBe(0);
  });
});
