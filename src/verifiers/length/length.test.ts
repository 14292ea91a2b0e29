import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Rollout } from "../../core/types.js";
import { createScorer } from "../../engine/scorer.js";
import { scoreBatch } from "../../engine/batch.js";
import { compileSpec } from "../../spec/compile.js";
import { parseSpec } from "../../spec/load.js";
import { toRollout } from "../../io/rollout.js";
import { budgetTerm, lengthBudgetVerifier } from "./budget.js";
import { cosineScaled } from "./cosine.js";
import { groupLengthRewards } from "./group-length.js";
import { repetitionPenalty, repetitionPenaltyVerifier } from "./repetition.js";

/** Outputs of the peers' own functions (scripts/length-golden.py; TRL @ f2cd5771, open-r1 @ 1416fa0c). */
const golden = JSON.parse(
  readFileSync(new URL("../../../test/fixtures/length/peer-golden.json", import.meta.url), "utf8"),
) as {
  cosine: Array<{
    args: [number, number, number, number, number];
    correct: boolean;
    lengths: number[];
    rewards: number[];
  }>;
  repetition: Array<{ n: number; p: number; seqs: number[][]; rewards: number[] }>;
  repetitionWords: Array<{ n: number; p: number; texts: string[]; rewards: number[] }>;
  kimi: Array<{ lengths: number[]; correct: boolean[]; rewards: number[] }>;
};

const rollout = (over: Partial<Rollout> = {}): Rollout => ({ id: "r", group: "g", completion: "", ...over });

async function scoreAll(yaml: string, rollouts: Rollout[]) {
  const scorer = createScorer(parseSpec(yaml, "t.yaml"), { concurrency: 1 });
  try {
    return (await scoreBatch(scorer, rollouts)).scores;
  } finally {
    await scorer.close();
  }
}

describe("cosine-length (Yeo et al. 2025; TRL _CosineScaledReward)", () => {
  it("equals TRL's function on 84 (length, correctness, parameters) cases to 1e-12", () => {
    let n = 0;
    for (const c of golden.cosine) {
      const [maxLength, minValueWrong, maxValueWrong, minValueCorrect, maxValueCorrect] = c.args;
      c.lengths.forEach((L, i) => {
        expect(
          cosineScaled(L, c.correct, { maxLength, minValueWrong, maxValueWrong, minValueCorrect, maxValueCorrect }),
        ).toBeCloseTo(c.rewards[i]!, 12);
        n++;
      });
    }
    expect(n).toBe(84);
  });

  it("an answer the correctness component cannot read counts as wrong, never escapes the wrong curve (red team)", async () => {
    const yaml = `components:\n  - {name: acc, type: math, weight: 0}\n  - {name: cos, type: cosine-length, correctness: acc, maxLength: 100}\n  - {name: len, type: group-length, correctness: acc}`;
    const ids = Array(50).fill(1);
    const s = await scoreAll(yaml, [
      rollout({ id: "wrong", completion: "\\boxed{73}", reference: "72", completion_ids: ids }),
      rollout({ id: "refuse", completion: "I don't know.", reference: "72", completion_ids: ids }),
      rollout({ id: "hedge", completion: "\\boxed{72 \\text{ or } 73}", reference: "72", completion_ids: ids }),
      rollout({ id: "right", completion: "\\boxed{72}", reference: "72", completion_ids: Array(10).fill(1) }),
    ]);
    expect(s[1]!.results[0]!.status).toBe("unscorable"); // no_answer
    // cosine: 50 of 100 tokens → −0.75 for each of the three that are not right, as TRL's wrong curve
    expect(s.map((x) => x.results[1]!.score)).toEqual([
      -0.75,
      -0.75,
      -0.75,
      expect.closeTo(0.5 + 0.25 * (1 + Math.cos(0.1 * Math.PI)), 12),
    ]);
    // group-length: the refusal and the hedge are wrong answers of the longest length (min(0, 0.5 − 1) = −0.5)
    expect(s.map((x) => x.results[2]!.score)).toEqual([-0.5, -0.5, -0.5, 0.5]);
  });

  it("TRL's docstring example through a spec: 50 of 100 tokens → 0.75 correct, −0.75 wrong; correctness unscorable → unscorable", async () => {
    const yaml = `components:\n  - {name: acc, type: exact, weight: 0}\n  - {name: cos, type: cosine-length, correctness: acc, maxLength: 100}`;
    const s = await scoreAll(yaml, [
      rollout({ id: "a", completion: "1/3", reference: "1/3", completion_ids: Array(50).fill(1) }),
      rollout({ id: "b", completion: "1/2", reference: "1/3", completion_ids: Array(50).fill(1) }),
      rollout({ id: "c", completion: "1/2", completion_tokens: 50 }),
    ]);
    expect(s.map((x) => x.results[1]!.score)).toEqual([0.75, -0.75, null]);
    expect(s[0]!.results[1]!.details).toEqual({ length: 50, lengthSource: "completion_ids", correct: true });
    expect(s[2]!.results[1]!.reason).toBe("dependency_unscorable");
    expect(s.map((x) => x.reward)).toEqual([0.75, -0.75, 0]);
  });

  it("attacks: a wrong answer never scores above maxValueWrong, however long (no climb back past L_max), and and no length beyond L_max pays", () => {
    const o = { maxLength: 100, minValueWrong: -1, maxValueWrong: -0.5, minValueCorrect: 0.5, maxValueCorrect: 1 };
    for (const L of [0, 1, 99, 100, 150, 199, 200, 1e9]) expect(cosineScaled(L, false, o)).toBeLessThanOrEqual(-0.5);
    expect(cosineScaled(200, true, o)).toBe(0.5); // cos(2π) would be 1 without the clamp
  });

  it("rejects a correctness that names no component, itself, or a group-stage component", () => {
    const issues = (components: unknown[]) => {
      const r = compileSpec({ components }, "t");
      return "issues" in r ? r.issues.map((i) => `${i.path.join(".")}: ${i.message}`) : [];
    };
    expect(issues([{ name: "cos", type: "cosine-length", correctness: "acc", maxLength: 10 }])).toEqual([
      'components.0.correctness: "acc" names no component; known: cos',
    ]);
    expect(issues([{ name: "cos", type: "cosine-length", correctness: "cos", maxLength: 10 }])).toEqual([
      "components.0.correctness: a component cannot read itself",
    ]);
    expect(
      issues([
        { name: "acc", type: "exact" },
        { name: "len", type: "group-length", correctness: "acc" },
        { name: "cos", type: "cosine-length", correctness: "len", maxLength: 10 },
      ]),
    ).toEqual(['components.2.correctness: "len" is itself scored at the group stage; name a per-rollout component']);
    expect(
      issues([
        { name: "acc", type: "exact" },
        {
          name: "cos",
          type: "cosine-length",
          correctness: "acc",
          maxLength: { schedule: "linear", from: 10, to: 20, endStep: 5 },
        },
      ]),
    ).toEqual(["components.1.maxLength: the type options of a component with a group stage cannot be scheduled"]);
  });
});

