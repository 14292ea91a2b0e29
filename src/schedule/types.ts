import type { z } from "zod";

/** A value as a function of the training step (steps are integers ≥ 0; any number is accepted). */
export type StepFn = (step: number) => number;

/**
 * A schedule type, registered by name and written in a spec as `{schedule: <name>, ...options}` in place of a
 * number. `options` validates everything but the `schedule` key (unknown keys are errors).
 */
export interface ScheduleDefinition<O = unknown> {
  /** kebab-case name used in specs (`linear`). */
  name: string;
  /** One line for `rewardkit check`. */
  summary: string;
  options: z.ZodType<O>;
  /**
   * The values at the schedule's breakpoints. Every value the schedule takes lies between their min and max, so
   * compile validates the scheduled option with each of them (not only with the step-0 value).
   */
  extremes(options: O): number[];
  /** The value at a step. For a stateful schedule (`performance`), the value before any result is seen. */
  at(options: O): StepFn;
  /** True when the value depends on scoring results (kept in a {@link ScheduleRuntime} state), not on the step alone. */
  stateful?: boolean;
}

/** Where a scheduled value goes: a component's weight, its passThreshold, or one of its type options. */
export type ScheduleTarget = "weight" | "passThreshold" | "option";

/** A schedule found in a spec, compiled. Plain data plus its step function. */
export interface ScheduledOption {
  /** Option path `components.<name>.<key>` (what `check --steps` prints). */
  path: string;
  /** Index of the component that owns the option. */
  component: number;
  /** The key on the component (`weight`, `passThreshold`, or a type option such as `penaltyFactor`). */
  key: string;
  target: ScheduleTarget;
  /** Schedule type name. */
  schedule: string;
  /** Validated schedule options (defaults filled). */
  params: Record<string, unknown>;
  /** Value at a step; for a stateful schedule, the start value. */
  at: StepFn;
  /** For a `performance` schedule: index of the component whose pass rate is tracked. */
  tracks?: number;
}

/** What the schedule runtime reads of a compiled spec (a `CompiledSpec` is one): base values and the schedules. */
export interface ScheduleSpec {
  components: ReadonlyArray<{ weight: number; passThreshold: number; options: Record<string, unknown> }>;
  schedules: readonly ScheduledOption[];
}
