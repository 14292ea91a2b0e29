import { describe, expect, it } from "vitest";
import { verifyMath } from "./index.js";
import { letteredGold } from "./choices.js";
import { maskExclusions } from "./exclusions.js";
import { partialScore } from "./partial.js";
import { normalizeAnswer } from "./normalize.js";
import { unitRelation } from "./units.js";
import { choiceVerifier } from "../text/choice.js";

// Issue 29: the answer kinds still missed, with their adversarial neighbours. Default options (`type: math`).
// [gold, completion, want]: 1 or 0 (0 also accepts null: what matters is that it never scores 1).
type Case = [string, string, 0 | 1];

const KINDS: Record<string, Case[]> = {
  exclusion: [
    ["D", "The answer is for sure D, it can't be A or B", 1],
    ["D", "D. it can't be A or B", 1],
    ["B", "B。不是 A", 1],
    ["B", "B不是 A", 1],
    ["B", "答案是 B，不是 A", 1],
    ["B", "答案是B，而不是A或C", 1],
    ["C", "réponse est C non A", 1],
    ["C", "La réponse est C, pas A", 1],
    ["C", "La respuesta es C, no es A", 1],
    ["C", "Die Antwort ist C, nicht A.", 1],
    ["B", "It's not A because the rate is too low, therefore I think it's B", 1],
    ["B", "It is not A, because that contradicts the data; therefore I think it's B", 1],
    ["A", "Answer: A. It cannot be C or D.", 1],
    ["C", "Options A and B are incorrect. The correct answer is C.", 1],
    ["C", "A is wrong, B is wrong, so C.", 1],
    ["D", "The answer is D rather than B.", 1],
    ["D", "The answer is (D), not (A) or (B).", 1],
    ["B", "It can't be option A, so the answer must be option B.", 1],
    ["B", "AではなくB", 1],
  ],
  "exclusion (adversarial)": [
    ["D", "The answer is D or A, not B", 0], // two affirmed options: a hedge
    ["D", "It's not D; the answer is A", 0], // the gold is excluded
    ["A", "The answer is D, it can't be A or B", 0], // the gold is in the exclusion list
    ["B", "The answer is D, it can't be A or B", 0],
    ["B", "答案是 A，不是 B", 0],
    ["C", "réponse est A non C", 0],
    ["D", "It is not D. It is not C either. I think it's A or B.", 0], // a hedge after the exclusions
    ["A", "The answer is not A.", 0], // only an exclusion: no answer
    ["B", "B, or maybe C", 0], // a hedge stays a hedge
    ["C", "A B C D", 0], // every option
  ],
  "lettered gold": [
    ["(D) Alina", "D", 1],
    ["(D) Alina", "The answer is (D).", 1],
    ["(D) Alina", "The answer is (D) Alina.", 1],
    ["(D) Alina", "Alina", 1],
    ["C Cecile", "The answer is C", 1],
    ["C Cecile", "\\boxed{C}", 1],
    ["A Peter", "Answer: A", 1],
    ["(B) 12 apples", "\\boxed{12}", 1],
    ["(B) 12 apples", "The answer is (B)", 1],
    ["D. 3.5 m/s", "D", 1],
  ],
  "lettered gold (adversarial)": [
    ["(B) 12 apples", "(A)", 0],
    ["(B) 12 apples", "\\boxed{13}", 0],
    ["(D) Alina", "The answer is (D) Bob.", 0], // the right letter with the WRONG option text
    ["(D) Alina", "(D) Bob", 0],
    ["(D) Alina", "Bob", 0],
    ["(D) Alina", "The answer is C", 0],
    ["C Cecile", "C or D", 0],
    ["(D) Alina", "The answer is D, or maybe A.", 0],
  ],
  "currency after the amount": [
    ["220", "Réponse : il restera 220 $ à payer dans 12 mois.", 1],
    ["45", "Sie zahlt insgesamt 45 € für 3 Bücher.", 1],
    ["1000.50", "Sie zahlt insgesamt 1 000,50 € für 3 Bücher.", 1],
    ["12", "\\boxed{12 €}", 1],
    ["5", "\\boxed{¥ 5}", 1],
    ["30", "答：一共需要30元。", 1],
    ["\\$45", "Sie zahlt insgesamt 45 € für 3 Bücher.", 1],
  ],
  "currency after the amount (adversarial)": [
    ["12", "Réponse : il restera 220 $ à payer dans 12 mois.", 0], // the later number is not the answer
    ["3", "Sie zahlt insgesamt 45 € für 3 Bücher.", 0],
    ["220", "Réponse : il restera 230 $ à payer dans 220 mois.", 0], // the bigger later number is not it either
    ["46", "Sie zahlt insgesamt 45 € für 46 Bücher.", 0],
  ],
  units: [
    ["5 \\text{ hours}", "\\boxed{300 \\text{ minutes}}", 1],
    ["5 \\text{ hours}", "\\boxed{5}", 1],
    ["72", "The answer is 72 clips.", 1],
    ["72", "The answer is 72 cents.", 1], // a gold without a unit accepts the question's unit
    ["\\$0.72", "The answer is 72 cents.", 1],
    ["0.5 \\text{ m}", "\\boxed{50 \\text{ cm}}", 1],
    ["2 \\text{ km}", "The answer is 2000 meters.", 1],
    ["6 \\text{ cm}^2", "\\boxed{600 \\text{ mm}^2}", 1],
    ["5 \\text{ hours}", "It takes 300 minutes.", 1],
  ],
  "units (adversarial)": [
    ["\\$72", "The answer is 72 cents.", 0],
    ["5 \\text{ hours}", "\\boxed{5 \\text{ minutes}}", 0],
    ["5 \\text{ hours}", "The answer is 5 minutes.", 0],
    ["2 \\text{ m}", "\\boxed{2 \\text{ kg}}", 0], // another dimension
    ["6 \\text{ cm}^2", "\\boxed{6 \\text{ cm}}", 0], // an area for a length
    ["3 \\text{ years}", "\\boxed{3 \\text{ months}}", 0], // no fixed factor: the same number is wrong
    ["5 \\text{ hours}", "It takes 5 minutes.", 0],
    ["0.5 \\text{ m}", "\\boxed{5 \\text{ cm}}", 0],
  ],
  // lighteval's extractive-match suite (development half, test/math-lighteval-suite.test.ts): a space before the
  // closing `$` (`$12 $`, Minerva-style spacing) and a final answer in escaped quotes (`\"$12 $ and $13 $\"`)
  "space before the closing dollar, quoted final answers": [
    ["12", "Final Answer: The final answer is $12 $. I hope it is correct.", 1],
    ["x+1", "So $y = x+1 $ is the answer.", 1],
    ["\\frac{1}{2}", "The answer is $\\frac{1}{2} $.", 1],
    ["12\\text{ and }13", "Final Answer: The final answer is $12 $ and $13 $. I hope it is correct.", 1],
    ["5", 'Final Answer: The final answer is \\"5\\". I hope it is correct.', 1],
    ["5", 'The final answer is \\"$5$\\".', 1],
    ["5", 'The final answer is "5".', 1],
    ["11", "He pays $5 and $6, so he pays $11 in all.", 1],
  ],
  "space before the closing dollar, quoted final answers (adversarial)": [
    ["12", "The final answer is $12 $ or $13 $.", 0], // a hedge stays a hedge
    ["13", "Final Answer: The final answer is $12 $. I hope it is correct.", 0],
    ["5", "He pays $5 and $6, so he pays $11 in all.", 0], // money pairs stay money
    ["5", "He pays $5 and then $ 6 more.", 0],
    ["5", 'The answer is \\"5\\" or \\"6\\".', 0],
    ["6", 'The final answer is \\"5\\".', 0],
  ],
  // the negations the exclusion filter reads since issue 33 (never, neither, cant, …) cannot hide a hedge: only an
  // option that follows them is blanked, so every option the text still affirms counts
  "exclusions read since issue 33 (adversarial)": [
    ["A", "The answer is A or B, never mind.", 0],
    ["A", "The answer is (A), (B), (C) or (D); neither is ruled out.", 0],
    ["A", "I cannot decide: A or B, never C, never D.", 0],
    ["B", "The answer is C. It can never be B.", 0],
    ["A", "It cant be B, C or D, so A or B.", 0],
  ],
  "full-width, logarithms, base subscripts": [
    ["72", "\\boxed{７２}", 1],
    ["72", "答案是７２", 1],
    ["B", "答案是（Ｂ）", 1],
    ["2", "\\boxed{\\log_{10} 100}", 1],
    ["3", "\\boxed{\\log_2 8}", 1],
    ["72", "\\boxed{72_{10}}", 1],
  ],
  "full-width, logarithms, base subscripts (adversarial)": [
    ["73", "\\boxed{７２}", 0],
    ["3", "\\boxed{\\log_{10} 100}", 0],
    ["72", "\\boxed{72_{8}}", 0], // base 8: 58 in decimal
    ["100", "\\boxed{10²}", 1],
    ["102", "\\boxed{10²}", 0], // a superscript is a power, never a digit
  ],
};

