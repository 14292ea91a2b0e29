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
