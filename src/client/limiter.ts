/**
 * Admission control for one model endpoint: at most `concurrency` requests in flight, a requests-per-minute and a
 * tokens-per-minute budget (token buckets refilled continuously), and a pause that every waiter honours (set when the
 * endpoint answers 429 with `Retry-After`). Waiters are served in arrival order; an aborted waiter leaves the queue.
 *
 * Bucket model: each budget holds at most one second's worth (`rpm / 60` requests, `tpm / 60` tokens, at least one
 * request / one request's tokens) and refills at `budget / 60 000` per millisecond, so requests are paced evenly
 * instead of bursting a whole minute's budget at once and meeting the provider's 429. A request whose token estimate
 * exceeds a full bucket waits for a full bucket and then drives it negative (debt), which later requests wait out.
 */
export interface LimiterOptions {
  /** Requests in flight at once (≥ 1). */
  concurrency: number;
  /** Requests per minute; unlimited when absent. */
  rpm?: number;
  /** Tokens per minute (prompt + completion, estimated before the call, corrected from `usage` after); unlimited when absent. */
  tpm?: number;
}

/** What a granted slot gives back: call `release` once, with the tokens the call really used when known. */
export interface Slot {
  release(actualTokens?: number): void;
}

/** A call waiting for a slot, in arrival order. */
export interface Waiter {
  tokens: number;
  resolve: (s: Slot) => void;
  reject: (e: Error) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

/**
 * Queues a call for a slot: `queue` gets a {@link Waiter} that leaves it (rejecting with {@link AbortedError}) when
 * `signal` aborts; `changed` runs after it joins and after it leaves by abort (the owner's pump).
 */
export function waitForSlot(
  queue: Waiter[],
  tokens: number,
  signal: AbortSignal | undefined,
  changed: () => void,
): Promise<Slot> {
  if (signal?.aborted) return Promise.reject(new AbortedError());
  return new Promise<Slot>((resolve, reject) => {
    const w: Waiter = {
      tokens,
      resolve,
      reject,
      signal,
      onAbort: () => {
        const k = queue.indexOf(w);
        if (k >= 0) queue.splice(k, 1);
        reject(new AbortedError());
        changed();
      },
    };
    signal?.addEventListener("abort", w.onAbort, { once: true });
    queue.push(w);
    changed();
  });
}

class Bucket {
  level: number;
  private last = performance.now();
  constructor(
    readonly capacity: number,
    private readonly perMs: number,
  ) {
    this.level = capacity;
  }
  refill(now: number): void {
    this.level = Math.min(this.capacity, this.level + (now - this.last) * this.perMs);
    this.last = now;
  }
  /** Milliseconds until the level reaches `need` (0 when it already has). */
  waitFor(need: number): number {
    return this.level >= need ? 0 : Math.ceil((need - this.level) / this.perMs);
  }
}

/** An error thrown to a waiter whose signal aborted. */
export class AbortedError extends Error {
  constructor(message = "aborted while waiting for the endpoint's limits") {
    super(message);
    this.name = "AbortedError";
  }
}

export class Limiter {
  private inflight = 0;
  private readonly queue: Waiter[] = [];
  private readonly requests: Bucket | undefined;
  private readonly tokens: Bucket | undefined;
  private pausedUntil = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(readonly options: LimiterOptions) {
    if (!(options.concurrency >= 1)) throw new RangeError("concurrency must be >= 1");
    if (options.rpm !== undefined) this.requests = new Bucket(Math.max(1, options.rpm / 60), options.rpm / 60_000);
    if (options.tpm !== undefined) this.tokens = new Bucket(Math.max(1, options.tpm / 60), options.tpm / 60_000);
  }

  /** Requests in flight now. */
  get active(): number {
    return this.inflight;
  }

  /** Requests waiting for a slot now. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Waits for a slot. `tokens` is the call's estimated token count (for `tpm`).
   * @throws {AbortedError} when `signal` aborts first.
   */
  acquire(tokens: number, signal?: AbortSignal): Promise<Slot> {
    return waitForSlot(this.queue, tokens, signal, () => this.pump());
  }

  /** Holds every waiter until `ms` from now (a 429's `Retry-After`); a longer pause already set is kept. */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, performance.now() + ms);
    this.pump();
  }

  private pump(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.queue.length > 0 && this.inflight < this.options.concurrency) {
      const now = performance.now();
      const w = this.queue[0]!;
      let wait = Math.max(0, this.pausedUntil - now);
      if (this.requests) {
        this.requests.refill(now);
        wait = Math.max(wait, this.requests.waitFor(1));
      }
      if (this.tokens) {
        this.tokens.refill(now);
        wait = Math.max(wait, this.tokens.waitFor(Math.min(w.tokens, this.tokens.capacity)));
      }
      if (wait > 0) {
        this.timer = setTimeout(() => this.pump(), wait);
        return;
      }
      this.queue.shift();
      w.signal?.removeEventListener("abort", w.onAbort);
      if (this.requests) this.requests.level -= 1;
      if (this.tokens) this.tokens.level -= w.tokens;
      this.inflight++;
      let released = false;
      const estimate = w.tokens;
      w.resolve({
        release: (actual) => {
          if (released) return;
          released = true;
          this.inflight--;
          if (this.tokens && actual !== undefined && Number.isFinite(actual)) this.tokens.level += estimate - actual;
          this.pump();
        },
      });
    }
  }
}