describe("issue 29: answer kinds (math, default options)", () => {
  for (const [kind, cases] of Object.entries(KINDS))
    it(`${kind}: ${cases.length} cases`, async () => {
      const bad: string[] = [];
      for (const [gold, completion, want] of cases) {
        const r = await verifyMath(completion, gold);
        if ((r.score === 1) !== (want === 1)) bad.push(`${gold} | ${completion} → ${r.score} ${r.reason ?? ""}`);
      }
      expect(bad).toEqual([]);
    });

  it("every verdict is a function of (completion, reference, options): the same pair twice, in any order", async () => {
    const all = Object.values(KINDS).flat();
    const first: (number | null)[] = [];
    for (const [g, c] of all) first.push((await verifyMath(c, g)).score);
    const again: (number | null)[] = [];
    for (const [g, c] of [...all].reverse()) again.push((await verifyMath(c, g)).score);
    expect(again.reverse()).toEqual(first);
  });
});

describe("exclusions and lettered golds, unit by unit", () => {
  it("blanks the excluded options, keeping positions", () => {
    const t = "The answer is D, it can't be A or B";
    const m = maskExclusions(t);
    expect(m.length).toBe(t.length);
    expect(m.trimEnd()).toBe("The answer is D,");
    expect(maskExclusions("B不是 A").trimEnd()).toBe("B");
    expect(maskExclusions("The answer is 5, not 6")).toBe("The answer is 5, not 6"); // values are the reader's
    expect(maskExclusions("This is not a number")).toBe("This is not a number"); // the article a
  });
  it("blanks exclusions whose words the old keyword filter missed (never, neither, cant, não, …)", () => {
    // [text, the exclusion blanked in it]
    const cases: [string, string][] = [
      ["The answer is C. It can never be A.", "never be A"],
      ["neither A, the answer is D", "neither A"],
      ["It cant be B; the answer is D", "It cant be B"],
      ["A resposta é C, não é A", "não é A"],
      ["Option B is out. The answer is C.", "Option B is out"],
      ["La réponse est C au lieu de A", "au lieu de A"],
      ["La respuesta es C en lugar de A", "en lugar de A"],
      ["La réponse est C plutôt que (B)", "plutôt que (B)"],
    ];
    for (const [t, excluded] of cases)
      expect(maskExclusions(t), t).toBe(t.replace(excluded, " ".repeat(excluded.length)));
    // an option letter near a negation that is not an exclusion is left alone
    for (const t of ["It is not clear yet. A is 5.", "Point A is not on the line", "no, A = 5", "Note A"])
      expect(maskExclusions(t), t).toBe(t);
  });
  it("reads a gold option with its text, and nothing else", () => {
    expect(letteredGold("(D) Alina")).toEqual({ letter: "D", text: "Alina" });
    expect(letteredGold("C Cecile")).toEqual({ letter: "C", text: "Cecile" });
    expect(letteredGold("(B) 12 apples")).toEqual({ letter: "B", text: "12 apples" });
    for (const g of ["D", "(D)", "A triangle", "E = mc^2", "x = 5", "B)", "\\text{(B)}"])
      expect(letteredGold(g), g).toBeNull();
  });
  it("relates units: converts within a dimension, refuses across", () => {
    expect(unitRelation("h", "min")).toEqual({ kind: "scale", num: 1n, den: 60n });
    expect(unitRelation("dollar", "cent")).toEqual({ kind: "scale", num: 1n, den: 100n });
    expect(unitRelation("m", "kg")).toEqual({ kind: "mismatch" });
    expect(unitRelation("year", "month")).toEqual({ kind: "unfixed" });
    expect(unitRelation(undefined, "cm")).toEqual({ kind: "same" });
    expect(normalizeAnswer("12 €")).toMatchObject({ s: "12", unit: "dollar" });
    expect(normalizeAnswer("5 \\text{ km}/\\text{h}").unit).toBeUndefined(); // a compound unit is not km
  });
});

