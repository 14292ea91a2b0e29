/**
 * Where model clients take their budgets from. A server started with `--store` calls {@link shareBudgets} before it
 * builds its scorers; every {@link ModelClient} made afterwards in this process takes a {@link FleetLimiter} on that
 * store (the fleet's `rpm`, `tpm` and `concurrency`) instead of a per-process {@link Limiter}. Infrastructure, not
 * verdict state: the budget decides when a call is made, never what a verdict is.
 */
import type { StoreGuard } from "../store/guard.js";

let shared: StoreGuard | undefined;

/** Makes model clients built from now on share their budgets through `guard` (undefined: back to local ones). */
export function shareBudgets(guard: StoreGuard | undefined): void {
  shared = guard;
}

/** The store budgets are shared through, if any. */
export function sharedBudgets(): StoreGuard | undefined {
  return shared;
}
