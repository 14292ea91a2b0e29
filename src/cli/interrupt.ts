import { removeTemps } from "../io/temp.js";

/** Exit codes of a run stopped by a signal: 128 + the signal's number, as a shell reports it. */
export const SIGNAL_EXIT: Readonly<Record<"SIGINT" | "SIGTERM", number>> = { SIGINT: 130, SIGTERM: 143 };

/**
 * Makes SIGINT and SIGTERM stop a file job cleanly while `job` runs: the temporary files of every running job
 * (spill, outputs not yet committed: `src/io/temp.ts`) are removed, `message(signal)` is written on stderr (what
 * was and was not written), and the process exits 130 (SIGINT) or 143 (SIGTERM) at once, with nothing half
 * written. Outputs are only ever renamed into place in one synchronous step, which a signal cannot interrupt, so
 * they are either all the previous files or all the new ones. Worker threads end with the process; sandboxes die
 * with their parent (`--die-with-parent`).
 * @returns what `job` returns; the handlers are removed when it settles.
 */
export async function whileInterruptible<T>(job: () => Promise<T>, message: (signal: NodeJS.Signals) => string): Promise<T> {
  const on = (signal: "SIGINT" | "SIGTERM") => (): void => {
    const n = removeTemps();
    process.stderr.write(`\nrewardkit: interrupted by ${signal}: ${message(signal)}${n > 0 ? ` (${n} temporary file(s) removed)` : ""}\n`);
    process.exit(SIGNAL_EXIT[signal]);
  };
  const int = on("SIGINT");
  const term = on("SIGTERM");
  process.on("SIGINT", int);
  process.on("SIGTERM", term);
  try {
    return await job();
  } finally {
    process.off("SIGINT", int);
    process.off("SIGTERM", term);
  }
}
