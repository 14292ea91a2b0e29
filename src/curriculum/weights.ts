import { UserError } from "../core/errors.js";
import { promptRow } from "./stats.js";
import type { PromptStats } from "./stats.js";
import { strategies } from "./strategies/registry.js";
import type { StrategyParams } from "./strategies/types.js";

/**
 * One line of `rewardkit curriculum` / `GET /v1/curriculum`: the weight the strategy gives the prompt, its raw pass
 * rate (successes / attempts) and attempts (rollouts seen), and the other statistics (the strategy's extra columns
 * too: knapsack's `rollouts`, difficulty-bins' `stage`).
 */
export interface CurriculumRow {
  prompt_id: string;
  weight: number;
  pass_rate: number;
  attempts: number;
  successes: number;
  ew_pass_rate: number;
  posterior_mean: number;
  mean: number | null;
  variance: number | null;
  last_step: number;
  [extra: string]: unknown;
}

/**
 * Weighs prompts with a named strategy. Rows are sorted by prompt id (the output does not depend on the order in
 * which prompts were seen). @throws {UserError} for an unknown strategy, naming the known ones.
 */
export function curriculumRows(
  prompts: ReadonlyArray<readonly [string, PromptStats]>,
  prior: { a: number; b: number },
  strategy: string,
  params: StrategyParams = {},
): CurriculumRow[] {
  const def = strategies.get(strategy);
  if (!def) throw new UserError(`unknown curriculum strategy "${strategy}"; known: ${strategies.names().join(", ")}`);
  const rows = [...prompts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([id, s]) => promptRow(id, s, prior));
  const ws = def.weigh(rows, params);
  return rows.map((r, i) => ({
    prompt_id: r.prompt_id,
    weight: ws[i]!.weight,
    pass_rate: r.pass_rate,
    attempts: r.attempts,
    successes: r.successes,
    ew_pass_rate: r.ew_pass_rate,
    posterior_mean: r.posterior_mean,
    mean: r.mean,
    variance: r.variance,
    last_step: r.last_step,
    ...(Object.keys(r.component_pass_rates).length > 0 ? { component_pass_rates: r.component_pass_rates } : {}),
    ...ws[i]!.extra,
  }));
}
