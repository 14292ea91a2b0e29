import { removeTemps } from "../io/temp.js";

/** Exit codes of a run stopped by a signal: 128 + the signal's number, as a shell reports it. */
export const SIGNAL_EXIT: Readonly<Record<"SIGINT" | "SIGTERM", number>> = { SIGINT: 130, SIGTERM: 143 };

/**
 * Makes SIGINT and SIGTERM stop a file job cleanly. Until `job` calls its `finished()` argument (right after it
 * renamed its outputs into place), a signal removes the temporary files of every running job (spill, outputs not
 * yet committed: `src/io/temp.ts`), writes `message(signal)` on stderr (what was and was not written), and exits
 * 130 (SIGINT) or 143 (SIGTERM) at once. Outputs are only ever renamed into place in one synchronous step, which a
 * signal cannot interrupt, so they are either all the previous files or all the new ones. After `finished()` the
 * outputs are complete: a signal then says so and exits 0. The handlers stay installed until the process exits
 * (a CLI process runs one job), so no signal falls between the job's end and the exit. Worker threads end with
 * the process; sandboxes die with their parent (`--die-with-parent`).
 * @returns what `job` returns.
 */
export async function whileInterruptible<T>(
  job: (finished: () => void) => Promise<T>,
  message: (signal: NodeJS.Signals) => string,
): Promise<T> {
  let done = false;
  const on = (signal: "SIGINT" | "SIGTERM") => (): void => {
    if (done) {
      process.stderr.write(`\nrewardkit: ${signal} after the run had finished: its outputs are complete\n`);
      process.exit(0);
    }
    const n = removeTemps();
    process.stderr.write(
      `\nrewardkit: interrupted by ${signal}: ${message(signal)}${n > 0 ? ` (${n} temporary file(s) removed)` : ""}\n`,
    );
    process.exit(SIGNAL_EXIT[signal]);
  };
  process.on("SIGINT", on("SIGINT"));
  process.on("SIGTERM", on("SIGTERM"));
  return job(() => {
    done = true;
  });
}
