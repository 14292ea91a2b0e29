import { z } from "zod";
import type { ScheduleDefinition } from "./types.js";

const num = z.number().finite();
const step = z.number().finite().nonnegative();

/** `{schedule: constant, value: 0.5}` — the same value at every step. */
export const constantSchedule: ScheduleDefinition<{ value: number }> = {
  name: "constant",
  summary: "value at every step",
  options: z.strictObject({ value: num }),
  extremes: (o) => [o.value],
  at: (o) => () => o.value,
};

const piecewiseOptions = z
  .strictObject({
    /** Stages in increasing `startStep`; the first starts at step 0. Each holds its value until the next starts. */
    stages: z.array(z.strictObject({ startStep: step, value: num })).min(1, "give at least one stage"),
  })
  .superRefine((o, ctx) => {
    if (o.stages[0] && o.stages[0].startStep !== 0)
      ctx.addIssue({
        code: "custom",
        path: ["stages", 0, "startStep"],
        message: "the first stage must start at step 0",
      });
    for (let k = 1; k < o.stages.length; k++) {
      if (o.stages[k]!.startStep <= o.stages[k - 1]!.startStep) {
        ctx.addIssue({
          code: "custom",
          path: ["stages", k, "startStep"],
          message: `stages must start at increasing steps (${o.stages[k]!.startStep} ≤ ${o.stages[k - 1]!.startStep})`,
        });
      }
    }
  });
export type PiecewiseOptions = z.infer<typeof piecewiseOptions>;

/**
 * `{schedule: piecewise, stages: [{startStep: 0, value: 0}, {startStep: 200, value: 1}]}` — stages by step
 * (Run-then-Walk's phases, multi-stage curricula). v(s) = value of the last stage with startStep ≤ s.
 * Example: the stages above give v(199) = 0, v(200) = 1.
 */
export const piecewiseSchedule: ScheduleDefinition<PiecewiseOptions> = {
  name: "piecewise",
  summary: "stages by step: each stage's value from its startStep until the next stage",
  options: piecewiseOptions,
  extremes: (o) => o.stages.map((s) => s.value),
  at: (o) => {
    const starts = o.stages.map((s) => s.startStep);
    const values = o.stages.map((s) => s.value);
    return (s) => {
      let k = 0;
      while (k + 1 < starts.length && starts[k + 1]! <= s) k++;
      return values[k]!;
    };
  },
};

const rampOptions = z
  .strictObject({
    /** Value up to `startStep`. */
    from: num,
    /** Value from `endStep` on. */
    to: num,
    startStep: step.default(0),
    endStep: step,
  })
  .refine((o) => o.endStep > o.startStep, { message: "endStep must be greater than startStep", path: ["endStep"] });
export type RampOptions = z.infer<typeof rampOptions>;

/** Progress t ∈ [0, 1] through a ramp at step s. */
function progress(o: RampOptions, s: number): number {
  return Math.min(1, Math.max(0, (s - o.startStep) / (o.endStep - o.startStep)));
}

/**
 * `{schedule: linear, from: 0.5, to: 0, startStep: 0, endStep: 100}` — v(s) = from + (to − from)·t with
 * t = clamp((s − startStep) / (endStep − startStep), 0, 1).
 * Example: the ramp above gives v(0) = 0.5, v(50) = 0.25, v(100) = v(300) = 0.
 */
export const linearSchedule: ScheduleDefinition<RampOptions> = {
  name: "linear",
  summary: "linear ramp from `from` at startStep to `to` at endStep, constant outside",
  options: rampOptions,
  extremes: (o) => [o.from, o.to],
  at: (o) => (s) => o.from + (o.to - o.from) * progress(o, s),
};

/**
 * `{schedule: cosine, from: 1, to: 0, startStep: 0, endStep: 100}` — cosine annealing (Loshchilov & Hutter
 * 2017, without restarts): v(s) = to + (from − to)·(1 + cos(π·t))/2, t as in `linear`.
 * Example: from 1, to 0 over [0, 100]: v(0) = 1, v(25) = (1 + cos(π/4))/2 ≈ 0.853553, v(50) = 0.5, v(100) = 0.
 */
export const cosineSchedule: ScheduleDefinition<RampOptions> = {
  name: "cosine",
  summary: "cosine ramp from `from` at startStep to `to` at endStep, constant outside",
  options: rampOptions,
  extremes: (o) => [o.from, o.to],
  at: (o) => (s) => o.to + ((o.from - o.to) * (1 + Math.cos(Math.PI * progress(o, s)))) / 2,
};

const exponentialOptions = z.strictObject({
  /** Value up to `startStep`. */
  from: num,
  /** The value decayed towards (default 0). */
  to: num.default(0),
  /** Steps for the distance to `to` to halve. */
  halfLife: z.number().finite().positive(),
  startStep: step.default(0),
});
export type ExponentialOptions = z.infer<typeof exponentialOptions>;

/**
 * `{schedule: exponential, from: 1, to: 0, halfLife: 50}` — exponential decay (SophiaVL-R1's annealed thinking
 * reward, T93): v(s) = to + (from − to)·2^(−max(0, s − startStep)/halfLife).
 * Example: from 1, to 0, halfLife 50: v(0) = 1, v(50) = 0.5, v(100) = 0.25.
 */
export const exponentialSchedule: ScheduleDefinition<ExponentialOptions> = {
  name: "exponential",
  summary: "exponential decay from `from` towards `to`, halving the distance every halfLife steps",
  options: exponentialOptions,
  extremes: (o) => [o.from, o.to],
  at: (o) => (s) => o.to + (o.from - o.to) * 2 ** (-Math.max(0, s - o.startStep) / o.halfLife),
};
