import { describe, expect, it } from "vitest";
import { run } from "../structured/run.test-helper.js";
import { choiceVerifier, extractChoice } from "./choice.js";

describe("extractChoice", () => {
  it.each([
    ["\\boxed{B}", ["B"]],
    ["so the result is $\\boxed{\\text{C}}$", ["C"]],
    ["\\boxed{(D)}", ["D"]],
    ["The answer is B.", ["B"]],
    ["Therefore, the correct answer is (C).", ["C"]],
    ["Answer: **E**", ["E"]],
    ["answer: J", ["J"]],
    ["B", ["B"]],
    ["(B)", ["B"]],
    ["B) Paris is the capital", ["B"]],
    ["**A**", ["A"]],
    ["I pick **C** because it fits.", ["C"]],
    ["Between (A) and (C), I think it is (C)... or (A)", ["A", "C"]],
    ["The answer is A or B", ["A", "B"]],
    ["The answer is a tricky one", []], // the article "a" is not option A
    ["I don't know", []],
    ["The answer is K", []],
    // hedges: every option offered after the answer is an answer given
    ["The answer is B, or maybe C.", ["B", "C"]],
    ["B, or maybe C", ["B", "C"]],
    ["Answer: (B), or maybe (C)", ["B", "C"]],
    ["\\boxed{B}, or maybe C", ["B", "C"]],
    ["(B), or maybe (C)", ["B", "C"]],
    ["I think the answer is B, or maybe C.", ["B", "C"]],
    ["The answer is B, or C", ["B", "C"]],
    ["The answer is B. Perhaps **D** fits too.", ["B", "D"]],
    ["The answer is B; alternatively it could be (E).", ["B", "E"]],
    // not hedges: a reasoning "maybe" before the answer, the pronoun I, a restated answer
    ["Maybe (A)? No. The answer is B.", ["B"]],
    ["The answer is B, or maybe I am wrong", ["B"]],
    ["The answer is B, or maybe B again", ["B"]],
    ["maybe", []],
    // a whole completion that lists options, and hedges without an answer cue (red team: these were no_answer)
    ["A or B", ["A", "B"]],
    ["A, B", ["A", "B"]],
    ["AB", ["A", "B"]],
    ["Both B and C", ["B", "C"]],
    ["B and D", ["B", "D"]],
    ["I think B. Actually maybe C.", ["B", "C"]],
    // quoted and bracketed letters after a cue
    ['Answer: "B"', ["B"]],
    ["Answer: [B]", ["B"]],
    ["Answer: 'B'", ["B"]],
  ])("%j → %j", (text, want) => {
    expect(extractChoice(text, "ABCDEFGHIJ")).toEqual(want);
  });
  it("options are configurable", () => {
    expect(extractChoice("The answer is E", "ABCD")).toEqual([]);
  });
});

describe("choice", () => {
  it("scores against a letter or an index; several letters earn 0", async () => {
    expect(await run(choiceVerifier, {}, "The answer is (B).", "B")).toEqual({
      score: 1,
      status: "ok",
      details: { extracted: "B" },
    });
    expect((await run(choiceVerifier, {}, "\\boxed{B}", 1)).score).toBe(1);
    expect((await run(choiceVerifier, {}, "\\boxed{B}", "(b)")).score).toBe(1);
    expect(await run(choiceVerifier, {}, "\\boxed{C}", "B")).toMatchObject({ score: 0, reason: "wrong_answer" });
    expect(await run(choiceVerifier, {}, "The answer is A, B, C or D", "B")).toEqual({
      score: 0,
      status: "ok",
      reason: "multiple_answers",
      details: { extracted: ["A", "B", "C", "D"] },
    });
    expect(await run(choiceVerifier, {}, "no idea", "B")).toEqual({
      score: null,
      status: "unscorable",
      reason: "no_answer",
    });
    expect((await run(choiceVerifier, {}, "B")).reason).toBe("no_reference");
    expect((await run(choiceVerifier, { letters: "ABCD" }, "B", "F")).reason).toBe("invalid_reference");
  });
  it("reads the answer after the reasoning block, full-width letters as ASCII (red team)", async () => {
    expect(await run(choiceVerifier, {}, "<think>The answer is B</think>\nC", "B")).toMatchObject({
      score: 0,
      reason: "wrong_answer",
    });
    expect((await run(choiceVerifier, {}, "<think>The answer is B</think>\nC", "C")).score).toBe(1);
    expect((await run(choiceVerifier, {}, "<think>hmm</think>\n\nB", "B")).score).toBe(1);
    expect(await run(choiceVerifier, {}, "<think>The answer is B", "B")).toMatchObject({
      score: null,
      reason: "no_answer",
    });
    expect(
      (await run(choiceVerifier, { answerAfterThink: false }, "<think>The answer is B</think>\nI am not sure.", "B"))
        .score,
    ).toBe(1);
    expect((await run(choiceVerifier, {}, "Answer: Ｂ", "B")).score).toBe(1);
  });
  it.each(["A or B", "A, B", "AB", "Both B and C", "I think B. Actually maybe C."])(
    "the list %j scores 0 (multiple_answers), never unscorable",
    async (text) => {
      expect(await run(choiceVerifier, {}, text, "B")).toMatchObject({
        score: 0,
        status: "ok",
        reason: "multiple_answers",
      });
    },
  );
  // adversarial suite: a hedge names two options and earns 0 against either (found by `rewardkit probe`, hedge)
  it.each([
    "B, or maybe C",
    "The answer is B, or maybe C.",
    "Answer: (B), or maybe (C)",
    "\\boxed{B}, or maybe C",
    "I think the answer is B, or maybe C.",
    "The answer is C, or perhaps B",
  ])("the hedge %j scores 0 against B and against C", async (text) => {
    for (const ref of ["B", "C"])
      expect(await run(choiceVerifier, {}, text, ref)).toMatchObject({
        score: 0,
        status: "ok",
        reason: "multiple_answers",
      });
  });
});
