import { performanceSchedule } from "./performance.js";
import { constantSchedule, cosineSchedule, exponentialSchedule, linearSchedule, piecewiseSchedule } from "./step.js";
import type { ScheduleDefinition } from "./types.js";
import { defineRegistry } from "../core/registry.js";
import type { Registry } from "../core/registry.js";

/** The schedule registry: `schedule:` name → definition. Adding a schedule is one file and one line here. */
export const schedules: Registry<ScheduleDefinition> = defineRegistry<ScheduleDefinition>("schedule", (d) => d.name, [
  constantSchedule,
  piecewiseSchedule,
  linearSchedule,
  cosineSchedule,
  exponentialSchedule,
  performanceSchedule,
]);

/** Looks up a schedule type; `undefined` when unknown. */
export function getSchedule(name: string): ScheduleDefinition<unknown> | undefined {
  return schedules.get(name);
}

/** All schedule names, sorted. */
export function scheduleNames(): string[] {
  return schedules.names();
}

/** Is this spec value a schedule object (`{schedule: ...}`) rather than a plain value? */
export function isScheduleObject(v: unknown): v is { schedule: unknown } & Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) && "schedule" in v;
}
