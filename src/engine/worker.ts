/**
 * Worker-thread entry of the verifier pool. Instantiates the spec's worker-isolated components once per
 * thread (from plain data in `workerData`), then answers tasks `{component, input}` with a ComponentResult.
 * The main thread enforces the deadline by terminating this thread; nothing here needs to cooperate.
 */
import { workerData } from "node:worker_threads";
import { getVerifier } from "../verifiers/registry.js";
import type { VerifierInput, VerifyFn } from "../verifiers/types.js";
import type { ComponentResult } from "../core/types.js";
import type { WorkerComponent } from "./pool.js";

const fns = new Map<number, VerifyFn>();
for (const c of (workerData as { components: WorkerComponent[] }).components) {
  const def = getVerifier(c.type);
  if (!def) throw new Error(`unknown verifier type ${c.type}`);
  fns.set(c.index, def.create(def.options.parse(c.options)));
}

/** Runs one component on one rollout. */
export default async function run(task: { component: number; input: VerifierInput }): Promise<ComponentResult> {
  const fn = fns.get(task.component);
  if (!fn) throw new Error(`component ${task.component} is not loaded in this worker`);
  return fn(task.input);
}
