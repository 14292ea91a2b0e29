import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { tokenShare, weightedJudgePreference } from "../src/verifiers/likelihood/judge.js";
import type { TopLogprob } from "../src/verifiers/likelihood/judge.js";
import { ROOT } from "./helpers.js";

/**
 * RewardBench's AlpacaEval best-of-16 annotations: 805 instructions × samples 0–10 of tulu-2-dpo-13b (output_2)
 * against gpt-3.5-turbo-0613 (output_1), judged by weighted_alpaca_eval_gpt4_turbo. We rebuild every recorded
 * `preference` from the judge's top-5 log-probs and measure agreement.
 */
interface Annotation {
  instruction: string;
  preference: number;
  raw_completion: { logprobs?: { content: Array<{ token: string; top_logprobs: TopLogprob[] }> } } | null;
}

// test/fixtures/reward-bench-bon: the 11 annotation files reduced to the fields read here (see its SOURCE.md)
const rows: Annotation[] = gunzipSync(readFileSync(join(ROOT, "test/fixtures/reward-bench-bon/judgments.jsonl.gz")))
  .toString("utf8")
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as Annotation);
const TOL = 1e-9;
const judged = rows.map((r) => {
  const top = r.raw_completion?.logprobs?.content[0]?.top_logprobs;
  if (!top) return undefined;
  const inOrder = weightedJudgePreference(top, false)!;
  const swapped = weightedJudgePreference(top, true)!;
  return {
    row: r,
    inOrder,
    swapped,
    fitsInOrder: Math.abs(inOrder - r.preference) <= TOL,
    fitsSwapped: Math.abs(swapped - r.preference) <= TOL,
  };
});
const withLogprobs = judged.filter((j) => j !== undefined);

describe("RewardBench judge preferences rebuilt from top-5 log-probs", () => {
  it("8855 judgments; 8826 carry log-probs, each with one judge token; the 29 without were recorded as ties (1.5)", () => {
    expect(rows).toHaveLength(8855);
    expect(withLogprobs).toHaveLength(8826);
    expect(withLogprobs.every((j) => j.row.raw_completion!.logprobs!.content.length === 1)).toBe(true);
    expect(rows.filter((_, k) => judged[k] === undefined).map((r) => r.preference)).toEqual(new Array(29).fill(1.5));
  });

  it("the strength |preference − 1.5| = |P(m)/(P(m)+P(M)) − 0.5| matches on all 8826 (1e-9)", () => {
    const agree = withLogprobs.filter(
      (j) => Math.abs(Math.abs(j.inOrder - 1.5) - Math.abs(j.row.preference - 1.5)) <= TOL,
    ).length;
    expect(agree).toBe(8826);
    // "m" is always among the top 5, "M" in all but one (share 1 there)
    expect(
      withLogprobs.filter(
        (j) => tokenShare(j.row.raw_completion!.logprobs!.content[0]!.top_logprobs, "M", ["M"]) === undefined,
      ),
    ).toHaveLength(1);
  });

  it("1 + P(m)/(P(m)+P(M)) alone matches 4462 (50.6 %): the judge saw the pair swapped for about half the instructions", () => {
    expect(withLogprobs.filter((j) => j.fitsInOrder).length).toBe(4462);
    expect(withLogprobs.filter((j) => j.fitsSwapped).length).toBe(4382);
    expect(withLogprobs.filter((j) => j.fitsInOrder && j.fitsSwapped).length).toBe(18); // P(m) = P(M): 1.5 either way
    expect(withLogprobs.filter((j) => !j.fitsInOrder && !j.fitsSwapped)).toHaveLength(0);
  });

  it("with the order inferred from the other samples of the same instruction (leave-one-out), all 8826 match", () => {
    const byInstruction = new Map<string, number[]>();
    withLogprobs.forEach((j, k) =>
      byInstruction.set(j.row.instruction, [...(byInstruction.get(j.row.instruction) ?? []), k]),
    );
    // the order never changes within an instruction
    for (const ks of byInstruction.values()) {
      const orders = new Set(
        ks
          .map((k) => withLogprobs[k]!)
          .filter((j) => j.fitsInOrder !== j.fitsSwapped)
          .map((j) => j.fitsSwapped),
      );
      expect(orders.size).toBeLessThanOrEqual(1);
    }
    let agree = 0;
    let winner = 0;
    withLogprobs.forEach((j, k) => {
      let swappedVotes = 0;
      let inOrderVotes = 0;
      for (const o of byInstruction.get(j.row.instruction)!) {
        const s = withLogprobs[o]!;
        if (o === k || s.fitsInOrder === s.fitsSwapped) continue;
        if (s.fitsSwapped) swappedVotes++;
        else inOrderVotes++;
      }
      const pred = swappedVotes > inOrderVotes ? j.swapped : j.inOrder;
      if (Math.abs(pred - j.row.preference) <= TOL) agree++;
      if (Math.sign(pred - 1.5) === Math.sign(j.row.preference - 1.5)) winner++;
    });
    expect(agree).toBe(8826);
    expect(winner).toBe(8826);
  });
});
