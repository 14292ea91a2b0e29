import { describe, expect, it } from "vitest";
import type { ComponentResult, Rollout } from "../../core/types.js";
import { implicitPrmVerifier, implicitTokenRewards } from "./implicit-prm.js";

const run = (rollout: Partial<Rollout>, options: Record<string, unknown> = {}): ComponentResult => {
  const fn = implicitPrmVerifier.create(implicitPrmVerifier.options.parse(options));
  return fn({
    completion: "",
    reference: undefined,
    rollout: { id: "a", group: "g", completion: "", ...rollout },
  }) as ComponentResult;
};

describe("implicit-prm: β·(log π_φ − log π_ref) per token, by hand", () => {
  const two = { completion_ids: [1, 2], policy_logprobs: [-1, -1], ref_logprobs: [-2, -0.5] };

  it("β 0.5: token_rewards [0.5, −0.25], score = sum 0.25 (PRIME's implicit outcome reward), mean 0.125", () => {
    expect(run(two, { beta: 0.5 })).toMatchObject({ status: "ok", score: 0.25, token_rewards: [0.5, -0.25] });
    expect(run(two, { beta: 0.5, score: "mean" }).score).toBe(0.125);
    expect(implicitPrmVerifier.options.parse({}).beta).toBe(0.05); // PRIME's default
  });

  it("step_token_offsets: step rewards = Σ of their tokens, aggregated by a process aggregation", () => {
    const r = {
      completion_ids: [1, 2, 3, 4],
      policy_logprobs: [-1, -1, -1, -1],
      ref_logprobs: [-2, -0.5, -1.5, -3],
      step_token_offsets: [
        [0, 2],
        [2, 4],
      ],
    };
    // tokens [0.5, −0.25, 0.25, 1] (β 0.5) → steps [0.25, 1.25]
    expect(run(r, { beta: 0.5, aggregate: "min" })).toMatchObject({
      score: 0.25,
      token_rewards: [0.5, -0.25, 0.25, 1],
      details: { steps: 2, step_scores: [0.25, 1.25], step_rewards: [0.25, 1.25] },
    });
    expect(run(r, { beta: 0.5 }).score).toBe(1.5); // default `sum` = the token sum
    // clip-delta with η 0: c = min(r, 0) = [0, 0] → score c_1 = 0
    expect(run(r, { beta: 0.5, aggregate: "clip-delta" }).score).toBe(0);
    expect(run({ ...r, step_token_offsets: [0, 2] }, { beta: 0.5, aggregate: "last" }).score).toBe(1.25); // starts
    expect(run(r, { beta: 0.5, steps: false }).score).toBe(1.5);
  });

  it("offsets past the tokens or malformed: invalid_steps; tokens outside every step count in no step", () => {
    const r = { completion_ids: [1, 2], policy_logprobs: [-1, -1], ref_logprobs: [-2, -0.5] };
    expect(run({ ...r, step_token_offsets: [[0, 3]] }).reason).toBe("invalid_steps");
    expect(run({ ...r, step_token_offsets: [[0, 1]] }, { beta: 0.5 })).toMatchObject({
      score: 0.5,
      details: { step_scores: [0.5] },
    });
    expect(run({ ...r, step_token_offsets: "x" }).reason).toBe("invalid_steps");
  });

  it("missing or mismatched log-probs: unscorable with a reason", () => {
    expect(run({ policy_logprobs: [-1] })).toMatchObject({ score: null, reason: "logprob_error" });
    expect(run({ ...two, ref_logprobs: [-2] })).toMatchObject({ score: null, reason: "length_mismatch" });
    expect(run({ ...two, completion_ids: [1] }).reason).toBe("length_mismatch");
    // an overflowing token reward is unscorable even where the step aggregation (min) would stay finite
    const huge = { policy_logprobs: [0, -1], ref_logprobs: [-1e308, -1], step_token_offsets: [0, 1] };
    expect(run(huge, { beta: 1e10, aggregate: "min" })).toMatchObject({ score: null, reason: "logprob_error" });
  });

  it("policy trick: tokens the PRM likes more than the reference pay per token, so padding grows the sum", () => {
    // a filler token the implicit PRM has drifted to like (log π_φ −0.1 vs log π_ref −1.1: +0.05 each at β 0.05)
    const base = { policy_logprobs: [-1, -2], ref_logprobs: [-1.5, -2] };
    const pad = (n: number) => ({
      policy_logprobs: [...base.policy_logprobs, ...new Array<number>(n).fill(-0.1)],
      ref_logprobs: [...base.ref_logprobs, ...new Array<number>(n).fill(-1.1)],
    });
    expect(run(base).score).toBeCloseTo(0.025, 12);
    expect(run(pad(20)).score).toBeCloseTo(0.025 + 20 * 0.05, 12); // 1.025: 41× for 20 filler tokens
    // the step-bounded aggregations do not pay for length: min over two steps stays with the worse step
    const steps = { ...pad(20), step_token_offsets: [0, 2] };
    expect(run(steps, { aggregate: "min" }).score).toBeCloseTo(0.025, 12);
    expect(implicitTokenRewards([-0.1], [-0.1], 1)).toEqual([0]);
  });
});
