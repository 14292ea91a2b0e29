/**
 * The store model clients (judges, reward models) share with the fleet. A server started with `--store` calls
 * {@link shareModelStore} before it builds its scorers; every `ModelClient` made afterwards in this process takes a
 * `FleetLimiter` on that store (the fleet's `rpm`, `tpm` and `concurrency`) instead of a per-process `Limiter`, and a
 * second tier of its response cache there (a call another replica made is not made again). Infrastructure, not
 * verdict state: the budget decides when a call is made, the cache returns the same response the call returned.
 */
import type { StoreGuard } from "../store/guard.js";

let shared: StoreGuard | undefined;

/** Makes model clients built from now on share budgets and responses through `guard` (undefined: local ones). */
export function shareModelStore(guard: StoreGuard | undefined): void {
  shared = guard;
}

/** The store budgets are shared through, if any. */
export function sharedModelStore(): StoreGuard | undefined {
  return shared;
}
