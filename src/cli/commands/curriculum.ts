import type { Command } from "commander";
import { writeFileCreating } from "../../io/output.js";
import { DEFAULT_CURRICULUM } from "../../curriculum/options.js";
import { STRATEGY_SETTINGS, parseStrategyParams } from "../../curriculum/params.js";
import { strategies } from "../../curriculum/strategies/registry.js";
import { CurriculumStateError, PromptTable } from "../../curriculum/table.js";
import { curriculumRows } from "../../curriculum/weights.js";
import { UserError } from "../../core/errors.js";
import { UsageError } from "../errors.js";
import { countOption } from "../options.js";
import { readStateFile } from "../state.js";

const kebab = (k: string): string => k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** Flag text of each strategy setting. */
const HELP: Record<(typeof STRATEGY_SETTINGS)[number], string> = {
  smooth: "use the Beta posterior instead of the raw pass rate (success-guided: E[p(1-p)]; others: posterior mean)",
  floor: "success-guided: weight floor added to every prompt (default 0.01)",
  budget: "knapsack: rollouts to distribute (default 8 per prompt)",
  cap: "knapsack: most rollouts per prompt (default 16)",
  unit: "knapsack: rollouts are given in multiples of this, >= 2 (default 2)",
  bins: "difficulty-bins: number of stages, easy to hard (default 3)",
  passRate: "difficulty-bins: a stage is passed at this EW pass rate (default 0.8)",
  window: "difficulty-bins: a stage is judged after this many attempts (default 100)",
  review: "difficulty-bins: weight of passed stages' prompts relative to the current stage (default 0.1)",
};

interface CurriculumOpts {
  state: string;
  strategy: string;
  output?: string;
  replay?: number;
  [setting: string]: unknown;
}

/** The prior saved with the statistics (the spec's `curriculum.prior`), else Beta(1, 1). */
function priorOf(c: Record<string, unknown>): { a: number; b: number } {
  const p = c.prior as { a?: unknown; b?: unknown } | undefined;
  return typeof p?.a === "number" && typeof p.b === "number" && p.a > 0 && p.b > 0
    ? { a: p.a, b: p.b }
    : DEFAULT_CURRICULUM.prior;
}

/** `rewardkit curriculum --state <file> --strategy <name>`: sampling weights per prompt from the recorded statistics. */
export function registerCurriculum(program: Command): void {
  const cmd = program
    .command("curriculum")
    .description(
      "sampling weights per prompt from the statistics `score --state` (or `serve --state`) recorded: one JSONL row {prompt_id, weight, pass_rate, attempts, ...} per prompt (docs/curriculum.md)",
    )
    .requiredOption("--state <file>", "state file written by rewardkit score --state or rewardkit serve --state")
    .option(`--strategy <name>`, `${strategies.names().join(" | ")}`, "success-guided")
    .option("-o, --output <file>", "JSONL out (default: stdout); folders are created")
    .option("--replay <n>", "print the replay buffer's groups (up to n; 0: all) instead of weights", countOption);
  for (const k of STRATEGY_SETTINGS) cmd.option(k === "smooth" ? "--smooth" : `--${kebab(k)} <value>`, HELP[k]);
  cmd.action((o: CurriculumOpts) => {
    const state = readStateFile(o.state);
    if (!state) throw new UsageError(`--state ${o.state}: no such file (score with --state first)`);
    const c = state.curriculum as Record<string, unknown> | undefined;
    if (c === undefined || c === null || typeof c !== "object")
      throw new UsageError(
        `--state ${o.state}: holds no per-prompt statistics (field curriculum); it was written before rewardkit recorded them: score with --state again`,
      );
    let lines: unknown[];
    try {
      if (o.replay !== undefined) {
        const groups = Array.isArray(c.replay) ? (c.replay as unknown[]) : [];
        if (!Array.isArray(c.replay))
          throw new UserError("curriculum.replay: none recorded (the spec has no replay: block)");
        lines = o.replay === 0 ? groups.slice().reverse() : groups.slice().reverse().slice(0, o.replay);
      } else {
        const table = new PromptTable(typeof c.alpha === "number" ? c.alpha : DEFAULT_CURRICULUM.alpha, Infinity);
        table.restore(c);
        const params = parseStrategyParams(
          (k) => o[k] as string | boolean | undefined,
          (k) => `--${kebab(k)}`,
        );
        lines = curriculumRows(table.entries(), priorOf(c), o.strategy, params);
      }
    } catch (e) {
      if (e instanceof CurriculumStateError) throw new UsageError(`--state ${o.state}: ${e.message}`);
      if (e instanceof UserError) throw new UsageError(e.message);
      throw e;
    }
    const text = lines.map((l) => JSON.stringify(l)).join("\n") + (lines.length > 0 ? "\n" : "");
    if (o.output !== undefined && o.output !== "-") writeFileCreating(o.output, text);
    else process.stdout.write(text);
  });
}
