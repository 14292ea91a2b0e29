import { describe, expect, it } from "vitest";
import { run } from "../structured/run.test-helper.js";
import { bleuScore, bleuStats, bleuVerifier, tokenize13a } from "./bleu.js";
import { f1Verifier, squadF1, squadNormalize } from "./f1.js";
import { fuzzyVerifier, partialRatio, ratio, tokenSetRatio, tokenSortRatio } from "./fuzzy.js";
import { levenshtein, levenshteinSimilarity, levenshteinVerifier } from "./levenshtein.js";
import { rougeL, rougeN, rougeTokens, rougeVerifiers } from "./rouge.js";

describe("f1 (SQuAD)", () => {
  // normalize_answer of the official SQuAD v1.1 / v2.0 evaluation script: lower, strip string.punctuation, drop a/an/the, squeeze spaces
  it("normalizes as the SQuAD evaluation script", () => {
    expect(squadNormalize("The  Eiffel-Tower!")).toBe("eiffeltower");
    expect(squadNormalize("An apple, a pear and THE plum.")).toBe("apple pear and plum");
  });
  it("token F1, hand-computed", () => {
    expect(squadF1("the cat sat", "a cat sat down")).toBeCloseTo(0.8, 12); // P 1, R 2/3
    expect(squadF1("Denver Broncos", "Denver Broncos")).toBe(1);
    expect(squadF1("Broncos of Denver", "Denver Broncos")).toBeCloseTo(0.8, 12); // common 2: P 2/3, R 1
    expect(squadF1("Panthers", "Denver Broncos")).toBe(0);
    expect(squadF1("the", "")).toBe(1); // both normalize to no tokens
    expect(squadF1("a b c", "")).toBe(0);
  });
  it("verifier: best over references", async () => {
    expect(await run(f1Verifier, {}, "Denver Broncos", ["Broncos", "Denver Broncos"])).toEqual({
      score: 1,
      status: "ok",
      details: { reference: 1 },
    });
    expect((await run(f1Verifier, {}, "x")).reason).toBe("no_reference");
    expect(await run(f1Verifier, {}, "Panthers", "Broncos")).toEqual({ score: 0, status: "ok", reason: "no_match" });
  });
});

describe("levenshtein", () => {
  it("distance and normalized similarity", () => {
    expect(levenshtein("kitten", "sitting")).toBe(3); // the textbook example
    expect(levenshtein("flaw", "lawn")).toBe(2);
    expect(levenshtein("", "abc")).toBe(3);
    expect(levenshteinSimilarity("kitten", "sitting")).toBeCloseTo(1 - 3 / 7, 12);
    expect(levenshteinSimilarity("", "")).toBe(1);
    expect(levenshtein("héllo", "hello")).toBe(1); // code points
  });
  it("verifier normalizes case and whitespace by default", async () => {
    expect((await run(levenshteinVerifier, {}, " Kitten ", "sitting")).score).toBeCloseTo(4 / 7, 12);
    expect((await run(levenshteinVerifier, { caseSensitive: true }, "ABC", "abc")).score).toBe(0);
  });
});

describe("fuzzy (rapidfuzz)", () => {
  // values from the rapidfuzz README (fuzz.ratio / partial_ratio / token_sort_ratio / token_set_ratio), divided by 100
  it("matches rapidfuzz's published examples", () => {
    expect(ratio("this is a test", "this is a test!")).toBeCloseTo(0.9655172413793104, 12);
    expect(partialRatio("this is a test", "this is a test!")).toBe(1);
    expect(ratio("fuzzy wuzzy was a bear", "wuzzy fuzzy was a bear")).toBeCloseTo(0.9090909090909091, 12);
    expect(tokenSortRatio("fuzzy wuzzy was a bear", "wuzzy fuzzy was a bear")).toBe(1);
    expect(tokenSortRatio("fuzzy was a bear", "fuzzy fuzzy was a bear")).toBeCloseTo(0.8421052631578947, 12);
    expect(tokenSetRatio("fuzzy was a bear", "fuzzy fuzzy was a bear")).toBe(1);
  });
  it("verifier picks the method", async () => {
    expect(
      (await run(fuzzyVerifier, { method: "token-sort-ratio" }, "wuzzy fuzzy was a bear", "fuzzy wuzzy was a bear"))
        .score,
    ).toBe(1);
    expect((await run(fuzzyVerifier, {}, "this is a test", "this is a test!")).score).toBeCloseTo(
      0.9655172413793104,
      12,
    );
  });
});

