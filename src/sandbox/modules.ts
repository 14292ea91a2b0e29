import type { HarnessTask, SandboxBackend, SandboxLimits } from "./types.js";

/** A Python module name: dotted identifiers (`sortedcontainers`, `numpy.linalg`). */
export const MODULE_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** Imports one module by name; True when it imports (any exception, not only ImportError, counts as missing). */
const PROBE = [
  "import importlib",
  "def f(name):",
  "    try:",
  "        importlib.import_module(name)",
  "        return True",
  "    except BaseException:",
  "        return False",
  "",
].join("\n");

/** What {@link missingModules} found: the modules that do not import, or why the probe itself could not run. */
export type ModuleCheck = { missing: string[] } | { error: string };

const cache = new Map<string, Promise<ModuleCheck>>();

/**
 * Which of `modules` the sandbox's Python cannot import, found by running one program in the sandbox itself (so a
 * venv that is not bound, or a module that fails under seccomp, counts as missing): one `call` test per module.
 * Cached per backend (its `key`: backend, interpreter or URL), module list and limits; a probe that could not
 * run is not cached.
 *
 * Example: `missingModules(backend, ["sortedcontainers", "numpy"], limits)` → `{missing: ["numpy"]}` on a host
 * with python3-sortedcontainers but not python3-numpy.
 */
export function missingModules(
  backend: SandboxBackend,
  modules: readonly string[],
  limits: SandboxLimits,
): Promise<ModuleCheck> {
  const names = [...new Set(modules)].sort();
  if (names.length === 0) return Promise.resolve({ missing: [] });
  const key = JSON.stringify([backend.key ?? backend.name, names, limits]);
  const hit = cache.get(key);
  if (hit) return hit;
  const task: HarnessTask = {
    kind: "call",
    program: PROBE,
    entryPoint: "f",
    cases: names.map((n) => ({ input: [n], output: true })),
  };
  const result = backend.run("python", task, limits).then(
    (r): ModuleCheck => {
      if (r.sandboxError !== undefined) return { error: r.sandboxError };
      if (r.statuses.length !== names.length)
        return { error: `the module probe reported ${r.statuses.length} of ${names.length} modules` };
      if (r.statuses.some((s) => s !== "pass" && s !== "fail"))
        return { error: `the module probe failed: ${[...r.messages.values()][0] ?? r.statuses.join(", ")}` };
      return { missing: names.filter((_, i) => r.statuses[i] !== "pass") };
    },
    (e: unknown): ModuleCheck => ({ error: (e as Error).message }),
  );
  cache.set(key, result);
  void result.then((c) => {
    if ("error" in c) cache.delete(key);
  });
  return result;
}
