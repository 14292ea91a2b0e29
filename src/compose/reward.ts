import type { RewardSpec } from "./types.js";
import type { ComponentResult } from "../core/types.js";
import type { AggregateTerm } from "./types.js";

/** Scheduled values at a rollout's step (from `ScheduleRuntime.resolve`); absent → the spec's fixed values. */
export interface StepValues {
  weights: readonly number[];
  thresholds: readonly number[];
}

/** Does component `i` pass (score ≥ its passThreshold, or `thresholds[i]` at this step)? Unscorable never passes. */
export function passes(
  spec: RewardSpec,
  results: readonly ComponentResult[],
  i: number,
  thresholds?: readonly number[],
): boolean {
  const s = results[i]?.score;
  return s !== null && s !== undefined && s >= (thresholds ? thresholds[i]! : spec.components[i]!.passThreshold);
}

/** A gate is open when the gate component passes and its own gate (if any) is open: chains compose. */
export function gateOpen(
  spec: RewardSpec,
  results: readonly ComponentResult[],
  i: number,
  thresholds?: readonly number[],
): boolean {
  for (let g = spec.components[i]!.gate; g !== undefined; g = spec.components[g]!.gate) {
    if (!passes(spec, results, g, thresholds)) return false;
  }
  return true;
}

/**
 * The rollout's reward from its component results (same order as `spec.components`), by the spec's aggregator.
 * A component *counts* when the aggregator reads it (a formula names it, a lexicographic order lists it), its
 * weight ≠ 0 for aggregators that use weights, and its gate is open. With `onUnscorable: exclude`, an unscorable
 * counting component makes the reward `null`; with `zero` it enters the aggregator as 0.
 * @param values the scheduled weights and thresholds at the rollout's step, when the spec has schedules.
 * @returns the reward, or `null` (excluded, or a formula that is not finite).
 */
export function computeReward(
  spec: RewardSpec,
  results: readonly ComponentResult[],
  values?: StepValues,
): number | null {
  const th = values?.thresholds;
  const terms: AggregateTerm[] = spec.components.map((c, i) => ({
    name: c.name,
    weight: values ? values.weights[i]! : c.weight,
    score: results[i]!.score,
    open: gateOpen(spec, results, i, th),
    passed: passes(spec, results, i, th),
  }));
  const agg = spec.aggregate;
  if (
    spec.onUnscorable === "exclude" &&
    terms.some((t, i) => t.score === null && t.open && agg.uses[i] && (!agg.weighted || t.weight !== 0))
  )
    return null;
  return agg.aggregate(terms);
}
