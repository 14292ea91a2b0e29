import type { PromptRow } from "../stats.js";

/**
 * Settings of a strategy (`rewardkit curriculum` flags, `/v1/curriculum` query parameters). Each strategy reads
 * the ones it documents; defaults are its own.
 */
export interface StrategyParams {
  /** Use the Beta posterior instead of the raw pass rate (see each strategy). */
  smooth?: boolean;
  /** success-guided: weight floor ε added to every prompt (default 0.01), so none is never drawn. */
  floor?: number;
  /** knapsack: rollouts to distribute (default 8 per prompt). */
  budget?: number;
  /** knapsack: most rollouts per prompt (default 16). */
  cap?: number;
  /** knapsack: rollouts are given in multiples of this (default 2: the smallest group with signal). */
  unit?: number;
  /** difficulty-bins: number of stages (default 3). */
  bins?: number;
  /** difficulty-bins: a stage is passed when its EW pass rate reaches this (default 0.8, as `performance`). */
  passRate?: number;
  /** difficulty-bins: a stage is judged once its prompts have this many attempts (default 100, as `performance`). */
  window?: number;
  /** difficulty-bins: weight of a passed stage's prompts relative to the current stage's (default 0.1). */
  review?: number;
}

/** One prompt's weight, and what else the strategy says of it (knapsack: `rollouts`; difficulty-bins: `stage`). */
export interface Weighted {
  weight: number;
  extra?: Record<string, number>;
}

/** A sampling strategy over prompts: pure, from the prompts' rows to one weight each (same order). */
export interface StrategyDefinition {
  name: string;
  /** One line for `--help` and docs. */
  summary: string;
  /** Weights, one per row, ≥ 0 and summing to 1 (or all 0 when nothing deserves a draw). */
  weigh(rows: readonly PromptRow[], params: StrategyParams): Weighted[];
}

/** Weights scaled to sum to 1 (all 0 stays all 0). */
export function normalize(ws: readonly number[]): number[] {
  const s = ws.reduce((a, b) => a + b, 0);
  return s > 0 ? ws.map((w) => w / s) : ws.map(() => 0);
}
