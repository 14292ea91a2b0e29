import type { ComponentResult } from "../core/types.js";

/**
 * Component results without `details` (`"details": false` on `/v1/score`): score, status, reason, and the dense
 * outputs a trainer reads (`token_rewards`, `turn_rewards`), which are results, not diagnostics.
 */
export function stripDetails(components: Record<string, ComponentResult>): Record<string, ComponentResult> {
  const out: Record<string, ComponentResult> = {};
  for (const [k, r] of Object.entries(components)) {
    const kept: ComponentResult = { score: r.score, status: r.status };
    if (r.reason !== undefined) kept.reason = r.reason;
    if (r.token_rewards !== undefined) kept.token_rewards = r.token_rewards;
    if (r.turn_rewards !== undefined) kept.turn_rewards = r.turn_rewards;
    out[k] = kept;
  }
  return out;
}