describe("repetition-penalty (TRL _RepetitionPenalty; open-r1 word n-grams)", () => {
  it("equals TRL's function over token ids (5 settings × 8 sequences) and open-r1's over words (2 × 6 texts)", () => {
    for (const c of golden.repetition)
      c.seqs.forEach((ids, i) => expect(repetitionPenalty(ids, c.n, c.p)).toBeCloseTo(c.rewards[i]!, 12));
    for (const c of golden.repetitionWords) {
      const fn = repetitionPenaltyVerifier.create(
        repetitionPenaltyVerifier.options.parse({ ngramSize: c.n, maxPenalty: c.p, over: "words" }),
      );
      c.texts.forEach((t, i) =>
        expect(
          (fn({ completion: t, reference: undefined, rollout: rollout({ completion: t }) }) as { score: number }).score,
        ).toBeCloseTo(c.rewards[i]!, 12),
      );
    }
    expect(repetitionPenalty([5, 5, 5, 5, 5], 2, -1)).toBe(-0.75); // TRL's docstring
  });

  it("uses completion_ids when present (auto), words otherwise; over: tokens without ids is unscorable, never a silent 0", () => {
    const fn = (o: object) => repetitionPenaltyVerifier.create(repetitionPenaltyVerifier.options.parse(o));
    const r = rollout({ completion: "a b c d", completion_ids: [1, 1, 1, 1] });
    expect(fn({ ngramSize: 2 })({ completion: r.completion as string, reference: undefined, rollout: r })).toEqual({
      score: (1 - 1 / 3) * -1,
      status: "ok",
      details: { over: "tokens", units: 4, ngrams: 3 },
    });
    const w = rollout({ completion: "a b c d" });
    expect(fn({ ngramSize: 2 })({ completion: "a b c d", reference: undefined, rollout: w })).toEqual({
      score: 0,
      status: "ok",
      details: { over: "words", units: 4, ngrams: 3 },
    });
    expect(fn({ over: "tokens" })({ completion: "a b c d", reference: undefined, rollout: w })).toMatchObject({
      score: null,
      reason: "missing_field",
    });
    expect(repetitionPenaltyVerifier.options.safeParse({ maxPenalty: 0.5 }).success).toBe(false); // TRL raises for a positive penalty
    // a malformed completion_ids is a malformed input line (named), not a silently different length
    expect(toRollout({ group: "g", completion: "x", completion_ids: "1 2 3" }, 7, {})).toEqual({
      problem: { field: "completion_ids", message: "expected an array of token ids (numbers)" },
    });
    expect(toRollout({ group: "g", completion: "x", ids: [1, 2] }, 7, { completion_ids: "ids" })).toMatchObject({
      rollout: { completion_ids: [1, 2] },
    });
  });
});

