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

/** How long a task may wait for a (re)starting worker to load before it counts as a crash. */
const STARTUP_ALLOWANCE_MS = 60_000;

/**
 * A pool of worker threads running CPU-bound or untrusted-pattern verifiers under hard deadlines.
 * The deadline counts from the moment the worker starts the task — not while the task waits for a slot, nor
 * while a replacement worker loads its modules after a kill. Each in-flight task owns a slot of a shared
 * `startedAt` array that the worker stamps when it begins; the main thread's timer re-arms until the stamp plus
 * `timeoutMs` has passed, then aborts: piscina destroys the running thread, and the task yields
 * `unscorable("timeout")`. At most `threads` tasks are handed to piscina at once.
 */
export class VerifierPool {
  private readonly pool: Piscina;
  private readonly waiting: Array<() => void> = [];
  /** Epoch ms at which the worker started the task in each slot; 0 = not started yet. */
  private readonly startedAt: BigInt64Array;
  private readonly freeSlots: number[];

  constructor(components: WorkerComponent[], readonly threads: number) {
    this.startedAt = new BigInt64Array(new SharedArrayBuffer(8 * threads));
    this.freeSlots = Array.from({ length: threads }, (_, i) => threads - 1 - i);
    this.pool = new Piscina({
      filename: WORKER_URL.href,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: 60_000,
      workerData: { components, startedAt: this.startedAt },
    });
  }

  /**
   * Runs component `component` on `input`, stopping it after `timeoutMs`. With `stepOptions` (a component with
   * scheduled options) the worker uses an instance made from those options (cached per thread by their key).
   * Never rejects: a thrown verifier error becomes `unscorable("worker_error")` with the message in details.
   */
  async run(component: number, input: VerifierInput, timeoutMs: number, stepOptions?: StepOptions): Promise<ComponentResult> {
    if (this.freeSlots.length === 0) await new Promise<void>((resolve) => this.waiting.push(resolve));
    const slot = this.freeSlots.pop()!;
    Atomics.store(this.startedAt, slot, 0n);
    const ac = new AbortController();
    const submitted = Date.now();
    let crashed = false;
    let timer: NodeJS.Timeout;
    const watch = (ms: number): void => {
      timer = setTimeout(() => {
        const started = Number(Atomics.load(this.startedAt, slot));
        const now = Date.now();
        if (started === 0) {
          // still loading (a replacement worker) or queued inside piscina: wait, within reason
          if (now - submitted < STARTUP_ALLOWANCE_MS) return watch(Math.min(timeoutMs, 1000));
          crashed = true;
          return ac.abort();
        }
        const left = started + timeoutMs - now;
        if (left > 0) return watch(left);
        ac.abort();
      }, ms);
    };
    watch(timeoutMs);
    try {
      const task = stepOptions ? { component, input, slot, options: stepOptions.options, key: stepOptions.key } : { component, input, slot };
      return (await this.pool.run(task, { signal: ac.signal })) as ComponentResult;
    } catch (e) {
      if (ac.signal.aborted && !crashed) return unscorable("timeout", { timeoutMs });
      return unscorable("worker_error", { error: crashed ? `no worker started the task within ${STARTUP_ALLOWANCE_MS} ms` : (e as Error).message });
    } finally {
      clearTimeout(timer!);
      this.freeSlots.push(slot);
      this.waiting.shift()?.();
    }
  }

  /** Terminates every worker. */
  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
