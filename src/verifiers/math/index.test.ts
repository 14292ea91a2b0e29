import { describe, it, expect } from "vitest";
import { mathVerifier, verifyMath } from "./index.js";

const box = (s: string) => `Some reasoning. Therefore the answer is $\\boxed{${s}}$.`;

/** (gold, predicted boxed content, expected score: 1, 0, or null for unscorable). */
const CASES: [string, string, 1 | 0 | null][] = [
  // integers, signs
  ["42", "42", 1],
  ["42", "43", 0],
  ["-4", "-4", 1],
  ["-4", "4", 0],
  ["0", "-0", 1],
  // decimals and scientific notation
  ["0.5", "\\frac{1}{2}", 1],
  ["37.50", "37.5", 1],
  [".35625", "0.35625", 1],
  ["13.18", "13.183", 0],
  ["6290000", "6.29\\times10^{6}", 1],
  ["1500", "1.5e3", 1],
  ["0.0000672", "6.72 \\times 10^{-5}", 1],
  // fractions and mixed numbers
  ["\\frac{3}{8}", "3/8", 1],
  ["\\dfrac{1}{9}", "\\frac19", 1],
  ["\\frac{3}{8}", "\\frac{6}{16}", 1],
  ["\\frac{3}{8}", "\\frac{5}{16}", 0],
  ["\\frac 59", "\\tfrac{5}{9}", 1],
  ["\\frac9{19}", "9/19", 1],
  ["12\\frac{3}{5}", "\\frac{63}{5}", 1],
  ["1\\frac{1}{10}", "1.1", 1],
  ["-2\\frac{1}{3}", "-\\frac{7}{3}", 1],
  ["1\\frac{1}{10}", "1\\frac{1}{9}", 0],
  ["-\\frac{40}{153}", "\\frac{-40}{153}", 1],
  // percent
  ["25\\%", "25", 1],
  ["25\\%", "25\\%", 1],
  ["25\\%", "0.25", 1],
  ["198\\%", "1.98", 1],
  ["25\\%", "12.5", 0],
  // thousands separators vs lists
  ["10{,}000", "10000", 1],
  ["10{,}000", "10,000", 1],
  ["900,\\!000,\\!000", "900000000", 1],
  ["1\\,000", "1000", 1],
  ["50,\\!625", "759375", 0],
  ["1,000", "1, 0", 0],
  ["(1,2)", "(1, 2)", 1],
  // degrees, units, dollars
  ["48^\\circ", "48", 1],
  ["120^\\circ", "120^{\\circ}", 1],
  ["30^\\circ", "30°", 1],
  ["\\frac{270}7\\text{ degrees}", "\\frac{270}{7}", 1],
  ["100\\text{ square units}", "100", 1],
  ["5.4 \\text{ cents}", "5.4", 1],
  ["864 \\mbox{ inches}^2", "864", 1],
  ["15\\mbox{ cm}^2", "15 \\text{cm}^2", 1],
  ["\\$6", "6", 1],
  ["\\$18.90", "\\$18.9", 1],
  ["\\$32,\\!348", "32348", 1],
  ["5", "5 \\text{ cm}", 1],
  // text answers
  ["\\text{Evelyn}", "Evelyn", 1],
  ["\\text{Monday}", "\\text{monday}", 1],
  ["\\text{east}", "\\text{west}", 0],
  ["\\text{Monday}", "5", 0],
  ["\\text{even}", "\\text{Even}", 1],
  // multiple choice
  ["\\text{(C)}", "C", 1],
  ["(B)", "\\textbf{(B)}", 1],
  ["B", "(B)", 1],
  ["A", "C", 0],
  ["\\text{(E)}", "(D)", 0],
  // times
  ["\\text{4:30 p.m.}", "4:30 \\text{ p.m.}", 1],
  ["4:30 p.m.", "4:30 a.m.", 0],
  ["4:30 p.m.", "16:30", 1],
  ["12:00", "1:00", 0],
  // assignments (policy: bare value vs single-variable assignment is equal)
  ["x=5", "5", 1],
  ["5", "x=5", 1],
  ["5", "x = 5", 1],
  ["x=5", "y=5", 0],
  ["y = 2x + 3", "y=3+2x", 1],
  ["y = -2x", "y=-2x", 1],
  // solution lists (unordered) and traps
  ["1,-2", "-2, 1", 1],
  ["1,-2", "x=1, x=-2", 1],
  ["3, 5, 7", "3,5", 0],
  ["n=2,3,4", "n=1,2,3", 0],
  ["-2,1", "1 \\text{ and } -2", 1],
  // sets, intervals, unions
  ["\\{1\\pm\\sqrt{5},-2\\}", "\\{-2, 1+\\sqrt5, 1-\\sqrt5\\}", 1],
  ["(3,4]", "(3,4]", 1],
  ["(3,4]", "(3,4)", 0],
  ["(-\\infty, 0]", "(-\\infty,0]", 1],
  ["(0,9) \\cup (9,36)", "(9,36)\\cup(0,9)", 1],
  ["(0,9) \\cup (9,36)", "(0,36)", 0],
  ["x \\in [-2,7]", "[-2,7]", 1],
  ["\\left(\\frac{3}{5},\\frac{8}{3}\\right]", "(0.6, 8/3]", 1],
  ["(-\\infty, 2) \\cup (3, \\infty)", "(-\\infty,2)\\cup(3,+\\infty)", 1],
  // tuples
  ["(6,31,-1)", "(6, 31, -1)", 1],
  ["(1,2)", "(2,1)", 0],
  ["\\left( 3, \\frac{\\pi}{2} \\right)", "(3, \\pi/2)", 1],
  // matrices
  [
    "\\begin{pmatrix} -1/3 \\\\ 2/3 \\\\ 5/3 \\end{pmatrix}",
    "\\begin{bmatrix} -\\frac13 \\\\ \\frac23 \\\\ \\frac53 \\end{bmatrix}",
    1,
  ],
  ["\\begin{pmatrix} -1 & 0 \\\\ 0 & -1 \\end{pmatrix}", "\\begin{pmatrix} -1 & 0 \\\\ 0 & 1 \\end{pmatrix}", 0],
  ["\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}", "(1, 2)", 0],
  // roots, pi, powers, e
  ["3\\sqrt{13}", "\\sqrt{117}", 1],
  ["\\frac{\\sqrt{3}}{3}", "\\frac{1}{\\sqrt{3}}", 1],
  ["11\\sqrt2", "11\\sqrt{2}", 1],
  ["3\\sqrt{13}", "3\\sqrt{12}", 0],
  ["7\\pi", "7 \\pi", 1],
  ["\\frac{20000}{\\pi}", "20000/\\pi", 1],
  ["18+2\\pi", "2\\pi+18", 1],
  ["2^{10}", "1024", 1],
  ["e^2", "\\exp(2)", 1],
  ["28", "\\sqrt{34}+3\\sqrt{10}", 0],
  // complex numbers
  ["6 - 5i", "6-5i", 1],
  ["1+2i", "2i+1", 1],
  ["1+2i", "1-2i", 0],
  // symbolic expressions
  ["(x+1)^2", "x^2+2x+1", 1],
  ["2k+2", "2(k+1)", 1],
  ["p - q", "-q+p", 1],
  ["\\cot x", "\\frac{\\cos x}{\\sin x}", 1],
  ["x^2", "x^3", 0],
  ["\\frac{11+9a}{20}", "\\frac{11}{20}+\\frac{9a}{20}", 1],
  ["(a+5)(b+2)", "ab+2a+5b+10", 1],
  // equations
  ["5x - 7y + 11z + 4 = 0", "-5x+7y-11z-4=0", 1],
  ["5x - 7y + 11z + 4 = 0", "5x-7y+11z=4", 0],
  // bases
  ["52_8", "52_{8}", 1],
  // plus-minus
  ["1 \\pm \\sqrt{19}", "1+\\sqrt{19}, 1-\\sqrt{19}", 1],
  ["3 \\pm 2 \\sqrt{2}", "3+2\\sqrt2", 0],
  ["\\pm 2021", "2021", 0],
  ["2021", "\\pm 2021", 0],
  // exactness traps (tolerance-based CAS equality would call these equal)
  ["1/2^{99}", "1/2^{98}", 0],
  ["\\frac{1}{2004!}", "\\frac{1}{2006!}", 0],
  ["\\frac{1}{2004!}", "\\frac{2005 \\cdot 2006}{2006!}", 1],
  ["\\pi", "3.14", 0],
  ["3.14", "\\pi", 1],
  ["3.14", "3.1416", 0],
  ["\\frac{1}{3}", "0.333", 0],
  // inequalities vs intervals, ratios, bases, times of day vs numbers
  ["x > 2", "(2,\\infty)", 1],
  ["(2,\\infty)", "x>2", 1],
  ["-1 \\le x < 3", "[-1,3)", 1],
  ["x \\geq 2", "(2,\\infty)", 0],
  ["x<5", "x \\leq 5", 0],
  ["3:1", "6:2", 1],
  ["3:1", "3", 0],
  ["141_{13}", "141_{13}", 1],
  ["4210_{5}", "4210_5", 1],
  ["141_{13}", "228", 0],
  ["9\\text{ a.m.}", "9", 0],
  ["9\\text{ a.m.}", "9:00 a.m.", 1],
  ["50", "\\text{D}", 0],
  // unicode
  ["-3", "\u22123", 1],
  // a tuple is never a set (either direction, any brace spelling); null = undecidable
  ["(1,3)", "\\{1,3\\}", 0],
  ["(1,3)", "{1,3}", 0],
  ["(1,3)", "\\left\\{1,3\\right\\}", 0],
  ["(1,3)", "\\lbrace 1,3\\rbrace", 0],
  ["\\{1,3\\}", "(1,3)", 0],
  ["\\{1,3\\}", "\\lbrace 3,1 \\rbrace", 1],
  ["(1,3)", "\\langle 1,3\\rangle", 1],
  ["[1,3]", "\\{1,3\\}", 0],
  ["\\{1\\}", "1", 0],
  ["1", "\\{1\\}", 0],
  ["(1,3)", "\\begin{pmatrix}1\\\\3\\end{pmatrix}", 0],
  ["(1,3)", "1, 3", 1],
  ["(1,3)", "(1,3)", 1],
  ["(1,3)", "1 < x < 3", null],
  ["1 < x < 3", "(1,3)", 1],
  ["(1,\\infty)", "x > 1", 1],
  // degrees: radians inside trigonometric functions; a degree answer vs a radian answer is unsure
  ["\\frac{\\sqrt{3}}{2}", "\\sin 60^\\circ", 1],
  ["\\sin 60^\\circ", "\\frac{\\sqrt{3}}{2}", 1],
  ["\\frac{1}{2}", "\\cos(60^{\\circ})", 1],
  ["\\frac{1}{2}", "\\cos 45^\\circ", 0],
  ["\\sin x^\\circ", "\\sin\\frac{\\pi x}{180}", 1],
  ["60^\\circ", "\\frac{\\pi}{3}", null],
  ["\\frac{\\pi}{3}", "60 \\text{ degrees}", null],
  ["\\frac{\\pi}{3}", "45^\\circ", 0],
  ["(3,\\frac{\\pi}{2})", "(3, 90^\\circ)", null],
  // units of one dimension are converted to the gold's (issue 29); other dimensions are wrong
  ["5.4 \\text{ cents}", "\\$0.054", 1],
  ["2 \\text{ m}", "200 \\text{ cm}", 1],
  ["2 \\text{ m}", "3 \\text{ m}", 0],
  ["12 \\text{ cm}", "13", 0],
  ["5 \\text{ kg}", "6 \\text{ cm}", 0],
];

