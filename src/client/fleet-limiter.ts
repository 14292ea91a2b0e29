import { randomBytes } from "node:crypto";
import type { StoreGuard } from "../store/guard.js";
import { Limiter, waitForSlot } from "./limiter.js";
import type { LimiterOptions, Slot, Waiter } from "./limiter.js";

/**
 * The {@link Limiter} of one model endpoint, shared by every replica of a fleet through the store: `concurrency`,
 * `rpm` and `tpm` hold for the fleet together, not per replica (N replicas never call a judge N times too hard), and
 * a 429's `Retry-After` pauses every replica. Each step is one atomic store operation (`Store.budgetAcquire`: a
 * lease per call, rpm as calls spaced at least 60 000 / rpm ms apart, a tpm token bucket).
 *
 * Waiters queue locally in arrival order and only the head asks the store (one poll loop per replica and endpoint,
 * sleeping the wait the store names). When the store fails, the waiting call goes through this replica's local
 * {@link Limiter} instead (degraded: per-replica limits, a warning and `rewardkit_store_errors_total`).
 */
export class FleetLimiter {
  private readonly queue: Waiter[] = [];
  private pumping = false;
  private readonly local: Limiter;
  private readonly leaseMs: number;

  /**
   * @param endpoint the budget's key (the endpoint URL and credentials, hashed by the caller)
   * @param leaseMs a call's lease is dropped after this long if its replica never releases it (it died)
   */
  constructor(
    private readonly guard: StoreGuard,
    private readonly endpoint: string,
    readonly options: LimiterOptions,
    leaseMs: number,
  ) {
    this.local = new Limiter(options);
    this.leaseMs = leaseMs;
  }

  /** Waits for a slot in the fleet's budget. @throws {AbortedError} when `signal` aborts first. */
  acquire(tokens: number, signal?: AbortSignal): Promise<Slot> {
    return waitForSlot(this.queue, tokens, signal, () => void this.pump());
  }

  /** Pauses every replica's calls to this endpoint for `ms` (a 429's `Retry-After`). */
  pause(ms: number): void {
    this.local.pause(ms);
    void this.guard.attempt(
      "budget",
      (s) => s.budgetPause(this.endpoint, ms),
      () => undefined,
    );
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.queue.length > 0) {
        const w = this.queue[0]!;
        const lease = randomBytes(8).toString("hex");
        const o = this.options;
        const ask = {
          concurrency: o.concurrency,
          ...(o.rpm !== undefined ? { rpm: o.rpm } : {}),
          ...(o.tpm !== undefined ? { tpm: o.tpm } : {}),
          tokens: w.tokens,
          lease,
          leaseMs: this.leaseMs,
        };
        const answer = await this.guard.attempt(
          "budget",
          (s) => s.budgetAcquire(this.endpoint, ask),
          () => undefined,
        );
        if (this.queue[0] !== w) continue; // aborted while asking: a lease granted now is released below
        if (answer === undefined) {
          // the store failed: this call goes through the replica's own limiter
          this.queue.shift();
          w.signal?.removeEventListener("abort", w.onAbort);
          this.local.acquire(w.tokens, w.signal).then(w.resolve, w.reject);
          continue;
        }
        if (!answer.granted) {
          await new Promise((r) => setTimeout(r, Math.min(answer.waitMs, 1000)));
          continue;
        }
        this.queue.shift();
        w.signal?.removeEventListener("abort", w.onAbort);
        let released = false;
        w.resolve({
          release: (actual) => {
            if (released) return;
            released = true;
            const correction = actual !== undefined && Number.isFinite(actual) ? w.tokens - actual : 0;
            void this.guard.attempt(
              "budget",
              (s) => s.budgetRelease(this.endpoint, lease, correction, o.tpm),
              () => undefined,
            );
          },
        });
      }
    } finally {
      this.pumping = false;
    }
  }
}
