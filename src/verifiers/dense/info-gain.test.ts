import { describe, expect, it } from "vitest";
import type { ComponentResult, Rollout } from "../../core/types.js";
import { belief, infoGainRewards, infoGainVerifier } from "./info-gain.js";

const run = (rollout: Partial<Rollout>, options: Record<string, unknown> = {}): ComponentResult => {
  const fn = infoGainVerifier.create(infoGainVerifier.options.parse(options));
  return fn({
    completion: "",
    reference: undefined,
    rollout: { id: "a", group: "g", completion: "", ...rollout },
  }) as ComponentResult;
};
const ln = Math.log;

describe("info-gain (IGPO): per-turn gain in the gold answer's probability, outcome on the last turn", () => {
  it("P = [0.1, 0.4, 0.3] (one-token gold answer), outcome 1 → turn_rewards [0.3, −0.1, 1], score 1.2", () => {
    const r = run({ gold_logprobs: [[ln(0.1)], [ln(0.4)], [ln(0.3)]], outcome: 1 });
    expect(r.status).toBe("ok");
    expect(r.turn_rewards![0]).toBeCloseTo(0.3, 14);
    expect(r.turn_rewards![1]).toBeCloseTo(-0.1, 14);
    expect(r.turn_rewards![2]).toBe(1);
    expect(r.score).toBeCloseTo(1.2, 14);
    expect(infoGainRewards([0.1, 0.4, 0.3], 1)).toHaveLength(3);
  });

  it("geo-prob is exp of the mean token log-prob: [ln 0.5, ln 0.125] → 0.25; other forms by option", () => {
    expect(belief("geo-prob", [ln(0.5), ln(0.125)])).toBeCloseTo(0.25, 15);
    expect(belief("mean-prob", [ln(0.5), ln(0.125)])).toBeCloseTo(0.3125, 15);
    const r = run(
      {
        gold_logprobs: [
          [ln(0.5), ln(0.125)],
          [ln(0.5), ln(0.5)],
        ],
        outcome: false,
      },
      { form: "logprob" },
    );
    expect(r.turn_rewards![0]).toBeCloseTo(ln(0.25) - ln(0.0625), 14); // ln 4
    expect(r.turn_rewards![1]).toBe(0);
  });

  it("a chat completion's assistant turns must match; the gold answer's token count must not change", () => {
    const completion = [
      { role: "assistant", content: "search" },
      { role: "tool", content: "…" },
      { role: "assistant", content: "answer" },
    ];
    const gold = [[ln(0.1)], [ln(0.4)]];
    expect(run({ completion, gold_logprobs: gold, outcome: 1 }).status).toBe("ok");
    expect(run({ completion, gold_logprobs: [...gold, [ln(0.5)]], outcome: 1 })).toMatchObject({
      reason: "length_mismatch",
      details: { lengths: { gold_logprobs: 3, assistant_turns: 2 } },
    });
    expect(run({ gold_logprobs: [[ln(0.1)], [ln(0.4), -1]], outcome: 1 }).reason).toBe("length_mismatch");
  });

  it("missing gold log-probs or outcome, bad values: unscorable", () => {
    expect(run({ outcome: 1 })).toMatchObject({ score: null, reason: "logprob_error" });
    expect(run({ gold_logprobs: [[-1]] }).reason).toBe("no_outcome");
    expect(run({ gold_logprobs: [[0.5]], outcome: 1 })).toMatchObject({
      reason: "logprob_error",
      details: { field: "gold_logprobs[0]" },
    });
  });

  it("policy trick: belief that dips and recovers nets the same score; a turn that guesses the answer is paid", () => {
    const monotone = run({ gold_logprobs: [[ln(0.1)], [ln(0.2)], [ln(0.5)]], outcome: 1 });
    const dip = run({ gold_logprobs: [[ln(0.1)], [ln(0.01)], [ln(0.5)]], outcome: 1 });
    expect(monotone.score).toBeCloseTo(dip.score!, 14); // the gains telescope: P_{T−1} − P_0 + outcome
    // the policy's own belief is the signal: a turn that merely restates a guess of the answer (no search) raises
    // P(answer | context) and is rewarded like a useful search. IGPO accepts this; rewardkit documents it.
    const guess = run({ gold_logprobs: [[ln(0.1)], [ln(0.9)]], outcome: 0 });
    expect(guess.turn_rewards![0]).toBeCloseTo(0.8, 14);
  });

  it("shaping: the shaped turn rewards sum to the unshaped minus Φ(s_0); the score is the unshaped sum", () => {
    const r = run(
      { gold_logprobs: [[ln(0.1)], [ln(0.4)], [ln(0.3)]], outcome: 1, step_potentials: [0.5, 0.2, 0.7] },
      { shaping: { type: "potential" } },
    );
    const sum = r.turn_rewards!.reduce((a, b) => a + b, 0);
    expect(sum).toBeCloseTo(1.2 - 0.5, 14);
    expect(r.score).toBeCloseTo(1.2, 14);
  });
});
