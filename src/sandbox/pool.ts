import { availableParallelism } from "node:os";

/**
 * A bounded queue of sandbox slots. At most `size` runs execute at once; each gets its own slot number, which the
 * local backend turns into a uid (`uidBase + slot`) so that `prlimit --nproc` counts only that run's processes.
 * Waiting is a promise, never a busy loop: the engine's other work goes on while runs queue.
 */
export class SandboxPool {
  private readonly free: number[];
  private readonly waiting: Array<(slot: number) => void> = [];

  constructor(readonly size: number) {
    this.free = Array.from({ length: size }, (_, i) => size - 1 - i);
  }

  /** Runs `fn` on a free slot, waiting in FIFO order when all are busy. */
  async run<T>(fn: (slot: number) => Promise<T>): Promise<T> {
    const slot = this.free.pop() ?? (await new Promise<number>((resolve) => this.waiting.push(resolve)));
    try {
      return await fn(slot);
    } finally {
      const next = this.waiting.shift();
      if (next) next(slot);
      else this.free.push(slot);
    }
  }

  /** Runs in progress. */
  get busy(): number {
    return this.size - this.free.length;
  }

  /** Runs waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }
}

let shared: SandboxPool | undefined;

/**
 * The process-wide pool (one per engine, so slot uids never collide between components). The first caller's
 * size wins, default: available parallelism.
 */
export function sharedPool(size?: number): SandboxPool {
  shared ??= new SandboxPool(Math.max(1, size ?? availableParallelism()));
  return shared;
}