describe("bleu (sacreBLEU)", () => {
  it("13a tokenization", () => {
    expect(tokenize13a("It wasn't surprising.")).toEqual(["It", "wasn't", "surprising", "."]);
    expect(tokenize13a("Costs $3.50, (roughly) 1-2 days")).toEqual([
      "Costs",
      "$",
      "3.50",
      ",",
      "(",
      "roughly",
      ")",
      "1",
      "-",
      "2",
      "days",
    ]);
  });
  it("reproduces the sacreBLEU README corpus example: BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943, hyp_len 17, ref_len 18)", () => {
    const sys = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."];
    const refs = [
      ["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
      ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."],
    ];
    const total = { hypLen: 0, refLen: 0, matches: [0, 0, 0, 0], totals: [0, 0, 0, 0] };
    sys.forEach((h, i) => {
      const s = bleuStats(
        tokenize13a(h),
        refs.map((r) => tokenize13a(r[i]!)),
        4,
      );
      total.hypLen += s.hypLen;
      total.refLen += s.refLen;
      s.matches.forEach((m, n) => (total.matches[n]! += m));
      s.totals.forEach((t, n) => (total.totals[n]! += t));
    });
    expect([total.hypLen, total.refLen]).toEqual([17, 18]);
    const b = bleuScore(total, "exp", false);
    expect(b.score.toFixed(2)).toBe("48.53");
    expect(b.precisions.map((p) => p.toFixed(1))).toEqual(["82.4", "50.0", "45.5", "37.5"]);
    expect(b.bp.toFixed(3)).toBe("0.943");
  });
  it("sentence BLEU, hand-computed", async () => {
    expect((await run(bleuVerifier, {}, "the cat sat on the mat", "the cat sat on the mat")).score).toBeCloseTo(1, 12);
    // hyp "the cat sat on a mat" vs ref "the cat sat on the mat": 6 tokens each, BP 1;
    // matches 5/6, 3/5, 2/4, 1/3 → BLEU = (5/6 · 3/5 · 2/4 · 1/3)^(1/4) = (1/12)^(1/4)
    expect((await run(bleuVerifier, {}, "the cat sat on a mat", "the cat sat on the mat")).score).toBeCloseTo(
      Math.pow(1 / 12, 0.25),
      12,
    );
    // exp smoothing: hyp "cat mat" vs ref "the cat sat on the mat": 1-grams 2/2, 2-grams 0/1 → 100/(2·1) = 50 %;
    // effective order 2; BP = exp(1 − 6/2) → BLEU = exp(1−3) · sqrt(1 · 0.5)
    expect((await run(bleuVerifier, {}, "cat mat", "the cat sat on the mat")).score).toBeCloseTo(
      Math.exp(-2) * Math.sqrt(0.5),
      12,
    );
    // no match at all: sacreBLEU's exp smoothing still gives 1-gram precision 100/(2·1) = 50 %, BP = exp(1 − 2/1)
    expect((await run(bleuVerifier, {}, "dog", "the cat")).score).toBeCloseTo(0.5 * Math.exp(-1), 12);
    expect(await run(bleuVerifier, { smooth: "none" }, "dog", "the cat")).toMatchObject({
      score: 0,
      reason: "no_match",
    });
  });
});

describe("rouge (rouge-score)", () => {
  const target = "The quick brown fox jumps over the lazy dog";
  const prediction = "The quick brown dog jumps on the log.";
  it("reproduces rouge-score's example (RougeScorer(['rouge1', 'rougeL']).score(target, prediction), no stemmer)", () => {
    expect(rougeN(prediction, target, 1)).toEqual({
      precision: 0.75,
      recall: 6 / 9,
      f: expect.closeTo(0.7058823529411765, 12),
    });
    expect(rougeL(prediction, target)).toEqual({
      precision: 0.625,
      recall: 5 / 9,
      f: expect.closeTo(0.5882352941176471, 12),
    });
  });
  it("bigrams, hand-computed; tokenizer", () => {
    // bigrams: pred 7, target 8; shared: "the quick", "quick brown" → P 2/7, R 2/8
    expect(rougeN(prediction, target, 2).f).toBeCloseTo((2 * (2 / 7) * (2 / 8)) / (2 / 7 + 2 / 8), 12);
    expect(rougeTokens("The dog's log.")).toEqual(["the", "dog", "s", "log"]);
  });
  it("rouge-1 … rouge-5, rouge-l verifiers", async () => {
    expect(rougeVerifiers.map((v) => v.type)).toEqual([
      "rouge-1",
      "rouge-2",
      "rouge-3",
      "rouge-4",
      "rouge-5",
      "rouge-l",
    ]);
    const r1 = rougeVerifiers[0]!;
    const rl = rougeVerifiers[5]!;
    expect((await run(r1, {}, prediction, target)).score).toBeCloseTo(0.7058823529411765, 12);
    expect((await run(r1, { measure: "recall" }, prediction, target)).score).toBeCloseTo(6 / 9, 12);
    expect((await run(rl, {}, prediction, [target, prediction])).score).toBe(1);
  });
});
