import { describe, expect, it } from "vitest";
import type { ComponentResult, Rollout } from "../core/types.js";
import { parseSpec } from "../spec/load.js";
import { processComponent, STEP_EPSILON, StepAdvantages, tokenSpans } from "./step-advantages.js";

const spec = parseSpec(
  `components:\n  - {name: acc, type: contains, value: x}\n  - {name: p, type: process, weight: 0}`,
  "t.yaml",
);
const result = (stepRewards: (number | null)[] | undefined, extra: Record<string, unknown> = {}): ComponentResult[] => [
  { score: 1, status: "ok" },
  stepRewards
    ? { score: 0, status: "ok", details: { steps: stepRewards.length, step_rewards: stepRewards, ...extra } }
    : { score: null, status: "unscorable", reason: "invalid_steps", details: { steps: 2 } },
];
const rollout = (id: string, extra: Record<string, unknown> = {}): Rollout => ({
  id,
  group: "g",
  completion: "",
  ...extra,
});

describe("step_advantages = A_i + α·(r̃_{i,k} − μ_g)/(σ_g + ε)", () => {
  it("hand-computed: two rollouts of one group", () => {
    const s = StepAdvantages.forSpec(spec)!;
    s.add(rollout("a"), result([1, 0]));
    s.add(rollout("b"), result([0.5]));
    s.compute([0, 0], [0.7, -0.7]);
    // the group's step rewards {1, 0, 0.5}: μ = 0.5, σ (population) = sqrt(1/6) = 0.4082482904638631
    const sd = Math.sqrt(1 / 6) + STEP_EPSILON;
    const a = s.fields(0).step_advantages!;
    expect(a[0]).toBeCloseTo(0.7 + 0.5 / sd, 12);
    expect(a[1]).toBeCloseTo(0.7 - 0.5 / sd, 12);
    expect(a[0]).toBeCloseTo(0.7 + 1.2247418, 6);
    expect(s.fields(1).step_advantages).toEqual([-0.7]); // at the group mean: the outcome advantage
  });

  it("α scales the step term (α = 0 broadcasts A_i); groups are normalized apart", () => {
    const s = StepAdvantages.forSpec(spec)!;
    s.add(rollout("a"), result([1, 0], { advantage_weight: 0.5 }));
    s.add(rollout("b"), result([0, 0], { advantage_weight: 0 }));
    s.add({ ...rollout("c"), group: "h" }, result([0.3, 0.9]));
    s.compute([0, 0, 1], [1, -1, 0]);
    // group 0: {1, 0, 0, 0}: μ = 0.25, σ = sqrt(0.1875)
    const sd = Math.sqrt(0.1875) + STEP_EPSILON;
    expect(s.fields(0).step_advantages![0]).toBeCloseTo(1 + (0.5 * 0.75) / sd, 12);
    expect(s.fields(1).step_advantages).toEqual([-1, -1]);
    // group 1: {0.3, 0.9}: μ = 0.6, σ = 0.3
    const c = s.fields(2).step_advantages!;
    expect(c[0]).toBeCloseTo(-0.3 / (0.3 + STEP_EPSILON), 12);
    expect(c[1]).toBeCloseTo(0.3 / (0.3 + STEP_EPSILON), 12);
  });

  it("an unscorable step or component gets the outcome advantage; a null advantage gives null", () => {
    const s = StepAdvantages.forSpec(spec)!;
    s.add(rollout("a", { steps: ["x", "y"] }), result(undefined));
    s.add(rollout("b"), result([1, null, 0]));
    s.add(rollout("c"), result([0.5]));
    s.compute([0, 0, 0], [0.25, -0.25, NaN]);
    expect(s.fields(0).step_advantages).toEqual([0.25, 0.25]);
    const b = s.fields(1).step_advantages!;
    expect(b[1]).toBe(-0.25);
    expect(b[0]).toBeCloseTo(-0.25 + 0.5 / (0.5 + STEP_EPSILON), 12); // {1, 0} (c is out: its advantage is null)
    expect(s.fields(2).step_advantages).toBeNull();
  });

  it("broadcasts to tokens: [[start, end], …] spans or start offsets; tokens outside steps get A_i", () => {
    const s = StepAdvantages.forSpec(spec)!;
    s.add(
      rollout("a", {
        step_token_offsets: [
          [0, 2],
          [3, 5],
        ],
        completion_tokens: 6,
      }),
      result([1, 0]),
    );
    s.add(rollout("b", { step_token_offsets: [0, 3], completion_tokens: 5 }), result([0, 1]));
    s.add(
      rollout("c", {
        step_token_offsets: [
          [0, 4],
          [2, 5],
        ],
      }),
      result([0, 1]),
    );
    s.compute([0, 0, 0], [0.5, -0.5, 0]);
    const a = s.fields(0);
    const [s0, s1] = a.step_advantages!;
    expect(a.token_advantages).toEqual([s0, s0, 0.5, s1, s1, 0.5]);
    const b = s.fields(1);
    expect(b.token_advantages).toEqual([
      b.step_advantages![0],
      b.step_advantages![0],
      b.step_advantages![0],
      b.step_advantages![1],
      b.step_advantages![1],
    ]);
    expect(s.fields(2)).toMatchObject({ token_advantages_error: "step_token_offsets[1] overlaps the previous step" });
    expect(s.jsonSuffix(0)).toBe(
      `,"step_advantages":${JSON.stringify(a.step_advantages)},"token_advantages":${JSON.stringify(a.token_advantages)}`,
    );
  });

  it("checks offsets against the step count and completion_tokens", () => {
    expect(tokenSpans([[0, 1]], 2, undefined)).toEqual({ problem: "1 step_token_offsets for 2 steps" });
    expect(tokenSpans([0, 2], 2, undefined)).toMatchObject({ problem: expect.stringContaining("completion_tokens") });
    expect(tokenSpans([[0, 9]], 1, 4)).toMatchObject({
      problem: "step_token_offsets end at 9, past completion_tokens 4",
    });
    expect(
      tokenSpans(
        [
          [0, 2],
          [2, 4],
        ],
        2,
        undefined,
      ),
    ).toEqual({
      spans: [
        [0, 2],
        [2, 4],
      ],
      length: 4,
    });
  });

  it("uses the first counting process component, and none without one", () => {
    const two = parseSpec(
      `components:\n  - {name: a, type: process, weight: 0}\n  - {name: b, type: process, weight: 1}`,
      "t.yaml",
    );
    expect(processComponent(two)).toBe(1);
    expect(
      StepAdvantages.forSpec(parseSpec(`components:\n  - {name: a, type: contains, value: x}`, "t.yaml")),
    ).toBeUndefined();
  });
});
