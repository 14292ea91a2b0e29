import type { ScheduleState } from "../schedule/runtime.js";
import { writeFileCreating } from "../io/output.js";
import { readStateObject } from "../io/state-file.js";
import { UsageError } from "./errors.js";

/** A `--state` file: the performance schedules' state and, since the curriculum issue, the per-prompt statistics. */
export type StateFile = ScheduleState & { curriculum?: unknown };

/**
 * Reads a `--state` file; `undefined` when it does not exist yet (a first run).
 * @throws {UsageError} naming the file when it is not a JSON object (a corrupt file is never silently reset).
 */
export function readStateFile(path: string): StateFile | undefined {
  try {
    return readStateObject(path, `--state ${path}`) as StateFile | undefined;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** Writes a `--state` file (folders created). */
export function writeStateFile(path: string, state: StateFile): void {
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
