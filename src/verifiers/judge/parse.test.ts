import { describe, expect, it } from "vitest";
import { compileParser } from "./parse.js";
import type { Parsed } from "./parse.js";

const score = (p: Parsed): number | undefined => ("error" in p ? undefined : p.score);

describe("judge parsers: presets, last match, decimals, scales", () => {
  it("mt-bench [[n]] on 1–10: the last match counts, decimals parse", () => {
    const p = compileParser("mt-bench");
    // a judge quoting the format ("for example: Rating: [[5]]") before its own rating is read by its own
    expect(score(p.parse('Strictly follow "[[rating]]", e.g. "Rating: [[5]]". … Rating: [[8]]'))).toBeCloseTo(
      7 / 9,
      12,
    );
    expect(score(p.parse("Rating: [[9.5]]"))).toBeCloseTo(8.5 / 9, 12);
    expect(score(p.parse("Rating: [[1]]"))).toBe(0);
    expect(score(p.parse("Rating: [[10]]"))).toBe(1);
    expect(p.parse("I would rate it 8/10.")).toEqual({ error: "no match of mt-bench" });
    expect(p.parse("Rating: [[11]]")).toEqual({ error: "mt-bench: 11 is outside [1, 10]" });
    // where the value is, for probability-based scoring
    expect(p.parse("Rating: [[7]]")).toMatchObject({ value: 7, at: 10, length: 1 });
  });

  it("rating, prometheus, gaokao", () => {
    expect(score(compileParser("rating").parse("Explanation…\nRating: 6"))).toBeCloseTo(5 / 9, 12);
    expect(score(compileParser("rating").parse("Rating: [[6]]"))).toBeCloseTo(5 / 9, 12);
    expect(score(compileParser("prometheus").parse("Feedback: The response is clear. [RESULT] 4"))).toBe(0.75);
    expect(score(compileParser("prometheus").parse("[RESULT] (2)"))).toBe(0.25);
    expect(score(compileParser({ preset: "prometheus", min: 0, max: 10 }).parse("[RESULT] 4"))).toBe(0.4);
    const g = compileParser("gaokao");
    // GAOKAO-Bench teacher format: normalized by 【总分】
    expect(score(g.parse("【判分理由】第一问正确，第二问有误。【得分】4分【总分】6分"))).toBeCloseTo(4 / 6, 12);
    expect(score(g.parse("【得分】：5分 【总分】：5分"))).toBe(1);
    expect(g.parse("【得分】3分")).toEqual({ error: "gaokao: no 【总分】 in the text and no max in the spec" });
    expect(score(compileParser({ preset: "gaokao", max: 12 }).parse("【得分】3分"))).toBe(0.25);
    expect(g.parse("【得分】7分【总分】6分")).toEqual({ error: "gaokao: 7 is outside [0, 6]" });
  });

  it("yes-no and verdict", () => {
    const yn = compileParser("yes-no");
    expect(score(yn.parse("Yes."))).toBe(1);
    expect(score(yn.parse("Is it correct? Let me think… No"))).toBe(0);
    expect(score(yn.parse("no, wait: YES"))).toBe(1);
    expect(yn.parse("Nothing to say")).toEqual({ error: "no label (yes, no) in the answer" }); // "Nothing" is not "no"
    expect(yn.tokenValue!(" Yes")).toBe(1);
    expect(yn.tokenValue!("no")).toBe(0);
    const v = compileParser("verdict");
    expect(score(v.parse("My final verdict is [[A>>B]]"))).toBe(1);
    expect(score(v.parse("[[A>B]]"))).toBe(0.75);
    expect(score(v.parse("[[A=B]]"))).toBe(0.5);
    expect(score(v.parse("[[B>A]]"))).toBe(0.25);
    expect(score(v.parse("first [[A>B]] then, on reflection, [[B>>A]]"))).toBe(0);
    expect(score(v.parse("[[C]]"))).toBe(0.5);
  });

  it("custom pattern, json and labels", () => {
    const p = compileParser({ pattern: "Score: (-?\\d+(?:\\.\\d+)?)", min: -5, max: 5 });
    expect(score(p.parse("Score: 2.5"))).toBe(0.75);
    expect(score(compileParser({ pattern: "score=(\\d+)", flags: "i", min: 0, max: 100 }).parse("SCORE=85"))).toBe(
      0.85,
    );
    expect(() => compileParser({ pattern: "Score: \\d+", min: 0, max: 10 })).toThrow(/capture group/);
    expect(() => compileParser({ pattern: "(", min: 0, max: 10 })).toThrow(/parse.pattern/);
    expect(() => compileParser({ pattern: "(\\d)", min: 3, max: 3 })).toThrow(/max must be greater/);
    const j = compileParser({ json: "result", min: 0, max: 1 });
    expect(score(j.parse('{"steps": [{"description": "x", "conclusion": "y"}], "result": 0.8}'))).toBe(0.8);
    expect(score(j.parse('Here: ```json\n{"result": "0.25"}\n```'))).toBe(0.25);
    expect(j.parse('{"result": 2}')).toEqual({ error: "JSON field result: 2 is outside [0, 1]" });
    const l = compileParser({ labels: ["positive", "neutral", "negative"], passing: ["positive"] });
    expect(l.parse("positive")).toMatchObject({ score: 1, value: "positive" });
    expect(l.parse('{"result": "negative"}')).toMatchObject({ score: 0, value: "negative" });
    expect(l.parse("Not positive at all: negative.")).toMatchObject({ score: 0, value: "negative" });
    expect(() => compileParser({ labels: ["a", "b"], passing: ["c"] })).toThrow(/not among the labels/);
  });
});
