import type { ReplayRollout } from "./replay.js";
import type { GroupObservation } from "./stats.js";

/** One scored rollout as the curriculum reads it. */
export interface ScoredRollout {
  id: string;
  group: string;
  /** The rollout's `prompt_id` (statistics are kept under it instead of the group id). */
  promptId?: string;
  step: number;
  reward: number | null;
  /** Component scores in spec order (null: unscorable). */
  scores: ReadonlyArray<number | null>;
  /** NaN: none. */
  advantage: number;
  prompt?: unknown;
  completion?: unknown;
}

/** A scored group: its observation for the statistics and its rollouts for the replay buffer. */
export interface ScoredGroup extends GroupObservation {
  rollouts: ReplayRollout[];
  prompt?: unknown;
}

/**
 * Rollouts gathered into groups by group id, in order of first appearance. A group's key is its first rollout's
 * `prompt_id`, else the group id (groups are prompts unless `prompt_id` says otherwise; a rollout without a group
 * already has the hash of its prompt as its group); its step is the highest step among its rollouts.
 * @param names component names in spec order.
 */
export function scoredGroups(names: readonly string[], rows: Iterable<ScoredRollout>): ScoredGroup[] {
  const byId = new Map<
    string,
    ScoredGroup & { rewards: Array<number | null>; components: Record<string, Array<number | null>> }
  >();
  for (const r of rows) {
    let g = byId.get(r.group);
    if (!g) {
      g = {
        key: r.promptId ?? r.group,
        group: r.group,
        step: r.step,
        rewards: [],
        components: Object.fromEntries(names.map((n) => [n, [] as Array<number | null>])),
        rollouts: [],
        ...(r.prompt !== undefined ? { prompt: r.prompt } : {}),
      };
      byId.set(r.group, g);
    }
    g.step = Math.max(g.step, r.step);
    g.rewards.push(r.reward);
    names.forEach((n, k) => g.components[n]!.push(r.scores[k] ?? null));
    g.rollouts.push({
      id: r.id,
      reward: r.reward,
      advantage: Number.isNaN(r.advantage) ? null : r.advantage,
      ...(r.completion !== undefined ? { completion: r.completion } : {}),
    });
  }
  return [...byId.values()];
}
