import type { Command } from "commander";
import { registerEvaluateProcess } from "./evaluate-process.js";
import { registerEvaluateRm } from "./evaluate-rm.js";

/** A subcommand of `rewardkit evaluate`: registers itself on the `evaluate` command. */
export type EvaluateSubcommand = (evaluate: Command) => void;

/**
 * The `evaluate` subcommands, one entry each (`evaluate process` — ProcessBench first-error metrics). Adding a
 * benchmark (`evaluate rm`, …) is one file and one line here.
 */
const SUBCOMMANDS: EvaluateSubcommand[] = [registerEvaluateProcess, registerEvaluateRm];

/** `rewardkit evaluate <benchmark> …`: measure a reward signal against a labelled benchmark. */
export function registerEvaluate(program: Command): void {
  const evaluate = program.command("evaluate").description("measure a reward signal against a labelled benchmark");
  for (const register of SUBCOMMANDS) register(evaluate);
}