describe("the choice verifier reads the same kinds", () => {
  const score = (completion: string, reference: string) =>
    choiceVerifier.create(choiceVerifier.options.parse({}))({
      completion,
      reference,
      rollout: { id: "r", completion, reference },
    } as never) as { score: number | null; reason?: string };
  const cases: Case[] = [
    ["D", "The answer is for sure D, it can't be A or B", 1],
    ["D", "D. it can't be A or B", 1],
    ["B", "B。不是 A", 1],
    ["B", "B不是 A", 1],
    ["B", "It's not A because …, therefore I think it's B", 1],
    ["(D) Alina", "D", 1],
    ["C Cecile", "The answer is C", 1],
    ["D", "The answer is D or A, not B", 0],
    ["D", "It's not D; the answer is A", 0],
    ["(B) 12 apples", "(A)", 0],
    ["B", "The answer is B, or maybe C", 0],
    // a reference written as prose that states its option (lighteval's `Alina and the answer is\n(C) Cecile`)
    ["Alina and the answer is\n(C) Cecile", "C", 1],
    ["Alina and the answer is\nC Cecile", "The answer is C", 1],
    ["The answer is \\boxed{B}.", "B", 1],
    ["It can't be A; the answer is B.", "B", 1],
    ["Alina and the answer is\n(C) Cecile", "A", 0],
    ["It can't be A; the answer is B.", "A", 0],
    ["The answer is A or B", "A", 0], // a reference that names two options is not one (invalid_reference)
    ["The answer is A, or maybe B", "A", 0],
    ["A triangle", "A", 0],
  ];
  it(`${cases.length} cases`, () => {
    const bad = cases
      .map(([g, c, w]) => [g, c, w, score(c, g)] as const)
      .filter(([, , w, r]) => (r.score === 1) !== (w === 1))
      .map(([g, c, , r]) => `${g} | ${c} → ${r.score} ${r.reason ?? ""}`);
    expect(bad).toEqual([]);
  });
});

