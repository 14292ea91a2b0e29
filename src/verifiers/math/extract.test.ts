import { describe, it, expect } from "vitest";
import { extractAnswer, lastBoxed, stripDelimiters } from "./extract.js";

describe("lastBoxed", () => {
  it("reads balanced braces, last occurrence wins", () => {
    expect(lastBoxed("\\boxed{1} then \\boxed{\\frac{1}{2}}")).toBe("\\frac{1}{2}");
    expect(lastBoxed("$\\boxed{\\left( 3, \\frac{\\pi}{2} \\right)}$.")).toBe("\\left( 3, \\frac{\\pi}{2} \\right)");
    expect(lastBoxed("\\boxed{\\{1,2\\}}")).toBe("\\{1,2\\}");
  });
  it("supports \\fbox and the brace-less \\boxed 5", () => {
    expect(lastBoxed("so \\fbox{12}")).toBe("12");
    expect(lastBoxed("so $\\boxed 5$.")).toBe("5");
    expect(lastBoxed("so \\boxed 42")).toBe("42");
  });
  it("skips a truncated or empty last box", () => {
    expect(lastBoxed("\\boxed{7} ... \\boxed{\\frac{1}{")).toBe("7");
    expect(lastBoxed("\\boxed{8} \\boxed{}")).toBe("8");
    expect(lastBoxed("no box here")).toBeNull();
  });
  it("does not take \\boxedfoo for \\boxed", () => {
    expect(lastBoxed("\\boxedfoo{3}")).toBeNull();
  });
});

describe("extractAnswer", () => {
  it("final answer is $...$", () => {
    expect(extractAnswer("Thus, the final answer is $\\frac{3}{4}$. I hope it is correct.")).toEqual({
      answer: "\\frac{3}{4}",
      strategy: "final-answer",
    });
    expect(extractAnswer("The final answer is 12.")?.answer).toBe("12");
    expect(extractAnswer("So the answer is: \\(x=3\\)")?.answer).toBe("x=3");
  });
  it("Answer: lines, markdown bold allowed", () => {
    expect(extractAnswer("work...\nAnswer: 17\n")?.answer).toBe("17");
    expect(extractAnswer("work...\n**Answer:** $2\\sqrt{3}$")?.answer).toBe("2\\sqrt{3}");
  });
  it("GSM8K #### marker", () => {
    expect(extractAnswer("3*6=18\n#### 1,000")).toEqual({ answer: "1,000", strategy: "gsm8k" });
  });
  it("the answer stated last wins among boxes and anchors; order is configurable", () => {
    const t = "\\boxed{3}\nAnswer: 4\n#### 5";
    expect(extractAnswer(t)?.answer).toBe("5");
    expect(extractAnswer(t, ["boxed"])?.answer).toBe("3");
    expect(extractAnswer("Answer: 4\nso \\boxed{3}")?.answer).toBe("3");
    expect(extractAnswer(t, ["answer-line", "boxed"])?.answer).toBe("4");
    expect(extractAnswer(t, ["gsm8k"])?.answer).toBe("5");
  });
  it("reads a bare one-line answer whole (Math-Verify's unanchored answers), never a sentence or a response", () => {
    expect(extractAnswer("42")).toEqual({ answer: "42", strategy: "whole" });
    expect(extractAnswer("$\\frac{1}{2}$")?.answer).toBe("\\frac{1}{2}");
    expect(extractAnswer("x = 5")?.answer).toBe("x = 5");
    expect(extractAnswer("\\text{Monday}")?.answer).toBe("\\text{Monday}");
    expect(extractAnswer("4:30 p.m.")?.answer).toBe("4:30 p.m");
    expect(extractAnswer("I am not sure")).toBeNull();
    expect(extractAnswer("First, 2 + 2 = 4.\nSo 4", ["whole", "last-math"])).toBeNull();
    // a response with no anchor and no math span: its last number
    expect(extractAnswer("First, 2 + 2 = 4.\nSo 4")).toEqual({ answer: "4", strategy: "last-number" });
    expect(extractAnswer("7".repeat(201), ["whole"])).toBeNull();
    expect(extractAnswer("42", ["boxed"])).toBeNull();
  });
  it("returns null when nothing is found", () => {
    expect(extractAnswer("I don't know")).toBeNull();
    expect(extractAnswer("\\boxed{}")).toBeNull();
  });
});

describe("stripDelimiters", () => {
  it("removes math delimiters and trailing punctuation", () => {
    expect(stripDelimiters("$\\frac12$.")).toBe("\\frac12");
    expect(stripDelimiters("\\[ 5 \\]")).toBe("5");
    expect(stripDelimiters("**7**")).toBe("7");
  });
});
