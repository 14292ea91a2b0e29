import { Command, CommanderError } from "commander";
import { readFileSync } from "node:fs";
import { UserError } from "../core/errors.js";
import { registerAdvantages } from "./commands/advantages.js";
import { registerAudit } from "./commands/audit.js";
import { registerCheck } from "./commands/check.js";
import { registerEvaluate } from "./commands/evaluate.js";
import { registerMerge } from "./commands/merge.js";
import { registerProbe } from "./commands/probe.js";
import { registerReport } from "./commands/report.js";
import { registerScore } from "./commands/score.js";
import { registerServe } from "./commands/serve.js";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };

/** Builds the `rewardkit` command line. Exit codes: 0 ok, 1 usage or input error, 2 internal error. */
export function buildProgram(): Command {
  const program = new Command("rewardkit")
    .description("rewardkit: reward engine for RL post-training of language models")
    .version(pkg.version)
    .showHelpAfterError()
    .exitOverride();
  registerScore(program);
  registerMerge(program);
  registerCheck(program);
  registerAdvantages(program);
  registerAudit(program);
  registerServe(program);
  registerEvaluate(program);
  registerProbe(program);
  registerReport(program);
  return program;
}

/**
 * Runs the CLI with `argv` (as `process.argv`) and returns the exit code: 0 ok (also when the reader of stdout
 * closed it early), 1 a {@link UserError} or a file that cannot be read, 2 anything else (internal error).
 */
export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 1; // commander already printed the message
    if (e instanceof UserError) {
      process.stderr.write(`rewardkit: ${e.message}\n`);
      // a UserError may carry its own code (probe --fail-on: 3)
      const code = (e as { exitCode?: unknown }).exitCode;
      return typeof code === "number" ? code : 1;
    }
    const err = e as NodeJS.ErrnoException;
    // the reader of our stdout went away (`rewardkit score … | head`): nothing is wrong and nobody is listening
    if (err.code === "EPIPE") return 0;
    if (err.code === "ENOENT" || err.code === "EACCES" || err.code === "EISDIR") {
      process.stderr.write(`rewardkit: ${err.message}\n`);
      return 1;
    }
    process.stderr.write(`rewardkit: internal error: ${err.stack ?? String(e)}\n`);
    return 2;
  }
}
