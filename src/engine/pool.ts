import { Piscina } from "piscina";
import type { ComponentResult } from "../core/types.js";
import { unscorable } from "../core/types.js";
import { SlotPool } from "../core/slots.js";
import type { VerifierInput } from "../verifiers/types.js";

/** A component as a worker instantiates it: plain data only. */
export interface WorkerComponent {
  index: number;
  type: string;
  options: Record<string, unknown>;
  /** Absolute path of the plugin module that defines `type` (absent for built-ins): the worker loads it. */
  module?: string;
}

/** Options of a component at a rollout's step when some are scheduled, and their cache key (their JSON). */
export interface StepOptions {
  key: string;
  options: Record<string, unknown>;
}

// Resolves to dist/engine/worker.js from both src/engine (tests) and dist/engine (runtime):
// the worker always runs compiled JavaScript. Tests cannot run a stale build: vitest's global setup
// (test/global-setup.ts) rebuilds dist/ when src/ changed since the last build.
const WORKER_URL = new URL("../../dist/engine/worker.js", import.meta.url);

/** How long a task may wait for a (re)starting worker to load before it counts as a crash. */
const STARTUP_ALLOWANCE_MS = 60_000;

/** Tasks handed to each worker at once: pipelining hides the main-thread round trip between two tasks. */
const DEPTH = 4;

/**
 * A pool of worker threads running CPU-bound or untrusted-pattern verifiers under hard deadlines.
 *
 * Up to {@link DEPTH} tasks per thread are in flight, so a worker never idles waiting for the main thread. The
 * deadline counts from the moment the worker starts a task — not while it waits behind another task, nor while a
 * replacement worker loads its modules after a kill: each in-flight task owns a slot of a shared `startedAt`
 * array that the worker stamps when it begins, and the main thread's timer re-arms until stamp + `timeoutMs` has
 * passed, then aborts. Piscina then destroys the running thread: the task yields `unscorable("timeout")`, and any
 * other task that fails with that thread (an innocent bystander) is run once more on a fresh worker.
 */
export class VerifierPool {
  private readonly pool: Piscina;
  /** Epoch ms at which the worker started the task in each slot; 0 = not started yet. */
  private readonly startedAt: BigInt64Array;
  private readonly slots: SlotPool;

  constructor(
    components: WorkerComponent[],
    readonly threads: number,
  ) {
    const slots = threads * DEPTH;
    this.startedAt = new BigInt64Array(new SharedArrayBuffer(8 * slots));
    this.slots = new SlotPool(slots);
    this.pool = new Piscina({
      filename: WORKER_URL.href,
      minThreads: threads,
      maxThreads: threads,
      concurrentTasksPerWorker: DEPTH,
      idleTimeout: 60_000,
      workerData: { components, startedAt: this.startedAt },
    });
  }

  /**
   * Runs component `component` on `input`, stopping it after `timeoutMs`. With `stepOptions` (a component with
   * scheduled options) the worker uses an instance made from those options (cached per thread by their key).
   * Never rejects: a thrown verifier error becomes `unscorable("worker_error")` with the message in details.
   */
  run(component: number, input: VerifierInput, timeoutMs: number, stepOptions?: StepOptions): Promise<ComponentResult> {
    return this.slots.run(async (slot) => {
      // Only the rollout crosses the thread boundary when it carries the same completion text and reference (the
      // scorer's case; the worker derives both from it): sending the completion twice made cloning a third of a
      // task's cost. An input that differs from its rollout (chat messages, a caller's own input) sends them explicitly.
      const rollout = input.rollout;
      const own =
        rollout.completion === input.completion && rollout.reference === input.reference
          ? {}
          : { completion: input.completion, reference: input.reference };
      const task = {
        component,
        rollout,
        slot,
        ...own,
        ...(stepOptions ? { options: stepOptions.options, key: stepOptions.key } : {}),
      };
      const first = await this.attempt(task, slot, timeoutMs);
      // A failure that is not our deadline may be a sibling's kill taking this task down with its thread:
      // run it once more. A verifier that really throws fails twice and is reported.
      return first.retry ? (await this.attempt(task, slot, timeoutMs)).result : first.result;
    });
  }

  private async attempt(
    task: object,
    slot: number,
    timeoutMs: number,
  ): Promise<{ result: ComponentResult; retry: boolean }> {
    Atomics.store(this.startedAt, slot, 0n);
    const ac = new AbortController();
    const submitted = Date.now();
    // Queued behind at most DEPTH − 1 tasks of the same thread, each bounded by its own deadline, plus a reload.
    const allowance = Math.max(STARTUP_ALLOWANCE_MS, 2 * DEPTH * timeoutMs);
    let crashed = false;
    let timer: NodeJS.Timeout;
    const watch = (ms: number): void => {
      timer = setTimeout(() => {
        const started = Number(Atomics.load(this.startedAt, slot));
        const now = Date.now();
        if (started === 0) {
          // not started: queued behind another task of its thread, or a replacement worker still loading
          if (now - submitted < allowance) return watch(Math.min(timeoutMs, 1000));
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
      return { result: (await this.pool.run(task, { signal: ac.signal })) as ComponentResult, retry: false };
    } catch (e) {
      if (ac.signal.aborted && !crashed) return { result: unscorable("timeout", { timeoutMs }), retry: false };
      const error = crashed ? `no worker started the task within ${allowance} ms` : (e as Error).message;
      return { result: unscorable("worker_error", { error }), retry: !crashed };
    } finally {
      clearTimeout(timer!);
    }
  }

  /** Terminates every worker. */
  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
