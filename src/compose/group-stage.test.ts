import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmp } from "../../test/helpers.js";
import { describe, expect, it } from "vitest";
import type { Rollout } from "../core/types.js";
import { scoreBatch } from "../engine/batch.js";
import { scoreFile } from "../engine/score-file.js";
import { createScorer } from "../engine/scorer.js";
import { parseSpec } from "../spec/load.js";

const KIMI = `components:
  - {name: acc, type: exact}
  - {name: len, type: group-length, correctness: acc, unit: chars, weight: 1}
advantage: {estimator: grpo, std: none}`;

// two groups, interleaved in the file; within each: lengths 100/200/300 characters
const rows: Rollout[] = [
  { id: "a0", group: "A", completion: "x".repeat(100), reference: "x".repeat(100) }, // correct, shortest → +0.5
  { id: "b0", group: "B", completion: "y".repeat(100), reference: "no" }, // wrong, shortest → 0
  { id: "a1", group: "A", completion: "x".repeat(200), reference: "x".repeat(200) }, // correct, middle → 0
  { id: "b1", group: "B", completion: "y".repeat(200), reference: "y".repeat(200) }, // correct, middle → 0
  { id: "a2", group: "A", completion: "x".repeat(300), reference: "no" }, // wrong, longest → −0.5
  { id: "b2", group: "B", completion: "y".repeat(300), reference: "y".repeat(300) }, // correct, longest → −0.5
];
const want: Record<string, { len: number; reward: number }> = {
  a0: { len: 0.5, reward: 1.5 },
  a1: { len: 0, reward: 1 },
  a2: { len: -0.5, reward: -0.5 },
  b0: { len: 0, reward: 0 },
  b1: { len: 0, reward: 1 },
  b2: { len: -0.5, reward: 0.5 },
};

describe("group-context stage", () => {
  it("rewardkit score: staged components see each whole group of the file; rewards, summary and advantages follow", async () => {
    const dir = tmp();
    const input = join(dir, "in.jsonl");
    const output = join(dir, "out.jsonl");
    writeFileSync(input, rows.map((r) => JSON.stringify({ ...r, ok: r.reference !== "no" })).join("\n") + "\n");
    const summary = await scoreFile(parseSpec(KIMI, "t.yaml"), { input, output, concurrency: 1, labelField: "ok" });
    const out = readFileSync(output, "utf8")
      .trim()
      .split("\n")
      .map(
        (l) =>
          JSON.parse(l) as {
            id: string;
            reward: number;
            advantage: number;
            components: Record<string, { score: number }>;
          },
      );
    expect(out.map((o) => o.id)).toEqual(rows.map((r) => r.id)); // input order kept
    for (const o of out) {
      expect(o.components.len!.score).toBeCloseTo(want[o.id]!.len, 12);
      expect(o.reward).toBeCloseTo(want[o.id]!.reward, 12);
    }
    // Dr.GRPO-style advantage r − mean(group): group A mean 2/3, group B mean 0.5
    expect(out.find((o) => o.id === "a0")!.advantage).toBeCloseTo(1.5 - 2 / 3, 12);
    expect(out.find((o) => o.id === "b2")!.advantage).toBeCloseTo(0, 12);
    expect(summary.components.len!.mean).toBeCloseTo((0.5 + 0 - 0.5 + 0 + 0 - 0.5) / 6, 6); // summaries round to 6 digits
    expect(summary.reward.mean).toBeCloseTo(3.5 / 6, 6);
    expect(summary.label).toMatchObject({ n: 6, agree: 6 });
  });

  it("scoreBatch stages per batch; Scorer.score alone is a group of one", async () => {
    const scorer = createScorer(parseSpec(KIMI, "t.yaml"), { concurrency: 1 });
    try {
      const { scores } = await scoreBatch(scorer, rows);
      rows.forEach((r, i) => expect(scores[i]!.results[1]!.score).toBeCloseTo(want[r.id]!.len, 12));
      const alone = await scorer.score(rows[0]!);
      expect(alone.results[1]!.score).toBe(0);
      expect(alone.reward).toBe(1);
    } finally {
      await scorer.close();
    }
  });

  it("a staged component may gate, and be gated: gates see the staged verdicts", async () => {
    const spec = parseSpec(
      `components:\n  - {name: acc, type: exact}\n  - {name: len, type: group-length, correctness: acc, unit: chars, gate: acc}`,
      "t.yaml",
    );
    const scorer = createScorer(spec, { concurrency: 1 });
    try {
      const { scores } = await scoreBatch(scorer, rows);
      // a2 is wrong: its −0.5 length term is gated off, so its reward is 0 (not −0.5)
      expect(scores[4]!.reward).toBe(0);
      expect(scores[0]!.reward).toBeCloseTo(1.5, 12);
    } finally {
      await scorer.close();
    }
  });
});

describe("likelihood at the group stage: RLPR std filter and RLCPR collapse penalty", () => {
  const lp = (p: number) => [Math.log(p), Math.log(p)];
  const collapsed: Rollout[] = [0, 1, 2, 3].map((k) => ({
    id: `c${k}`,
    group: "collapsed",
    completion: "x",
    completion_tokens: 1000 * (k + 1),
    reference_logprobs: lp(0.62 + k * 0.001),
  }));
  const spread: Rollout[] = [0.2, 0.5, 0.9].map((p, k) => ({
    id: `s${k}`,
    group: "spread",
    completion: "x",
    completion_tokens: 100 * (k + 1),
    reference_logprobs: lp(p),
  }));

  it("filterStd: a group whose scores barely vary becomes unscorable (group_filtered), the others are untouched", async () => {
    const scorer = createScorer(
      parseSpec(`components:\n  - {name: lik, type: likelihood, form: mean-prob, filterStd: 0.05}`, "t.yaml"),
      { concurrency: 1 },
    );
    try {
      const { scores, advantages } = await scoreBatch(scorer, [...collapsed, ...spread]);
      for (let k = 0; k < 4; k++) {
        expect(scores[k]!.results[0]).toMatchObject({
          score: null,
          reason: "group_filtered",
          details: { filteredScore: expect.closeTo(0.62 + k * 0.001, 12) },
        });
        expect(advantages[k]).toBe(0); // under onUnscorable: zero the group is flat: no signal
      }
      expect(scores.slice(4).map((s) => s.results[0]!.score)).toEqual(
        [0.2, 0.5, 0.9].map((p) => expect.closeTo(p, 12)),
      );
    } finally {
      await scorer.close();
    }
  });

  it("collapsePenalty: the collapsed group's scores lose λ·(L − L_min)/(L_max − L_min); a spread group keeps its scores", async () => {
    const scorer = createScorer(
      parseSpec(`components:\n  - {name: lik, type: likelihood, form: mean-prob, collapsePenalty: 0.1}`, "t.yaml"),
      { concurrency: 1 },
    );
    try {
      const { scores } = await scoreBatch(scorer, [...collapsed, ...spread]);
      [0, 1 / 30, 2 / 30, 0.1].forEach((pen, k) => {
        expect(scores[k]!.results[0]!.score).toBeCloseTo(0.62 + k * 0.001 - pen, 12);
        expect(scores[k]!.results[0]!.details).toMatchObject({
          unpenalizedScore: expect.closeTo(0.62 + k * 0.001, 12),
        });
      });
      expect(scores.slice(4).map((s) => s.results[0]!.details!.collapsePenalty)).toEqual([
        undefined,
        undefined,
        undefined,
      ]);
    } finally {
      await scorer.close();
    }
  });
});
