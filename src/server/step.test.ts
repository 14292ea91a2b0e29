import { describe, expect, it } from "vitest";
import { parseSpec } from "../spec/load.js";
import { Counter } from "./metrics.js";
import type { ServerContext } from "./context.js";
import { noteMissingStep } from "./step.js";

function ctxOf(yaml: string): ServerContext {
  const requestsWithoutStep = new Counter("rewardkit_requests_without_step_total", "h");
  return { spec: parseSpec(yaml, "s.yaml"), metrics: { requestsWithoutStep } } as unknown as ServerContext;
}
const SCHEDULED =
  "name: ramp\ncomponents:\n  - {name: acc, type: math, weight: {schedule: linear, from: 0, to: 1, endStep: 100}}\n";

describe("noteMissingStep", () => {
  it("counts every request of a scheduled spec that leaves rollouts without a step, and warns once", () => {
    const ctx = ctxOf(SCHEDULED);
    const lines: string[] = [];
    noteMissingStep(ctx, "/get_reward", 2, 2, (l) => lines.push(l));
    noteMissingStep(ctx, "/v1/score", 1, 4, (l) => lines.push(l));
    noteMissingStep(ctx, "/v1/score", 0, 4, (l) => lines.push(l)); // every rollout had a step
    expect(ctx.metrics.requestsWithoutStep.render()).toBe(
      '# HELP rewardkit_requests_without_step_total h\n# TYPE rewardkit_requests_without_step_total counter\nrewardkit_requests_without_step_total{route="/get_reward"} 1\nrewardkit_requests_without_step_total{route="/v1/score"} 1',
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      'spec "ramp" has schedules (components.acc.weight) but /get_reward got 2 of 2 rollouts without a training step',
    );
    expect(lines[0]).toContain("X-Rewardkit-Step");
  });

  it("a spec without schedules is never counted", () => {
    const ctx = ctxOf("components:\n  - {name: acc, type: math}\n");
    const lines: string[] = [];
    noteMissingStep(ctx, "/v1/score", 3, 3, (l) => lines.push(l));
    expect(lines).toEqual([]);
    expect(ctx.metrics.requestsWithoutStep.render()).not.toContain("route=");
  });
});
