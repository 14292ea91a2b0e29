import type { RewardSpec } from "./types.js";
import type { ComponentResult } from "../core/types.js";
import { unscorable } from "../core/types.js";
import type { VerifierInput } from "../verifiers/types.js";
import { computeReward } from "./reward.js";
import type { StepValues } from "./reward.js";

/**
 * Composition's group-context stage: the second pass of scoring, for components whose score depends on other
 * components of the same rollout or on the rollout's group.
 *
 * 1. Every per-rollout component is scored (workers, sandboxes, caches: unchanged).
 * 2. Each component with a stage ({@link GroupStage}) keeps a small *member* per rollout, read from the rollout and
 *    its per-rollout verdicts (`member(input, results)`): a length and a correctness bit, a score and a trace length.
 * 3. Once a group is complete, `score(members)` gives the component's results for the whole group, and the rewards
 *    are recomputed with them (gates, weights and the aggregator see the staged results).
 *
 * A rollout scored alone (`Scorer.score`) is a group of one, so its result is always complete; batch paths
 * (`scoreBatch`, the server, `rewardkit score`) then re-run the stages over the groups they hold. Stages read
 * per-rollout verdicts only, never each other's, so their order does not matter. Used by `cosine-length` (reads a
 * correctness component), `group-length` (Kimi k1.5, the group's min/max length), and `likelihood`'s RLCPR collapse
 * penalty and RLPR std filter.
 */

/** One rollout as the stage sees it: its group, its verdicts (staged ones replaced in place) and its reward. */
export interface StagedRollout {
  group: string;
  results: ComponentResult[];
  /** Per component index, the stage's member (`undefined` where the component has no stage or member() failed). */
  members: unknown[];
  /** Scheduled weights and thresholds at the rollout's step, when the spec has schedules. */
  values?: StepValues;
  reward: number | null;
}

/** Indexes of the spec's components that have a group stage. */
export function stagedComponents(spec: RewardSpec): number[] {
  const out: number[] = [];
  spec.components.forEach((c, i) => {
    if (c.stage) out.push(i);
  });
  return out;
}

function crashed(e: unknown): ComponentResult {
  return unscorable("worker_error", { error: String((e as Error)?.message ?? e), stage: "group" });
}

/**
 * The members of one rollout for every staged component (sparse array by component index). A `member()` that throws
 * makes that component `worker_error` for this rollout (in `results`), and the rollout is left out of its group there.
 */
export function collectMembers(
  spec: RewardSpec,
  staged: readonly number[],
  input: VerifierInput,
  results: ComponentResult[],
): unknown[] {
  const members: unknown[] = [];
  const seen = results.slice(); // stages read per-rollout verdicts, not each other's
  for (const i of staged) {
    try {
      members[i] = spec.components[i]!.stage!.member(input, seen);
    } catch (e) {
      results[i] = crashed(e);
    }
  }
  return members;
}

/**
 * Runs every staged component over each group of `rollouts` (grouped by `group`, in input order) and recomputes the
 * rewards of the rollouts it changed. Mutates `results` and `reward` in place.
 */
export function applyGroupStages(
  spec: RewardSpec,
  staged: readonly number[],
  rollouts: readonly StagedRollout[],
): void {
  if (staged.length === 0) return;
  const groups = new Map<string, StagedRollout[]>();
  for (const r of rollouts) {
    let g = groups.get(r.group);
    if (!g) groups.set(r.group, (g = []));
    g.push(r);
  }
  for (const g of groups.values()) {
    for (const i of staged) {
      const inStage = g.filter((r) => r.members[i] !== undefined);
      if (inStage.length === 0) continue;
      let out: ComponentResult[];
      try {
        out = spec.components[i]!.stage!.score(inStage.map((r) => r.members[i]));
        if (out.length !== inStage.length)
          throw new Error(`group stage returned ${out.length} results for ${inStage.length} rollouts`);
      } catch (e) {
        out = inStage.map(() => crashed(e));
      }
      inStage.forEach((r, k) => {
        r.results[i] = out[k]!;
      });
    }
    for (const r of g) r.reward = computeReward(spec, r.results, r.values);
  }
}

/**
 * Re-runs the group stages of a scored batch over its groups (the groups present in the batch: a group split across
 * batches is staged per batch), updating each score's `results` and `reward` in place. Scores without members
 * (a rollout past its deadline) keep what they have and are left out of their group.
 * @param valuesAt the scheduled values at a step (the scorer's `valuesAt`), for specs with schedules.
 */
export function stageBatch(
  spec: RewardSpec,
  rollouts: ReadonlyArray<{ group: string; step?: number }>,
  scores: ReadonlyArray<{ results: ComponentResult[]; reward: number | null; members?: unknown[] }>,
  valuesAt?: (step: number) => StepValues | undefined,
): void {
  const staged = stagedComponents(spec);
  if (staged.length === 0) return;
  const items: Array<StagedRollout & { k: number }> = [];
  scores.forEach((s, k) => {
    if (!s.members) return;
    const values = valuesAt?.(rollouts[k]!.step ?? 0);
    items.push({
      k,
      group: rollouts[k]!.group,
      results: s.results,
      members: s.members,
      reward: s.reward,
      ...(values ? { values } : {}),
    });
  });
  applyGroupStages(spec, staged, items);
  for (const it of items) (scores[it.k] as { reward: number | null }).reward = it.reward;
}