describe("group-length (Kimi k1.5; open-r1 len_reward)", () => {
  it("equals open-r1's len_reward on 5 groups, directly and through a spec with a correctness component", async () => {
    for (const g of golden.kimi) expect(groupLengthRewards(g.lengths, g.correct)).toEqual(g.rewards.map((x) => x + 0)); // (+0: no −0)
    const yaml = `components:\n  - {name: acc, type: exact, weight: 0}\n  - {name: len, type: group-length, correctness: acc, unit: chars}`;
    const rollouts = golden.kimi.flatMap((g, gi) =>
      g.lengths.map((L, i) =>
        rollout({
          id: `${gi}-${i}`,
          group: `g${gi}`,
          completion: "x".repeat(L),
          reference: g.correct[i] ? "x".repeat(L) : "no",
        }),
      ),
    );
    // interleave the groups: the stage must regroup them
    const order = rollouts.map((_, i) => i).sort((a, b) => (a % 3) - (b % 3) || a - b);
    const scores = await scoreAll(
      yaml,
      order.map((i) => rollouts[i]!),
    );
    const byId = new Map(order.map((i, k) => [rollouts[i]!.id, scores[k]!]));
    golden.kimi.forEach((g, gi) =>
      g.rewards.forEach((want, i) => expect(byId.get(`${gi}-${i}`)!.results[1]!.score).toBeCloseTo(want, 12)),
    );
    expect(byId.get("0-0")!.results[1]!.details).toMatchObject({
      groupSize: 3,
      groupMinLength: 100,
      groupMaxLength: 300,
    });
  });

  it("a rollout scored alone is a group of one (0); attacks: a short wrong answer never earns a positive reward", async () => {
    const yaml = `components:\n  - {name: acc, type: exact, weight: 0}\n  - {name: len, type: group-length, correctness: acc, unit: chars}`;
    const scorer = createScorer(parseSpec(yaml, "t.yaml"), { concurrency: 1 });
    try {
      expect((await scorer.score(rollout({ completion: "abc", reference: "abc" }))).results[1]!.score).toBe(0);
    } finally {
      await scorer.close();
    }
    for (let k = 0; k < 50; k++) {
      const lengths = Array.from({ length: 6 }, (_, i) => 1 + ((k * 7 + i * 13) % 40));
      const correct = lengths.map((_, i) => (k + i) % 3 === 0);
      groupLengthRewards(lengths, correct).forEach((r, i) => {
        if (!correct[i]) expect(r).toBeLessThanOrEqual(0);
      });
    }
  });
});

describe("length-budget (L1, Aggarwal & Welleck 2025)", () => {
  it("exact, max and exceeded forms, hand-computed (α 0.0003, δ 0.5)", () => {
    const o = { alpha: 0.0003, delta: 0.5, penalty: 1 };
    expect(budgetTerm(1500, 1000, { ...o, form: "exact" })).toBeCloseTo(-0.15, 12);
    expect(budgetTerm(600, 1000, { ...o, form: "exact" })).toBeCloseTo(-0.12, 12);
    expect(Object.is(budgetTerm(1000, 1000, { ...o, form: "exact" }), 0)).toBe(true);
    expect(budgetTerm(1500, 1000, { ...o, form: "max" })).toBeCloseTo(0.35, 12);
    expect(budgetTerm(600, 1000, { ...o, form: "max" })).toBeCloseTo(0.62, 12);
    expect(budgetTerm(5000, 1000, { ...o, form: "max" })).toBe(0);
    expect(budgetTerm(0, 10000, { ...o, form: "max" })).toBe(1);
    expect(budgetTerm(1001, 1000, { ...o, form: "exceeded" })).toBe(-1);
    expect(budgetTerm(1000, 1000, { ...o, form: "exceeded" })).toBe(0);
  });

  it("reads the per-rollout budget (target_length), LCPO-Max as accuracy × budget through a formula; no budget is unscorable", async () => {
    const yaml = `components:\n  - {name: acc, type: exact}\n  - {name: budget, type: length-budget, form: max}\naggregate: {type: formula, formula: "acc * budget"}`;
    const s = await scoreAll(yaml, [
      rollout({ id: "a", completion: "42", reference: "42", completion_tokens: 600, target_length: 1000 }),
      rollout({ id: "b", completion: "41", reference: "42", completion_tokens: 600, target_length: 1000 }),
      rollout({ id: "c", completion: "42", reference: "42", completion_tokens: 600 }),
    ]);
    expect(s[0]!.reward).toBeCloseTo(0.62, 12);
    expect(s[0]!.results[1]!.details).toEqual({ length: 600, lengthSource: "completion_tokens", target: 1000 });
    expect(s[1]!.reward).toBe(0);
    expect(s[2]!.results[1]).toMatchObject({ score: null, reason: "missing_field" });
    const fixed = lengthBudgetVerifier.create(lengthBudgetVerifier.options.parse({ target: 10, unit: "chars" }));
    expect(fixed({ completion: "x".repeat(20), reference: undefined, rollout: rollout() })).toMatchObject({
      score: -0.0003 * 10,
    });
  });
});
