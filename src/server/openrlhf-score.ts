import { passes } from "../compose/reward.js";
import type { ComponentResult } from "../core/types.js";
import type { CompiledSpec } from "../spec/types.js";

/**
 * How `/get_reward` fills OpenRLHF's `scores`, which drive its dynamic filtering (a group is kept when
 * `min < mean(scores) < max`, default (0, 1), `openrlhf/trainer/ppo_utils/samples_generator.py`): `rewards` is the
 * spec's reward; `scores[i]` is **1 when the first component that counts in the reward passes** (score ≥ its
 * `passThreshold`; unscorable fails) and 0 otherwise. "Counts" means the aggregator reads it and, for weighted
 * aggregators, its (step-0) weight is > 0; put the accuracy component first. A spec with no such component sends
 * the reward clamped to [0, 1] (null → 0).
 * @returns a function of one rollout's component results and reward giving its score in [0, 1].
 */
export function openrlhfScore(
  spec: CompiledSpec,
): (results: readonly ComponentResult[], reward: number | null) => number {
  const agg = spec.aggregate;
  const k = spec.components.findIndex((c, i) => agg.uses[i] && (!agg.weighted || c.weight > 0));
  if (k >= 0) return (results) => (passes(spec, results, k) ? 1 : 0);
  return (_results, reward) => (reward === null || !Number.isFinite(reward) ? 0 : Math.min(1, Math.max(0, reward)));
}
