import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { mathVerifier, verifyMath, type MathOptions } from "../src/verifiers/math/index.js";
import { cli, tmp } from "./helpers.js";

// Every kind of answer that real models write (issue: "Math rewards that are right on real model outputs"),
// scored with the DEFAULT options unless a style is named: [kind, completion, reference, expected], where
// expected 1 must score 1 and 0 must NOT score 1 (0 or unscorable).
type Case = [string, string, string, 1 | 0];

const KINDS: Case[] = [
  ["A: line", "Tom has 3 bags with 4 apples each, 3 * 4 = <<3*4=12>>12 apples.\nA: 12", "12", 1],
  ["A: line", "Tom has 3 bags with 4 apples each, 3 * 4 = <<3*4=12>>12 apples.\nA: 13", "12", 0],
  ["A: line is not a sentence", "A: Tom has 12 apples in all, but he gives 5 away.", "12", 0],
  [
    "Answer: after template tokens",
    "<|im_start|>assistant\nThe train covers 60 * 2 = 120 km.\nAnswer: 120<|im_end|>",
    "120",
    1,
  ],
  ["Answer: after template tokens", "<|start_header_id|>assistant<|end_header_id|>\n\nAnswer: 7<|eot_id|>", "7", 1],
  ["<answer> tags", "<think>3 + 4 = 7</think>\n<answer>7</answer>", "7", 1],
  ["<answer> tags", "<think>3 + 4 = 7</think>\n<answer>8</answer>", "7", 0],
  ["money", "A shirt is $15 and pants are $25, so she pays 15 + 25 = $40 in total.\nA: $40", "40", 1],
  ["money", "A shirt is $15 and pants are $25, so she pays 15 + 25 = $40 in total.\nThe answer is $40.", "40", 1],
  ["money", "A shirt is $15 and pants are $25, so she pays 15 + 25 = $40 in total.\nA: $41", "40", 0],
  ["money", "He saves $1,250 a month, 12 * $1,250 = $15,000 a year.\n#### 15,000", "15000", 1],
  ["money: a calculation cut by $", "The bag costs $28+$4 = $32 after the rise.", "32", 1],
  ["trailing noun", "So the farmer has 36 cows.\nThe answer is 36 cows.", "36", 1],
  ["trailing noun", "#### 1,200 square meters", "1200", 1],
  ["trailing noun", "#### 1,201 square meters", "1200", 0],
  ["trailing unit after money", "Answer: $3.50 per hour", "3.5", 1],
  ["since clause", "The answer is 15, because 5 * 3 = 15.", "15", 1],
  ["since clause", "The answer is 15, because 5 * 3 = 15.", "5", 0],
  // answerAfterThink (default true): text after the reasoning is the answer region; with nothing after it, the
  // reasoning's own last answer is the only one given
  ["tag after the answer", "so the total is 9.\nThe final answer is 9</think>", "9", 1],
  ["tag after the answer", "so the total is 9.\nThe final answer is 9</think><|im_end|>", "9", 1],
  ["answer after the reasoning", "so the total is 8.</think>\nThe final answer is 9", "9", 1],
  ["answer after the reasoning", "so the total is 9.</think>\nThe final answer is 8", "9", 0],
  ["answer only inside the reasoning, prose after it", "The final answer is 9</think>\nI hope this helps.", "9", 0],
  ["answer only inside a complete reasoning block", "<think>The final answer is 9</think>", "9", 0],
  ["anchor inside an anchor", "The final answer is #### 250", "250", 1],
  ["stated answer beats an earlier value", "She spends $12$ on lunch and $8$ on dinner.\nA: 20", "12", 0],
  [
    "stated answer beats an earlier value",
    "\\boxed{14} was my first guess. Checking again, the final answer is 16.",
    "16",
    1,
  ],
  ["Chinese", "【解析】设公差为 $d$，则 $d=2$。<eoe>\n【答案】$2$<eoa>", "2", 1],
  ["Chinese", "一共有 4 + 5 = 9 本书，所以答案是 9 本。", "9", 1],
  ["Chinese", "一共有 4 + 5 = 9 本书，所以答案是 8 本。", "9", 0],
  ["Chinese", "由题意得 $a=3$，故答案为：$\\sqrt{3}$", "\\sqrt{3}", 1],
  // Chinese hedges are enumerations (multiple_answers, 0), never undecidable (red team)
  ["Chinese hedge", "故答案为：72或73", "72", 0],
  ["Chinese hedge", "答案是 72 或者 73", "73", 0],
  ["Chinese hedge", "【答案】72、73<eoa>", "72", 0],
  ["Chinese: full-width punctuation", "综上所述，故选 C。", "C", 1],
  ["Chinese: 答： line", "3+2=5（个）\n答：小明一共有5个苹果。", "5", 1],
  ["Chinese: 答： line", "3+2=5（个）\n答：小明一共有6个苹果。", "5", 0],
  ["Chinese prose is not an answer", "这道题目可能有误，无法从给定的选项中选择正确答案。", "A", 0],
  ["French", "Il reste 45 - 18 = 27 bonbons, donc la réponse est 27.", "27", 1],
  ["French", "Elle paie 12 € par mois.\nRéponse : 144", "144", 1],
  ["plain-text math", "The answer is 3*pi/4", "\\frac{3\\pi}{4}", 1],
  ["plain-text math", "The answer is sqrt(3)", "\\sqrt{3}", 1],
  ["plain-text math", "The answer is sqrt(5)", "\\sqrt{3}", 0],
  ["plain-text math", "Final answer: 2^(n+1) - 1", "2^{n+1}-1", 1],
  ["plain-text math", "The answer is exp(2)", "e^2", 1],
  ["approx", "The area is $\\frac{25\\pi}{4} \\approx 19.63$.", "\\frac{25\\pi}{4}", 1],
  ["approx", "The area is $\\frac{25\\pi}{3} \\approx 19.63$.", "\\frac{25\\pi}{4}", 0],
  ["approx", "The answer is $x \\approx 2.5$", "2.5", 1],
  ["named gold", "\\boxed{6}", "|AB| = 6", 1],
  ["named gold", "\\boxed{2}", "f(1) = 2", 1],
  ["named gold", "\\boxed{3}", "f(1) = 2", 0],
  ["tuples", "\\boxed{(1,2),(2,1)}", "x=1,y=2;x=2,y=1", 1],
  ["tuples", "\\boxed{(1,2)}", "x=1,y=2;x=2,y=1", 0],
  ["|x| interval", "\\boxed{(-3,3)}", "|x| < 3", 1],
  ["|x| interval", "\\boxed{(-\\infty,-1] \\cup [1,\\infty)}", "|x| \\geq 1", 1],
  ["|x| interval", "\\boxed{[1,\\infty)}", "|x| \\geq 1", 0],
  [
    "matrix arithmetic",
    "$\\begin{pmatrix} 1 & 0 \\\\ 0 & 1 \\end{pmatrix} - \\begin{pmatrix} 0 & 1 \\\\ 1 & 0 \\end{pmatrix}$",
    "\\begin{pmatrix} 1 & -1 \\\\ -1 & 1 \\end{pmatrix}",
    1,
  ],
  [
    "matrix arithmetic",
    "$\\begin{pmatrix} 1 & 2 \\end{pmatrix} \\begin{pmatrix} 3 \\\\ 4 \\end{pmatrix}$",
    "\\begin{pmatrix} 11 \\end{pmatrix}",
    1,
  ],
  [
    "bare matrix over lines",
    "Thus\n\\begin{bmatrix}\n0 & 1 \\\\\n1 & 0\n\\end{bmatrix}",
    "\\begin{pmatrix} 0 & 1 \\\\ 1 & 0 \\end{pmatrix}",
    1,
  ],
  ["multiple choice", "After checking each option, the correct answer is B.", "B", 1],
  ["multiple choice", "After checking each option, the correct answer is B.", "D", 0],
  ["multiple choice hedge", "Answer: C. Options A and D fail the second condition.", "C", 1],
  ["multiple choice hedge", "Answer: C. Options A and D fail the second condition.", "A", 0],
  ["multiple choice hedge", "【答案】: A, C <eoa>", "C", 0],
  // false-positive probes
  ["FP: decimal comma", "Le total est 3,14", "14", 0],
  ["FP: decimal comma", "Le total est 3,14", "3.14", 1],
  ["FP: identical broken strings", "\\boxed{2 * / 5}", "2 * / 5", 0],
  ["FP: identical broken strings", "\\boxed{= x +}", "= x +", 0],
  ["FP: power tower", "**Final Answer**\nThe last digits are those of 7^{7^{7}}", "7", 0],
  ["FP: heading then sentence", "### Final Answer\nThe value of $n$ is 12.", "n", 0],
  ["heading then sentence", "### Final Answer\nThe value of $n$ is 12.", "12", 1],
  ["FP: the answer is correct", "So $x = 4$. I checked it and the answer is correct.", "4", 1],
  ["FP: no answer stated", "I am not able to solve this problem.", "5", 0],
];

