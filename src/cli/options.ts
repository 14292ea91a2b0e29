import { InvalidArgumentError } from "commander";
import { UsageError } from "./errors.js";

/** Commander reducer for repeatable options. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Parses a positive integer option. */
export function intOption(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("expected a positive integer");
  return n;
}

/** Parses a non-negative integer option (0 allowed, e.g. `--cache-size 0` disables the cache). */
export function countOption(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isInteger(n) || n < 0)
    throw new InvalidArgumentError("expected a non-negative integer");
  return n;
}

/**
 * Parses `key=value` settings; values are read as JSON when they parse (`1e-4`, `true`, `"x"`), else as strings.
 * @throws UsageError on an entry without `=`.
 */
export function parseSettings(entries: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const e of entries) {
    const at = e.indexOf("=");
    if (at <= 0) throw new UsageError(`${e}: expected key=value`);
    const v = e.slice(at + 1);
    try {
      out[e.slice(0, at)] = JSON.parse(v);
    } catch {
      out[e.slice(0, at)] = v;
    }
  }
  return out;
}

/**
 * Parses `--shard i/N` (shard i of N, 0 ≤ i < N; e.g. `--shard $JOB_COMPLETION_INDEX/8` in a Kubernetes Indexed Job).
 * @throws UsageError naming the flag.
 */
export function parseShard(value: string): { index: number; count: number } {
  const m = /^\s*(\d*)\s*\/\s*(\d*)\s*$/.exec(value);
  const index = m?.[1] ? Number(m[1]) : NaN;
  const count = m?.[2] ? Number(m[2]) : NaN;
  if (!(Number.isSafeInteger(index) && Number.isSafeInteger(count) && count >= 1 && index < count)) {
    const hint =
      m && m[1] === "" ? " (the index is empty: is the variable that holds it, e.g. $JOB_COMPLETION_INDEX, set?)" : "";
    throw new UsageError(`--shard: expected i/N with 0 ≤ i < N, e.g. 0/4; got ${JSON.stringify(value)}${hint}`);
  }
  return { index, count };
}
