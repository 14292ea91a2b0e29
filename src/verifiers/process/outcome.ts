import type { Rollout } from "../../core/types.js";

/** The rollout's `outcome`: a finite number, or a boolean as 1/0; undefined when absent or anything else. */
export function rolloutOutcome(rollout: Rollout): number | undefined {
  const o = rollout.outcome;
  if (typeof o === "boolean") return o ? 1 : 0;
  return typeof o === "number" && Number.isFinite(o) ? o : undefined;
}
