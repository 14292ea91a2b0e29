/**
 * On-policy distillation token rewards against verl's own code: test/fixtures/dense/verl-distill-goldens.json holds
 * what verl@1dda039b's `kl_penalty(student, teacher, "k1")`, its `loss_max_clamp` clamp and its policy-gradient
 * advantages `-distillation_losses` give on every rollout of examples/data/dense-rollouts.jsonl (real TGI log-probs),
 * computed by scripts/distill-peer-goldens.py from a fetched checkout (nothing of verl is copied here).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { distillTokenRewards } from "../src/verifiers/dense/distill.js";
import { ROOT, readJsonl } from "./helpers.js";

interface Golden {
  peer: string;
  commit: string;
  cases: Array<{ id: string; clip: number | null; token_rewards: number[] }>;
}
interface Row {
  id: string;
  student_logprobs: number[];
  teacher_logprobs: number[];
}

const golden = JSON.parse(readFileSync(join(ROOT, "test/fixtures/dense/verl-distill-goldens.json"), "utf8")) as Golden;
const rows = new Map(readJsonl<Row>(join(ROOT, "examples/data/dense-rollouts.jsonl")).map((r) => [r.id, r]));

describe("distill token rewards = verl's on-policy distillation advantages (verl@1dda039b, real log-probs)", () => {
  it("covers every replay rollout, unclipped and with loss_max_clamp 0.05", () => {
    expect(golden).toMatchObject({ peer: "verl", commit: "1dda039b9c6311889a9c9a26040677e1254814f9" });
    expect(golden.cases).toHaveLength(2 * rows.size);
    expect(rows.size).toBe(52);
  });

  it("every token agrees to 1e-12 (560 tokens × 2 settings)", () => {
    let tokens = 0;
    let worst = 0;
    for (const c of golden.cases) {
      const r = rows.get(c.id)!;
      const ours = distillTokenRewards(r.student_logprobs, r.teacher_logprobs, c.clip ?? undefined);
      expect(ours).toHaveLength(c.token_rewards.length);
      ours.forEach((x, t) => (worst = Math.max(worst, Math.abs(x - c.token_rewards[t]!))));
      tokens += ours.length;
    }
    expect(tokens).toBe(1120);
    expect(worst).toBeLessThanOrEqual(1e-12);
  });
});
