import { accessSync, constants, existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";

/** Whether `path` is `dir` or inside it. */
function under(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith("/") ? dir : `${dir}/`);
}

/**
 * The host directories a user-provided Python interpreter needs inside the sandbox, each to be bound read-only at
 * its own path (nothing under `/usr`, which the sandbox already has): for a virtual environment
 * (`<venv>/bin/python3` next to `<venv>/pyvenv.cfg`) the venv itself and, when its base interpreter (`home =` of
 * `pyvenv.cfg`) lives outside `/usr` (uv, pyenv, conda), that interpreter's prefix; for a plain interpreter
 * outside `/usr`, its prefix (`<prefix>/bin/python3`). Symlinks are resolved, so a venv whose `python3` links to
 * `/usr/bin/python3.11` needs only the venv.
 *
 * Example: `/opt/venv/bin/python3` → `["/opt/venv"]`; `/usr/bin/python3` → `[]`.
 */
export function interpreterMounts(python: string): string[] {
  const dirs = new Set<string>();
  const add = (d: string): void => {
    if (!under(d, "/usr") && d !== "/") dirs.add(d);
  };
  const venv = dirname(dirname(python));
  const cfg = join(venv, "pyvenv.cfg");
  if (existsSync(cfg)) {
    add(venv);
    const home = /^\s*home\s*=\s*(.+?)\s*$/m.exec(readFileSync(cfg, "utf8"))?.[1];
    if (home && isAbsolute(home) && existsSync(home)) add(dirname(realpathSync(home)));
  }
  const real = realpathSync(python);
  if (![...dirs].some((d) => under(real, d))) add(dirname(dirname(real)));
  // a directory inside another bound one needs no mount of its own
  return [...dirs].filter((d) => ![...dirs].some((o) => o !== d && under(d, o))).sort();
}

/**
 * Why `python` cannot be the sandbox's interpreter (not absolute, missing, not executable), or undefined.
 * Example: `interpreterProblem("/opt/venv/bin/python3")` → undefined when that file exists and is executable.
 */
export function interpreterProblem(python: string): string | undefined {
  if (!isAbsolute(python)) return `python: ${python} is not an absolute path`;
  try {
    if (!statSync(python).isFile()) return `python: ${python} is not a file`;
    accessSync(python, constants.X_OK);
  } catch (e) {
    return `python: ${python} cannot be run (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
  }
  return undefined;
}
