/**
 * A bounded set of numbered slots, `0 … size − 1`. At most `size` runs hold a slot at once; the others wait in
 * FIFO order. A freed slot is handed straight to the next waiter, so a caller arriving in between can never take
 * it (and no waiter ever wakes to find none). Waiting is a promise, never a busy loop.
 */
export class SlotPool {
  private readonly free: number[];
  private readonly waiting: Array<(slot: number) => void> = [];

  constructor(readonly size: number) {
    this.free = Array.from({ length: size }, (_, i) => size - 1 - i);
  }

  /** Runs `fn` on a free slot, waiting in FIFO order when all are busy; the slot is freed however `fn` ends. */
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
