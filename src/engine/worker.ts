/**
 * Worker-thread entry of the verifier pool. Instantiates the spec's worker-isolated components once per
 * thread (from plain data in `workerData`), then answers tasks `{component, rollout}` with a ComponentResult.
 * Each task stamps its slot of the shared `startedAt` array first: the deadline counts from there.
 * A task of a component with scheduled options also carries `options` and their `key`: the instance for those
 * options is made on first use and kept in a small per-thread LRU (a ramp gives one instance per distinct value).
 * The main thread enforces the deadline by terminating this thread; nothing here needs to cooperate.
 */
import { workerData } from "node:worker_threads";
import { getVerifier } from "../verifiers/registry.js";
import type { VerifierDefinition, VerifierInput, VerifyFn } from "../verifiers/types.js";
import { PLUGIN_KIND } from "../plugins/define.js";
import type { ComponentResult, Rollout } from "../core/types.js";
import { completionText } from "../core/completion.js";
import { BoundedCache } from "../core/cache.js";
import { loadPluginFile } from "../plugins/load.js";
import type { WorkerComponent } from "./pool.js";

/** A built-in type, or a plugin's: its module is loaded here (once; the engine's thread validated it already). */
function definition(c: WorkerComponent): VerifierDefinition | undefined {
  if (c.module === undefined) return getVerifier(c.type);
  const loaded = loadPluginFile(c.module);
  if ("error" in loaded) throw new Error(`plugin ${c.module}: ${loaded.error}`);
  return loaded.definitions.find(
    (d): d is Extract<typeof d, VerifierDefinition> => d[PLUGIN_KIND] === "verifier" && d.type === c.type,
  );
}

const { startedAt } = workerData as { startedAt: BigInt64Array };
const defs = new Map<number, VerifierDefinition>();
const fns = new Map<number, VerifyFn>();
for (const c of (workerData as { components: WorkerComponent[] }).components) {
  const def = definition(c);
  if (!def) throw new Error(`unknown verifier type ${c.type}`);
  defs.set(c.index, def);
  fns.set(c.index, def.create(def.options.parse(c.options)));
}
const stepped = new BoundedCache<VerifyFn>(64);

/** Runs one component on one rollout. */
export default async function run(task: {
  component: number;
  rollout: Rollout;
  slot: number;
  /** Sent only when they differ from what the rollout itself gives. */
  completion?: string;
  reference?: unknown;
  options?: Record<string, unknown>;
  key?: string;
}): Promise<ComponentResult> {
  Atomics.store(startedAt, task.slot, BigInt(Date.now())); // the deadline counts from here
  const own = "completion" in task;
  const input: VerifierInput = {
    completion: own ? task.completion! : completionText(task.rollout.completion),
    reference: own ? task.reference : task.rollout.reference,
    rollout: task.rollout,
  };
  if (task.options !== undefined) {
    const k = `${task.component}\u0000${task.key}`;
    let fn = stepped.get(k);
    if (!fn) {
      const def = defs.get(task.component);
      if (!def) throw new Error(`component ${task.component} is not loaded in this worker`);
      fn = def.create(def.options.parse(task.options));
      stepped.set(k, fn);
    }
    return fn(input);
  }
  const fn = fns.get(task.component);
  if (!fn) throw new Error(`component ${task.component} is not loaded in this worker`);
  return fn(input);
}
