import { describe, expect, it } from "vitest";
import { thinkFormat } from "./think-format.js";

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
    expect(thinkFormat("  <think>a</think>4", { ...v, allowLeadingWhitespace: false })).toEqual({ score: 0, problem: "not_at_start" });
  });
});
