import type { ComponentResult } from "../core/types.js";
import type { CompiledSpec } from "../spec/types.js";
import type { AggregateTerm } from "./types.js";
import { weightedSum } from "./weighted-sum.js";

/** Does component `i` pass (score ≥ its passThreshold)? Unscorable never passes. */
export function passes(spec: CompiledSpec, results: readonly ComponentResult[], i: number): boolean {
  const s = results[i]?.score;
  return s !== null && s !== undefined && s >= spec.components[i]!.passThreshold;
}

/** A gate is open when the gate component passes and its own gate (if any) is open: chains compose. */
export function gateOpen(spec: CompiledSpec, results: readonly ComponentResult[], i: number): boolean {
  for (let g = spec.components[i]!.gate; g !== undefined; g = spec.components[g]!.gate) {
    if (!passes(spec, results, g)) return false;
  }
  return true;
}

/**
 * The rollout's reward from its component results (same order as `spec.components`).
 * A component counts when its weight ≠ 0 and its gate is open. With `onUnscorable: exclude`, an unscorable
 * counting component makes the reward `null`; with `zero` it contributes 0.
 * @returns the reward, or `null` (excluded).
 */
export function computeReward(spec: CompiledSpec, results: readonly ComponentResult[]): number | null {
  const terms: AggregateTerm[] = spec.components.map((c, i) => ({
    name: c.name,
    weight: c.weight,
    score: results[i]!.score,
    open: gateOpen(spec, results, i),
  }));
  if (spec.onUnscorable === "exclude" && terms.some((t) => t.open && t.weight !== 0 && t.score === null)) return null;
  return weightedSum(terms);
}
