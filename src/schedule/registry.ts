import { performanceSchedule } from "./performance.js";
import { constantSchedule, cosineSchedule, exponentialSchedule, linearSchedule, piecewiseSchedule } from "./step.js";
import type { ScheduleDefinition } from "./types.js";

/** The schedule registry: `schedule:` name → definition. Adding a schedule is one file and one line here. */
const registry = new Map<string, ScheduleDefinition<unknown>>(
  ([constantSchedule, piecewiseSchedule, linearSchedule, cosineSchedule, exponentialSchedule, performanceSchedule] as unknown as ScheduleDefinition<unknown>[]).map((d) => [d.name, d]),
);

/** Looks up a schedule type; `undefined` when unknown. */
export function getSchedule(name: string): ScheduleDefinition<unknown> | undefined {
  return registry.get(name);
}

/** All schedule names, in registry order. */
export function scheduleNames(): string[] {
  return [...registry.keys()];
}

/** Is this spec value a schedule object (`{schedule: ...}`) rather than a plain value? */
export function isScheduleObject(v: unknown): v is { schedule: unknown } & Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) && "schedule" in v;
}
