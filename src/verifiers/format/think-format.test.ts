import { describe, expect, it } from "vitest";
import { promptOpensThink, thinkFormat, thinkFormatVerifier } from "./think-format.js";
import type { Rollout } from "../../core/types.js";
import { completionText } from "../../core/completion.js";

const v = { semantics: "verifiers", tag: "think", allowLeadingWhitespace: true } as const;
const trl = { ...v, semantics: "trl" } as const;

describe("thinkFormat", () => {
  it.each([
    ["<think>reason</think>\nThe answer is 4.", 1, 1, undefined],
    ["<think>reason</think>", 0, 1, "empty_answer"],
    ["<think>reason</think>   \n", 0, 1, "empty_answer"],
    ["The answer is 4.", 0, 0, "no_open_tag"],
    ["Sure. <think>x</think> 4", 0, 0, "not_at_start"],
    ["<think>a<think>b</think> 4", 0, 0, "repeated_tags"],
    ["<think>a</think> 4 </think>", 0, 1, "repeated_tags"],
    ["<think>never closed 4", 0, 0, "unclosed"],
    ["  <think>a</think>4", 1, 1, undefined],
  ])("%j → verifiers %d, trl %d", (text, wantV, wantT, problem) => {
    expect(thinkFormat(text, v)).toEqual(problem ? { score: wantV, problem } : { score: wantV });
    expect(thinkFormat(text, trl).score).toBe(wantT);
  });

  it("byte-exact peer behaviour without leading whitespace", () => {
    expect(thinkFormat("  <think>a</think>4", { ...v, allowLeadingWhitespace: false })).toEqual({
      score: 0,
      problem: "not_at_start",
    });
  });
});

describe("reasoning templates", () => {
  const score = (rollout: Partial<Rollout>, opts: Record<string, unknown> = {}) => {
    const fn = thinkFormatVerifier.create(thinkFormatVerifier.options.parse(opts));
    const r = { id: "a", group: "g", completion: "", ...rollout } as Rollout;
    return fn({ completion: completionText(r.completion), reference: undefined, rollout: r });
  };
  const r1Prompt = "<｜begin▁of▁sentence｜><｜User｜>What is 2+2?<｜Assistant｜><think>\n";

  it("detects a prompt that ends inside an open <think>", () => {
    expect(promptOpensThink(r1Prompt)).toBe(true);
    expect(promptOpensThink("<|im_start|>assistant\n<think>\n\n")).toBe(true);
    expect(promptOpensThink("Reason inside <think> tags, then answer.")).toBe(false);
    expect(promptOpensThink("<|im_start|>assistant\n<think>\n\n</think>\n\n")).toBe(false); // Qwen3 no-think: closed
    expect(promptOpensThink([{ role: "user", content: "Q <think>" }])).toBe(false);
    expect(
      promptOpensThink([
        { role: "user", content: "Q" },
        { role: "assistant", content: "<think>\n" },
      ]),
    ).toBe(true);
    expect(promptOpensThink(undefined)).toBe(false);
  });

  it("auto: an R1 prompt's completion `…</think>answer` is well formed; without that prompt it is not", () => {
    expect(score({ prompt: r1Prompt, completion: "2 plus 2 is 4.\n</think>\n\nThe answer is 4." })).toEqual({
      score: 1,
      status: "ok",
    });
    expect(score({ prompt: "What is 2+2?", completion: "2 plus 2 is 4.\n</think>\n\nThe answer is 4." })).toMatchObject(
      { score: 0, details: { problem: "no_open_tag" } },
    );
    // the model repeating the tag the prompt opened is not doubled
    expect(score({ prompt: r1Prompt, completion: "<think>4</think> 4" })).toEqual({ score: 1, status: "ok" });
    // still judged: no answer after the block, or a second block
    expect(score({ prompt: r1Prompt, completion: "2 plus 2 is 4.</think>" })).toMatchObject({
      score: 0,
      details: { problem: "empty_answer" },
    });
    expect(score({ prompt: r1Prompt, completion: "a</think><think>b</think> 4" })).toMatchObject({
      score: 0,
      details: { problem: "repeated_tags" },
    });
  });

  it("true / false override the detection", () => {
    expect(score({ completion: "x</think> 4" }, { promptOpensThink: true })).toEqual({ score: 1, status: "ok" });
    expect(score({ prompt: r1Prompt, completion: "x</think> 4" }, { promptOpensThink: false })).toMatchObject({
      score: 0,
      details: { problem: "no_open_tag" },
    });
    expect(() => thinkFormatVerifier.options.parse({ promptOpensThink: "yes" })).toThrow();
  });

  it("reads vLLM's reasoning_content (and reasoning) as the think block", () => {
    const msg = (extra: Record<string, unknown>) => [{ role: "assistant", content: "The answer is 4.", ...extra }];
    expect(score({ completion: msg({ reasoning_content: "2+2=4" }) })).toEqual({ score: 1, status: "ok" });
    expect(score({ completion: msg({ reasoning: "2+2=4" }) })).toEqual({ score: 1, status: "ok" });
    expect(score({ completion: msg({}) })).toMatchObject({ score: 0, details: { problem: "no_open_tag" } });
    expect(score({ completion: msg({ reasoning_content: "  " }) })).toMatchObject({ score: 0 });
    // reasoning separate AND think tags in the content: two blocks
    expect(
      score({
        completion: [
          { role: "assistant", content: "<think>again</think> 4", reasoning_content: "r" },
        ] as unknown as Rollout["completion"],
      }),
    ).toMatchObject({ score: 0, details: { problem: "repeated_tags" } });
    // an empty answer after separated reasoning fails under verifiers semantics
    expect(
      score({
        completion: [{ role: "assistant", content: "", reasoning_content: "r" }] as unknown as Rollout["completion"],
      }),
    ).toMatchObject({ score: 0, details: { problem: "empty_answer" } });
  });

  it("declares the prompt and the raw completion as read (verdict cache key)", () => {
    expect(thinkFormatVerifier.reads).toEqual(["prompt", "completion"]);
  });
});