describe("partialCredit (opt-in)", () => {
  const rel = { partialCredit: { kind: "relative" as const } };
  const log = { partialCredit: { kind: "log" as const } };
  const s = async (c: string, g: string, o: object) => (await verifyMath(c, g, o)).score;
  it("relative: 1 for the exact answer, in (0,1) for a near miss, lower and ≥ 0 further away", async () => {
    expect(await s("\\boxed{100}", "100", rel)).toBe(1);
    const near = (await s("\\boxed{98}", "100", rel)) as number;
    const far = (await s("\\boxed{3}", "100", rel)) as number;
    expect(near).toBeCloseTo(0.98, 9);
    expect(far).toBeCloseTo(0.03, 9);
    expect(await s("\\boxed{250}", "100", rel)).toBe(0);
    expect(await s("\\boxed{98}", "100", { partialCredit: { kind: "relative", scale: 0.1 } })).toBeCloseTo(0.8, 9);
  });
  it("log: decays with decades, 0 for the other sign", async () => {
    expect(await s("\\boxed{98}", "100", log)).toBeCloseTo(1 - Math.abs(Math.log10(0.98)), 9);
    expect(await s("\\boxed{1000}", "100", log)).toBe(0);
    expect(await s("\\boxed{-100}", "100", log)).toBe(0);
  });
  it("never pays a hedge, a word, a unit of another dimension, or a default spec", async () => {
    expect([0, null]).toContain(await s("\\boxed{98} or maybe \\boxed{100}", "100", rel));
    expect([0, null]).toContain(await s("\\boxed{98, 100}", "100", rel));
    expect(await s("\\boxed{\\text{Monday}}", "100", rel)).toBe(0);
    expect(await s("\\boxed{98 \\text{ kg}}", "100 \\text{ m}", rel)).toBe(0);
    expect(await s("\\boxed{98}", "100", {})).toBe(0);
    // a unit of the dimension is converted first: 5.5 h for 6 h
    expect(await s("\\boxed{330 \\text{ minutes}}", "6 \\text{ hours}", rel)).toBeCloseTo(1 - 0.5 / 6, 9);
  });
  it("is below 1 for any wrong answer", () => {
    const n = (x: string) => normalizeAnswer(x);
    expect(partialScore(n("100"), n("100.0000000001"), { kind: "relative" })).toBeLessThan(1);
  });
});
