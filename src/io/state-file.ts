import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { UserError } from "../core/errors.js";
import { writeFileCreating, writtenInPlace } from "./output.js";

/**
 * Reads a state file (`score --state`, `serve --state`) as a JSON object; `undefined` when it does not exist yet
 * (a first run) or is a device or pipe (`--state /dev/null`).
 * @param flag how the file is named in errors (`--state state.json`).
 * @throws {UserError} naming the file when it is not a JSON object: a corrupt state is never silently reset.
 */
export function readStateObject(path: string, flag: string): Record<string, unknown> | undefined {
  // no file yet, or a device (`--state /dev/null`: keep nothing between runs)
  if (!existsSync(path) || writtenInPlace(path)) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new UserError(`${flag}: not a JSON schedule state (${(e as Error).message})`);
  }
  if (v === null || typeof v !== "object" || Array.isArray(v))
    throw new UserError(
      `${flag}: line 1: expected a JSON object (a rewardkit state), got ${Array.isArray(v) ? "an array" : String(v)}`,
    );
  return v as Record<string, unknown>;
}

/**
 * Writes a state file as one JSON line, under a temporary name renamed into place (never half written); a device or
 * named pipe (`--state /dev/null`) is written in place, never replaced ({@link writtenInPlace}).
 */
export function writeStateAtomic(path: string, state: unknown): void {
  if (writtenInPlace(path)) {
    writeFileSync(path, JSON.stringify(state) + "\n");
    return;
  }
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileCreating(tmp, JSON.stringify(state) + "\n");
  renameSync(tmp, path);
}
