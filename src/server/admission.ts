/**
 * Admission control: at most `capacity` rollouts are admitted and unanswered at any time, over all requests.
 * A request that does not fit is refused at once (the server answers 429 with `Retry-After`) instead of
 * waiting in an unbounded queue, so memory stays bounded under any load.
 */
export class Admission {
  private pending = 0;
  private readonly idle: Array<() => void> = [];
  /** Exponentially weighted rollouts/s of recent work, for `Retry-After`. */
  private rate = 0;
  private lastDone = performance.now();

  constructor(readonly capacity: number) {}

  /** Rollouts admitted and not yet answered (the queue depth). */
  get depth(): number {
    return this.pending;
  }

  /** No room for even one more rollout: a request can be refused before its body is read. */
  get full(): boolean {
    return this.pending >= this.capacity;
  }

  /** Admits `n` rollouts if they fit. Call {@link release} with the same `n` when they are answered. */
  tryAcquire(n: number): boolean {
    if (this.pending + n > this.capacity) return false;
    this.pending += n;
    return true;
  }

  release(n: number): void {
    this.pending -= n;
    const now = performance.now();
    const dt = Math.max(1e-3, (now - this.lastDone) / 1000);
    this.lastDone = now;
    const inst = n / dt;
    this.rate = this.rate === 0 ? inst : 0.8 * this.rate + 0.2 * inst;
    if (this.pending === 0) for (const f of this.idle.splice(0)) f();
  }

  /** Seconds until `n` more rollouts would likely fit, from the recent throughput (1 … 60). */
  retryAfter(n: number): number {
    const excess = this.pending + n - this.capacity;
    const s = this.rate > 0 ? excess / this.rate : 1;
    return Math.min(60, Math.max(1, Math.ceil(s)));
  }

  /** Resolves when nothing is pending. */
  drained(): Promise<void> {
    return this.pending === 0 ? Promise.resolve() : new Promise((resolve) => this.idle.push(resolve));
  }
}
