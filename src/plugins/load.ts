import { createRequire } from "node:module";
import { definitionProblem, pluginKind } from "./define.js";
import type { PluginDefinition } from "./define.js";

const load = createRequire(import.meta.url);

/**
 * Loads a plugin module (ESM `.mjs`/`.js` or CommonJS) synchronously — Node ≥ 20.19 `require()`s ES modules that
 * have no top-level `await` — so a spec loads in one synchronous step on the engine's thread and in each worker.
 * The module's default export is one definition made by a `define*` function, or an array of them.
 * @param file absolute path of the module.
 * @returns the definitions, or the problem in words (cannot load, nothing exported, not a definition).
 */
export function loadPluginFile(file: string): { definitions: PluginDefinition[] } | { error: string } {
  let mod: unknown;
  try {
    mod = load(file);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === "ERR_REQUIRE_ASYNC_MODULE")
      return { error: "the module uses top-level await; a plugin must load synchronously" };
    if (err.code === "MODULE_NOT_FOUND" || err.code === "ERR_MODULE_NOT_FOUND")
      return { error: `cannot load ${file}: ${err.message.split("\n")[0]}` };
    return { error: `loading ${file} threw: ${err.message?.split("\n")[0] ?? String(e)}` };
  }
  const exported = (mod as { default?: unknown } | null)?.default;
  if (exported === undefined)
    return {
      error: "the module has no default export (export default defineVerifier({...}), or an array of definitions)",
    };
  const list: unknown[] = Array.isArray(exported) ? exported : [exported];
  const definitions: PluginDefinition[] = [];
  for (const [k, d] of list.entries()) {
    const at = Array.isArray(exported) ? `default export [${k}]` : "the default export";
    const kind = pluginKind(d);
    if (!kind)
      return {
        error: `${at} is not a definition: make it with defineVerifier, defineAggregator, defineEstimator or defineSchedule (from "rewardkit")`,
      };
    const problem = definitionProblem(kind, d);
    if (problem) return { error: `${at}: ${problem}` };
    definitions.push(d as PluginDefinition);
  }
  return { definitions };
}
