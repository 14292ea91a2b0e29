import { isAbsolute, resolve } from "node:path";
import { estimators, withFilter } from "../advantage/registry.js";
import type { EstimatorDefinition } from "../advantage/types.js";
import { aggregators } from "../compose/registry.js";
import type { AggregatorDefinition } from "../compose/types.js";
import type { Registry } from "../core/registry.js";
import { schedules } from "../schedule/registry.js";
import type { ScheduleDefinition } from "../schedule/types.js";
import { verifiers } from "../verifiers/registry.js";
import type { VerifierDefinition } from "../verifiers/types.js";
import { PLUGIN_KIND } from "./define.js";
import type { LoadedPlugin, PluginKind } from "./define.js";
export type { LoadedPlugin } from "./define.js";
import { loadPluginFile } from "./load.js";

/** Every name a spec can use: the built-in registries, plus its plugins' definitions. */
export interface Catalog {
  verifiers: Registry<VerifierDefinition>;
  aggregators: Registry<AggregatorDefinition>;
  estimators: Registry<EstimatorDefinition>;
  schedules: Registry<ScheduleDefinition>;
  /** Absolute path of the plugin module that defines verifier `type` (workers load it from there); `undefined` for built-ins. */
  verifierModule(type: string): string | undefined;
}

/** The built-ins only. */
export const BUILTINS: Catalog = { verifiers, aggregators, estimators, schedules, verifierModule: () => undefined };

/** A problem with one `plugins:` entry (its index in the list). */
export interface PluginIssue {
  index: number;
  message: string;
}

/**
 * Loads a spec's `plugins:` (paths relative to `baseDir`) and adds their definitions to the built-ins. A name
 * already taken — by a built-in or by an earlier plugin — is refused, so a plugin can never replace `math`.
 * @returns the catalog and what was loaded, or one issue per bad entry.
 */
export function withPlugins(
  paths: readonly string[],
  baseDir: string,
): { catalog: Catalog; plugins: LoadedPlugin[] } | { issues: PluginIssue[] } {
  const issues: PluginIssue[] = [];
  const plugins: LoadedPlugin[] = [];
  const added = {
    verifier: [] as VerifierDefinition[],
    aggregator: [] as AggregatorDefinition[],
    estimator: [] as EstimatorDefinition[],
    schedule: [] as ScheduleDefinition[],
  };
  const owner = new Map<string, number>(); // `${kind} ${name}` → plugins index
  const modules = new Map<string, string>();
  const taken: Record<PluginKind, (name: string) => boolean> = {
    verifier: (n) => verifiers.has(n),
    aggregator: (n) => aggregators.has(n),
    estimator: (n) => estimators.has(n),
    schedule: (n) => schedules.has(n),
  };
  paths.forEach((path, index) => {
    const file = isAbsolute(path) ? path : resolve(baseDir, path);
    const loaded = loadPluginFile(file);
    if ("error" in loaded) return issues.push({ index, message: loaded.error });
    const defines: string[] = [];
    for (const d of loaded.definitions) {
      const kind = d[PLUGIN_KIND];
      const name = d[PLUGIN_KIND] === "verifier" || d[PLUGIN_KIND] === "aggregator" ? d.type : d.name;
      const label = `${kind === "verifier" ? "verifier type" : kind} "${name}"`;
      const key = `${kind} ${name}`;
      if (taken[kind](name))
        issues.push({ index, message: `${label} is built in; a plugin cannot redefine it (choose another name)` });
      else if (owner.has(key))
        issues.push({ index, message: `${label} is already defined by plugins[${owner.get(key)}]` });
      else {
        owner.set(key, index);
        switch (d[PLUGIN_KIND]) {
          case "verifier":
            added.verifier.push(d);
            modules.set(name, file);
            break;
          case "aggregator":
            added.aggregator.push(d);
            break;
          case "estimator":
            added.estimator.push(withFilter(d));
            break;
          case "schedule":
            added.schedule.push(d);
            break;
        }
        defines.push(`${kind} ${name}`);
      }
    }
    plugins.push({ path, file, defines });
  });
  if (issues.length > 0) return { issues };
  return {
    catalog: {
      verifiers: verifiers.with(added.verifier),
      aggregators: aggregators.with(added.aggregator),
      estimators: estimators.with(added.estimator),
      schedules: schedules.with(added.schedule),
      verifierModule: (type) => modules.get(type),
    },
    plugins,
  };
}
