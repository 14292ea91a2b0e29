import { Piscina } from "piscina";
import type { ComponentResult } from "../core/types.js";
import { unscorable } from "../core/types.js";
import type { VerifierInput } from "../verifiers/types.js";

/** A component as a worker instantiates it: plain data only. */
export interface WorkerComponent {
  index: number;
  type: string;
  options: Record<string, unknown>;
}

/** Options of a component at a rollout's step when some are scheduled, and their cache key (their JSON). */
export interface StepOptions {
  key: string;
  options: Record<string, unknown>;
}

// Resolves to dist/engine/worker.js from both src/engine (tests) and dist/engine (runtime):
// the worker always runs compiled JavaScript.
const WORKER_URL = new URL("../../dist/engine/worker.js", import.meta.url);

/**
 * A pool of worker threads running CPU-bound or untrusted-pattern verifiers under hard deadlines.
 * At most `threads` tasks are handed to the pool at once, so a task's deadline starts when it starts
 * running, not while it waits in a queue. A task past its deadline has its worker terminated (piscina
 * aborts a running task by destroying its thread) and yields `unscorable("timeout")`.
 */
export class VerifierPool {
  private readonly pool: Piscina;
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(components: WorkerComponent[], readonly threads: number) {
    this.pool = new Piscina({
      filename: WORKER_URL.href,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: 60_000,
      workerData: { components },
    });
  }

  /**
   * Runs component `component` on `input`, stopping it after `timeoutMs`. With `stepOptions` (a component with
   * scheduled options) the worker uses an instance made from those options (cached per thread by their key).
   * Never rejects: a thrown verifier error becomes `unscorable("worker_error")` with the message in details.
   */
  async run(component: number, input: VerifierInput, timeoutMs: number, stepOptions?: StepOptions): Promise<ComponentResult> {
    if (this.running >= this.threads) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), timeoutMs);
    try {
      const task = stepOptions ? { component, input, options: stepOptions.options, key: stepOptions.key } : { component, input };
      return (await this.pool.run(task, { signal: ac.signal })) as ComponentResult;
    } catch (e) {
      if (ac.signal.aborted) return unscorable("timeout", { timeoutMs });
      return unscorable("worker_error", { error: (e as Error).message });
    } finally {
      clearTimeout(timer);
      this.running--;
      this.waiting.shift()?.();
    }
  }

  /** Terminates every worker. */
  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
