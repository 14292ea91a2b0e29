import type { AggregateTerm } from "./types.js";

/**
 * Weighted sum R = Σ_k w_k · s_k over open components; an unscorable score counts as 0 here (the
 * `onUnscorable` policy has already been applied by {@link computeReward}).
 * Example: accuracy 1 (w 1), format 0 (w 0.5), gated brevity 1 (w 0.2, gate closed) → 1.
 */
export function weightedSum(terms: readonly AggregateTerm[]): number {
  let r = 0;
  for (const t of terms) if (t.open && t.weight !== 0) r += t.weight * (t.score ?? 0);
  return r;
}
