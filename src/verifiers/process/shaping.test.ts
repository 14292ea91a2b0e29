import { describe, expect, it } from "vitest";
import { prng } from "../../core/prng.js";
import { createProcessVerifier } from "./index.js";
import { potentialsFor, shapeRewards, shapingTerms } from "./shaping.js";
import type { ComponentResult, Rollout } from "../../core/types.js";

describe("potential-based shaping F = γΦ(s') − Φ(s), Φ(terminal) = 0", () => {
  it("by hand: Φ = [0.2, 0.5, 0.9], γ 1 → F = [0.3, 0.4, −0.9]; γ 0.5 → [0.05, −0.05, −0.9]", () => {
    const f = shapingTerms([0.2, 0.5, 0.9], 1);
    expect(f[0]).toBeCloseTo(0.3, 15);
    expect(f[1]).toBeCloseTo(0.4, 15);
    expect(f[2]).toBeCloseTo(-0.9, 15);
    const g = shapingTerms([0.2, 0.5, 0.9], 0.5);
    expect(g[0]).toBeCloseTo(0.05, 15);
    expect(g[1]).toBeCloseTo(-0.05, 15);
    expect(g[2]).toBeCloseTo(-0.9, 15);
  });

  it("for every trajectory the shaped return is the unshaped return − Φ(s_0) (γ = 1; discounted for γ < 1)", () => {
    const rand = prng(27);
    for (let trial = 0; trial < 500; trial++) {
      const K = 1 + Math.floor(rand() * 12);
      const rewards = Array.from({ length: K }, () => (rand() < 0.1 ? null : rand() * 4 - 2));
      const phi = Array.from({ length: K }, () => rand() * 10 - 5);
      const gamma = trial % 2 === 0 ? 1 : rand();
      const { rewards: shaped } = shapeRewards(rewards, phi, gamma);
      const ret = (xs: readonly (number | null)[]) => xs.reduce<number>((s, x, k) => s + gamma ** k * (x ?? 0), 0);
      expect(ret(shaped)).toBeCloseTo(ret(rewards) - phi[0]!, 9);
    }
  });

  it("potentials from step scores: Φ(s_0) = initial, Φ(s_k) = score of step k", () => {
    expect(
      potentialsFor({ type: "potential", gamma: 1, potential: "step-scores", initial: 0.1 }, undefined, [
        0.5,
        null,
        0.9,
      ]),
    ).toEqual([0.1, 0.5, 0]);
    expect(potentialsFor({ type: "potential", gamma: 1, potential: "rollout", initial: 0 }, [1], [0.5, 0.6])).toEqual({
      problem: "1 step_potentials for 2 steps",
    });
  });
});

describe("process with shaping and monteCarlo", () => {
  const process = createProcessVerifier(() => undefined);
  const run = async (rollout: Partial<Rollout>, options: Record<string, unknown>): Promise<ComponentResult> =>
    process.create(process.options.parse(options))({
      completion: "",
      reference: undefined,
      rollout: { id: "a", group: "g", completion: "", ...rollout },
    });

  it("step_rollouts → Monte-Carlo step scores; shaping moves step rewards, the score stays", async () => {
    const rollout = {
      steps: ["a", "b"],
      step_rollouts: [
        [0, 1],
        [1, 1, 1, 0],
        [true, true],
      ], // prompt alone, then through step 1, through step 2
      step_potentials: [0.5, 0.75],
    };
    const r = await run(rollout, { aggregate: "mean", monteCarlo: { score: "progress" } });
    // values v = [0.5, 0.75, 1] → progress [0.25, 0.25]
    expect(r).toMatchObject({ score: 0.25, details: { mc_values: [0.5, 0.75, 1], step_scores: [0.25, 0.25] } });
    const s = await run(rollout, { aggregate: "sum", monteCarlo: {}, shaping: { type: "potential" } });
    // soft values of steps 1, 2 = [0.75, 1]; F = [0.75 − 0.5, 0 − 0.75] = [0.25, −0.75]
    expect(s.score).toBe(1.75);
    expect(s.details).toMatchObject({
      step_rewards: [1, 0.25],
      shaping: { terms: [0.25, -0.75], unshaped: [0.75, 1] },
    });
  });

  it("monteCarlo and stepVerifier together are refused; a step_rollouts count that fits no split is invalid_steps", async () => {
    expect(process.options.safeParse({ monteCarlo: {}, stepVerifier: { type: "exact" } }).success).toBe(false);
    expect(await run({ steps: ["a"], step_rollouts: [[1], [1], [1]] }, { monteCarlo: {} })).toMatchObject({
      reason: "invalid_steps",
      details: { problem: "3 step_rollouts for 1 steps (expected 1, or 2 with the prompt first)" },
    });
    expect(
      (await run({ steps: ["a"], step_rollouts: [[1]] }, { monteCarlo: {}, shaping: { type: "potential" } })).reason,
    ).toBe("invalid_steps");
  });
});