describe("verifyMath: answer shapes and traps", () => {
  for (const [gold, pred, expected] of CASES) {
    it(`${gold}  vs  ${pred}  → ${expected}`, async () => {
      const r = await verifyMath(box(pred), gold);
      expect(r.score).toBe(expected);
      expect(r.details?.extracted).toBeDefined();
      // An enumeration (`1, 0`, `\pm 2021`) for a single gold is `multiple_answers`, also a score of 0.
      if (expected === 0)
        expect(r.reason).toBeOneOf(/,|\\pm/.test(pred) ? ["wrong_answer", "multiple_answers"] : ["wrong_answer"]);
    });
  }
});

describe("verifyMath: statuses, options, references", () => {
  it("missing or empty reference → no_reference", async () => {
    for (const ref of [undefined, null, "", "   "]) {
      const r = await verifyMath(box("1"), ref);
      expect(r).toMatchObject({ score: null, status: "unscorable", reason: "no_reference" });
    }
  });
  it("a reference of another shape → invalid_reference (not no_reference)", async () => {
    for (const ref of [{ value: "3" }, [], [{ value: "3" }], ["3", ["4"]], true, Number.NaN, Infinity]) {
      const r = await verifyMath(box("3"), ref);
      expect(r).toMatchObject({ score: null, status: "unscorable", reason: "invalid_reference" });
      expect(r.details?.expected).toEqual(expect.any(String));
    }
  });
  it("an array of references: any one matching scores 1", async () => {
    expect(await verifyMath(box("4"), ["3", "4"])).toMatchObject({ score: 1, details: { matched: 1 } });
    expect((await verifyMath(box("\\frac12"), [0.5])).score).toBe(1);
    expect(await verifyMath(box("5"), ["3", "4"])).toMatchObject({ score: 0, reason: "wrong_answer" });
    // an undecided alternative may be the right one: undecidable, not 0
    expect(await verifyMath(box("\\frac{\\pi}{3}"), ["1", "60^\\circ"])).toMatchObject({
      score: null,
      reason: "undecidable",
    });
    expect((await verifyMath("no answer here", ["3", "4"])).reason).toBe("no_answer");
    expect((await verifyMath(box("3"), ["", " "])).reason).toBe("no_reference");
  });
  it("no extractable answer → no_answer with details.extracted = null", async () => {
    const r = await verifyMath("I am not sure.", "3");
    expect(r).toMatchObject({ status: "unscorable", reason: "no_answer", details: { extracted: null } });
  });
  it("a numeric reference and a boxed reference are accepted", async () => {
    expect((await verifyMath(box("\\frac{1}{2}"), 0.5)).score).toBe(1);
    expect((await verifyMath(box("7"), "The answer is \\boxed{7}.")).score).toBe(1);
    expect((await verifyMath(box("18"), "3*6 = <<3*6=18>>18\n#### 18")).score).toBe(1);
  });
  it("wrong answers carry the extracted answer and the method", async () => {
    const r = await verifyMath(box("\\frac{5}{16}"), "\\frac{3}{8}");
    expect(r).toEqual({
      score: 0,
      status: "ok",
      reason: "wrong_answer",
      details: { extracted: "\\frac{5}{16}", method: "fast" },
    });
  });
  it("parse errors never compare equal, even to the same text", async () => {
    const r = await verifyMath(box("\\frac{1}{"), "\\frac{1}{");
    expect(r.score).not.toBe(1);
    expect(r.reason).toBe("parse_error");
  });
  it("a power tower is refused quickly, not computed", async () => {
    const t0 = Date.now();
    const r = await verifyMath(box("5^{5^{5^{5^{5}}}}"), "1");
    expect(r.score).not.toBe(1);
    expect(r.reason).toBe("undecidable");
    expect(Date.now() - t0).toBeLessThan(1000);
  });
  it("the CAS is not asked about power towers, huge exponents or factorials", async () => {
    const t0 = Date.now();
    for (const [g, p] of [
      ["x^{5^{5^{5}}}", "1"],
      ["(x+1)^{100000}", "x"],
      ["\\sqrt{100000!}", "2"],
    ] as const) {
      const r = await verifyMath(box(p), g);
      expect(r.reason).toBe("undecidable");
    }
    expect(Date.now() - t0).toBeLessThan(2000);
  });
  it("percent: strict keeps 50% apart from 0.5", async () => {
    expect((await verifyMath(box("0.5"), "50\\%", { percent: "strict" })).score).toBe(0);
    expect((await verifyMath(box("50"), "50\\%", { percent: "strict" })).score).toBe(1);
    expect((await verifyMath(box("0.5"), "50\\%")).score).toBe(1);
  });
  it("relTol applies only to a decimal reference", async () => {
    expect((await verifyMath(box("\\frac{22}{7}"), "3.14", { relTol: 1e-4 })).score).toBe(0);
    expect((await verifyMath(box("\\frac{22}{7}"), "3.14", { relTol: 1e-3 })).score).toBe(1);
    expect((await verifyMath(box("3.14"), "\\frac{22}{7}", { relTol: 0.1 })).score).toBe(0);
  });
  it("a decimal gold is never looser than half a unit in its last place (red team: 1001 passed 1000.0)", async () => {
    expect((await verifyMath(box("1001"), "1000.0")).score).toBe(0); // relTol alone allowed ±1
    expect((await verifyMath(box("\\frac{2001}{2}"), "1000.0")).score).toBe(0);
    expect((await verifyMath(box("\\frac{145}{2}+\\frac{1}{20}"), "72.5")).score).toBe(0); // 72.55: the half unit is exclusive
    expect((await verifyMath(box("1000"), "1000.0")).score).toBe(1);
    expect((await verifyMath(box("\\frac{22}{7}"), "3.14")).score).toBe(1); // |Δ| 0.0029 ≤ min(0.00314, 0.005)
    expect((await verifyMath(box("\\pi"), "3.14")).score).toBe(1); // through the CAS
    expect((await verifyMath(box("\\pi + 0.04"), "3.18")).score).toBe(1);
    expect((await verifyMath(box("\\pi"), "3.2")).score).toBe(0);
  });
  it("methods: fast for rationals, cas for symbolic numbers, sampling for identities CAS cannot close", async () => {
    expect((await verifyMath(box("0.5"), "\\frac{1}{2}")).details?.method).toBe("fast");
    expect((await verifyMath(box("\\sqrt{117}"), "3\\sqrt{13}")).details?.method).toBe("cas");
    expect((await verifyMath(box("\\frac{\\cos x}{\\sin x}"), "\\cot x")).details?.method).toBe("sampling");
    expect((await verifyMath(box("\\text{Evelyn}"), "\\text{Evelyn}")).details?.method).toBe("string");
  });
  it("the answer stated last wins among anchors; the extraction order and the style are configurable", async () => {
    const text = "\\boxed{3}\n#### 4";
    expect((await verifyMath(text, "4")).score).toBe(1);
    expect((await verifyMath(text, "3")).score).toBe(0);
    expect((await verifyMath(text, "3", { extract: ["boxed"] })).score).toBe(1);
    expect((await verifyMath(text, "3", { style: "boxed" })).score).toBe(1);
    expect((await verifyMath(text, "4", { extract: ["gsm8k"] })).score).toBe(1);
    expect(mathVerifier.options.safeParse({ style: "no-such-style" }).success).toBe(false);
  });
  it("unknown option keys are rejected", () => {
    expect(mathVerifier.options.safeParse({ tolerance: 1 }).success).toBe(false);
    expect(mathVerifier.options.safeParse({}).success).toBe(true);
  });
  it("the verifier definition builds a verify function", async () => {
    const verify = mathVerifier.create(mathVerifier.options.parse({}));
    const r = await verify({
      completion: box("2"),
      reference: "2",
      rollout: { id: "a", group: "g", completion: box("2") },
    });
    expect(r.score).toBe(1);
    expect(mathVerifier).toMatchObject({ type: "math", isolation: "worker", defaultTimeoutMs: 5000 });
  });
});
