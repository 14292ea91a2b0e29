import { UserError } from "../core/errors.js";
import type { StrategyParams } from "./strategies/types.js";

type Kind = "int" | "rate" | "nonneg" | "bool";
/** Every strategy setting and what it must be. */
const SETTINGS: Record<keyof StrategyParams, Kind> = {
  smooth: "bool",
  floor: "nonneg",
  budget: "int",
  cap: "int",
  unit: "int",
  bins: "int",
  passRate: "rate",
  window: "int",
  review: "nonneg",
};

/** The settings' names, camelCase (the CLI's flags are their kebab-case forms, the server's query keys snake_case). */
export const STRATEGY_SETTINGS = Object.keys(SETTINGS) as Array<keyof StrategyParams>;

/**
 * Reads strategy settings from strings (CLI flags, query parameters).
 * @param get the raw value of a setting, undefined when absent.
 * @param label how a setting is named in errors (`--pass-rate`, `pass_rate`).
 * @throws {UserError} naming the setting and what it expects; `unit` below 2 too (see knapsack's proof).
 */
export function parseStrategyParams(
  get: (key: keyof StrategyParams) => string | boolean | undefined,
  label: (key: keyof StrategyParams) => string,
): StrategyParams {
  const out: StrategyParams = {};
  for (const key of STRATEGY_SETTINGS) {
    const raw = get(key);
    if (raw === undefined) continue;
    const kind = SETTINGS[key];
    if (kind === "bool") {
      if (raw === true || raw === "true" || raw === "1" || raw === "") out.smooth = true;
      else if (raw === false || raw === "false" || raw === "0") out.smooth = false;
      else throw new UserError(`${label(key)}: expected true or false, got ${JSON.stringify(raw)}`);
      continue;
    }
    const n = Number(raw);
    const ok =
      typeof raw === "string" &&
      raw.trim() !== "" &&
      Number.isFinite(n) &&
      (kind === "int" ? Number.isInteger(n) && n >= 1 : kind === "rate" ? n >= 0 && n <= 1 : n >= 0);
    const want = kind === "int" ? "a positive integer" : kind === "rate" ? "a number in [0, 1]" : "a number ≥ 0";
    if (!ok) throw new UserError(`${label(key)}: expected ${want}, got ${JSON.stringify(raw)}`);
    (out as Record<string, number>)[key] = n;
  }
  if (out.unit !== undefined && out.unit < 2)
    throw new UserError(`${label("unit")}: expected at least 2 (a group of one has no signal), got ${out.unit}`);
  return out;
}
