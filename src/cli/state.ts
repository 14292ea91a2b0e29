import { existsSync, readFileSync } from "node:fs";
import type { ScheduleState } from "../schedule/runtime.js";
import { writeFileCreating } from "../io/output.js";
import { UsageError } from "./errors.js";

/** Reads a `--state` file; `undefined` when it does not exist yet (a first run). */
export function readStateFile(path: string): ScheduleState | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as ScheduleState;
  } catch (e) {
    throw new UsageError(`--state ${path}: not a JSON schedule state (${(e as Error).message})`);
  }
}

/** Writes a `--state` file (folders created). */
export function writeStateFile(path: string, state: ScheduleState): void {
  writeFileCreating(path, JSON.stringify(state) + "\n");
}

/** Parses `--steps 0,50,100` into step numbers. */
export function parseSteps(value: string): number[] {
  const steps = value.split(",").map((s) => s.trim());
  const out = steps.map(Number);
  if (steps.length === 0 || steps.some((s, k) => s === "" || !Number.isFinite(out[k]!) || out[k]! < 0)) {
    throw new UsageError(`--steps ${value}: expected comma-separated non-negative numbers, e.g. 0,50,100`);
  }
  return out;
}
