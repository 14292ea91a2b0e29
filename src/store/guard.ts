import type { Store } from "./types.js";

/** What a {@link StoreGuard} has seen, for `/metrics`. */
export interface StoreHealth {
  /** Operations that failed, by operation. */
  errors: Record<string, number>;
  /** Operations that succeeded. */
  ok: number;
  /** Whether the last operation failed (the replica runs on local state until one succeeds). */
  degraded: boolean;
  /** Seconds spent in store operations (successful or not), for the overhead per rollout. */
  seconds: number;
}

/** Milliseconds between two warnings about the store (the ones in between are counted in the next). */
const WARN_INTERVAL_MS = 30_000;

/**
 * Runs store operations for code that must never fail because of the store: an operation that fails (the store is
 * unreachable, a command timed out) returns the caller's local fallback, is counted by operation, and writes a
 * warning on stderr (at most one per 30 s) — so a replica degrades to local state with a warning and a metric, and
 * comes back when the store answers again.
 */
export class StoreGuard {
  readonly health: StoreHealth = { errors: {}, ok: 0, degraded: false, seconds: 0 };
  private lastWarn = -Infinity;
  private skipped = 0;

  constructor(
    readonly store: Store,
    private readonly write: (line: string) => void = (l) => process.stderr.write(l),
  ) {}

  /** `f(store)`, or `fallback()` when it throws. */
  async attempt<T>(op: string, f: (s: Store) => Promise<T>, fallback: () => T): Promise<T> {
    const t0 = performance.now();
    try {
      const v = await f(this.store);
      this.health.ok++;
      if (this.health.degraded) {
        this.health.degraded = false;
        this.write(`rewardkit: store ${this.store.description} answers again; shared state resumed\n`);
      }
      return v;
    } catch (e) {
      this.failed(op, e);
      return fallback();
    } finally {
      this.health.seconds += (performance.now() - t0) / 1000;
    }
  }

  /**
   * While degraded, pings the store every `intervalMs` so that `health.degraded` (`rewardkit_store_up`, `/readyz`)
   * turns back on its own when the store answers again, also on a replica that gets no requests. @returns a stop
   * function.
   */
  watch(intervalMs = 2_000): () => void {
    const t = setInterval(() => {
      if (this.health.degraded)
        void this.attempt(
          "ping",
          (s) => s.ping(),
          () => undefined,
        );
    }, intervalMs);
    t.unref();
    return () => clearInterval(t);
  }

  /** Counts a failure of `op` and warns (rate-limited). */
  failed(op: string, e: unknown): void {
    this.health.errors[op] = (this.health.errors[op] ?? 0) + 1;
    this.health.degraded = true;
    const now = Date.now();
    if (now - this.lastWarn < WARN_INTERVAL_MS) {
      this.skipped++;
      return;
    }
    this.lastWarn = now;
    const more = this.skipped > 0 ? ` (${this.skipped} more failures since the last warning)` : "";
    this.skipped = 0;
    this.write(
      `rewardkit: warning: store ${this.store.description} failed (${op}: ${(e as Error)?.message ?? String(e)}); ` +
        `using local state until it answers; counted in rewardkit_store_errors_total${more}\n`,
    );
  }
}