describe("math answers in the forms real models write (default style auto)", () => {
  it.each(KINDS)("%s: %j vs %j → %d", async (kind, completion, reference, expected) => {
    const r = await verifyMath(completion, reference);
    if (expected === 1) expect(r.score, JSON.stringify(r)).toBe(1);
    else expect(r.score, JSON.stringify(r)).not.toBe(1);
    if (kind === "Chinese hedge") expect(r.reason).toBe("multiple_answers");
  });

  it("a long text of any shape is read without a quadratic path (`The answer is aaaa…`, `A: $$$$…`, `\\frac{` runs)", async () => {
    const mb = 1 << 18; // 256 kB each here; `npm run stress:math` times 1 MB shapes
    for (const head of ["The answer is ", "Final Answer:\n", "A: ", "【答案】"])
      for (const unit of ["a", "$", "\\frac{", "ab'"]) {
        const r = await verifyMath(head + unit.repeat(Math.ceil(mb / unit.length)), "42");
        expect(r.score).not.toBe(1);
      }
    expect((await verifyMath(`${"lorem ipsum ".repeat(mb / 12)}\nThe answer is 42.`, "42")).score).toBe(1);
  });
});

describe("answer styles (presets)", () => {
  const cases: [Partial<MathOptions>["style"], string, string, 1 | 0][] = [
    // gsm8k: `$` is always money, the last number is the fallback
    ["gsm8k", "He earns $5$ per hour for 4 hours: $20$", "20", 1],
    ["gsm8k", "He works 4 hours at 5 dollars, so 20 dollars.", "20", 1],
    ["gsm8k", "#### 42", "42", 1],
    // latex: `$` is always math; no A:/Answer: lines, no last number
    ["latex", "so the answer is $\\boxed{\\frac{1}{2}}$", "\\frac12", 1],
    ["latex", "Final Answer: The final answer is $\\frac{1}{2}$. I hope it is correct.", "\\frac12", 1],
    ["latex", "It sums to 10.\nA: 10", "10", 0],
    // mcq: the letter after an anchor, or a bare letter
    ["mcq", "(B)", "B", 1],
    ["mcq", "Therefore the correct option is D.", "D", 1],
    ["mcq", "The answer is A or B.", "A", 0],
    // boxed: only \boxed{}
    ["boxed", "The answer is 7.", "7", 0],
    ["boxed", "The answer is \\boxed{7}.", "7", 1],
  ];
  it.each(cases)("style %s: %j vs %j → %d", async (style, completion, reference, expected) => {
    const r = await verifyMath(completion, reference, { style });
    if (expected === 1) expect(r.score, JSON.stringify(r)).toBe(1);
    else expect(r.score, JSON.stringify(r)).not.toBe(1);
  });

  it("every style is a valid option and an unknown one is rejected, also by `rewardkit check`, naming the field", () => {
    for (const style of ["auto", "gsm8k", "latex", "mcq", "boxed"])
      expect(mathVerifier.options.safeParse({ style }).success, style).toBe(true);
    expect(mathVerifier.options.safeParse({ style: "latex-strict" }).success).toBe(false);
    const dir = tmp();
    const good = join(dir, "good.yaml");
    writeFileSync(good, "name: s\ncomponents:\n  - name: accuracy\n    type: math\n    style: gsm8k\n");
    expect(cli(["check", good]).code).toBe(0);
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, "name: s\ncomponents:\n  - name: accuracy\n    type: math\n    style: latex-strict\n");
    const r = cli(["check", bad]);
    expect(r.code).not.toBe(0);
    expect(r.stderr + r.stdout).toMatch(/style/);
  });
});
