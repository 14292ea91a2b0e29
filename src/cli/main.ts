import { Command, CommanderError } from "commander";
import { readFileSync } from "node:fs";
import { UserError } from "../core/errors.js";
const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };

type Register = (program: Command) => void;

/**
 * Each command's module, loaded only when that command runs (a `score` process does not load the server, the
 * probe or the report code: start-up time is part of every run).
 */
const COMMANDS: [name: string, load: () => Promise<Register>][] = [
  ["score", async () => (await import("./commands/score.js")).registerScore],
  ["merge", async () => (await import("./commands/merge.js")).registerMerge],
  ["check", async () => (await import("./commands/check.js")).registerCheck],
  ["advantages", async () => (await import("./commands/advantages.js")).registerAdvantages],
  ["audit", async () => (await import("./commands/audit.js")).registerAudit],
  ["serve", async () => (await import("./commands/serve.js")).registerServe],
  ["evaluate", async () => (await import("./commands/evaluate.js")).registerEvaluate],
  ["probe", async () => (await import("./commands/probe.js")).registerProbe],
  ["report", async () => (await import("./commands/report.js")).registerReport],
  ["curriculum", async () => (await import("./commands/curriculum.js")).registerCurriculum],
];

/**
 * Builds the `rewardkit` command line. Exit codes: 0 ok, 1 usage or input error, 2 internal error.
 * @param only the command about to run: only its module is loaded (absent or unknown: every command, for help).
 */
export async function buildProgram(only?: string): Promise<Command> {
  const program = new Command("rewardkit")
    .description("rewardkit: reward engine for RL post-training of language models")
    .version(pkg.version)
    .showHelpAfterError()
    .exitOverride();
  const known = COMMANDS.some(([name]) => name === only);
  for (const [name, load] of COMMANDS) if (!known || name === only) (await load())(program);
  return program;
}

/**
 * Runs the CLI with `argv` (as `process.argv`) and returns the exit code: 0 ok (also when the reader of stdout
 * closed it early), 1 a {@link UserError} or a file that cannot be read, 2 anything else (internal error).
 */
export async function main(argv: string[]): Promise<number> {
  try {
    await (await buildProgram(argv[2])).parseAsync(argv);
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
