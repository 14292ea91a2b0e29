import { rmSync } from "node:fs";

/**
 * Temporary files and folders of running jobs (spill files, outputs not yet committed), removed by
 * {@link removeTemps} when the process is interrupted (the CLI's SIGINT/SIGTERM handler) and at process exit,
 * so no exit path leaves them behind. Each owner removes its own on the normal path and unregisters it.
 */
const temps = new Set<string>();
let hooked = false;

/** Registers a path to remove on interrupt or exit. */
export function registerTemp(path: string): void {
  temps.add(path);
  if (!hooked) {
    hooked = true;
    process.once("exit", removeTemps);
  }
}

/** Forgets a path its owner has removed (or renamed into place). */
export function unregisterTemp(path: string): void {
  temps.delete(path);
}

/** Removes every registered path now (synchronously; errors ignored). @returns how many there were. */
export function removeTemps(): number {
  const n = temps.size;
  for (const p of temps) {
    try {
      rmSync(p, { recursive: true, force: true });
    } catch {
      // best effort: an exit path must not throw
    }
  }
  temps.clear();
  return n;
}
