/**
 * The server's use of the group barrier ({@link GroupBarrier}): which rollouts wait (those with `group_size`), what
 * keys their group (the served spec's hash, the step, the group id), and how a group ends:
 * - **complete** (`group_size` distinct ids arrived): the group stages run over the whole group and the spec's
 *   advantages are computed over it — the values `rewardkit score` gives the same rollouts in one file;
 * - **partial** (still short after `--group-wait-ms`): every staged component of the members that arrived is
 *   `unscorable` with reason `partial_group` (details: `group`, `step`, `arrived`, `group_size`, `waited_ms`), the reward is
 *   recomputed from that (the spec's `onUnscorable` decides how it counts, as for any unscorable component), and the
 *   advantages are null. Never a silently different reward.
 * See docs/groups.md.
 */
import { computeReward } from "../compose/reward.js";
import { stageBatch, stagedComponents } from "../compose/group-stage.js";
import type { Rollout } from "../core/types.js";
import { unscorable } from "../core/types.js";
import { batchAdvantages } from "../engine/advantage-batch.js";
import type { RolloutScore, Scorer } from "../engine/scorer.js";
import type { CompiledSpec } from "../spec/types.js";
import { GroupBarrier } from "./barrier.js";
import type { GroupEnd } from "./barrier.js";
import type { ServerOptions } from "./options.js";

/** A held rollout: the context that scores it (a route's, on a routed server), the rollout, its per-rollout score. */
export interface HeldMember {
  ctx: { spec: CompiledSpec; scorer: Scorer };
  rollout: Rollout;
  score: Promise<RolloutScore>;
}

/** A held rollout's answer: its verdicts and reward after the group stage, and its advantage (NaN: none). */
export interface HeldAnswer {
  score: RolloutScore;
  advantage: number;
}

/** The server's barrier type. */
export type HeldGroups = GroupBarrier<HeldMember, HeldAnswer>;

/** The barrier key of a rollout served by the spec with hash `specHash`: spec, step and group. */
export function heldKey(specHash: string, rollout: Rollout): string {
  return `${specHash}\u0000${rollout.step ?? ""}\u0000${rollout.group}`;
}

/** The barrier of a server with these options (`groupWaitMs`, `groupMaxWaiting`, `groupMaxWaitingBytes`). */
export function createHeldGroups(o: ServerOptions): HeldGroups {
  return new GroupBarrier<HeldMember, HeldAnswer>(
    { waitMs: o.groupWaitMs, maxMembers: o.groupMaxWaiting, maxBytes: o.groupMaxWaitingBytes },
    finishGroup,
    (e, m) => ({
      score: {
        results: m.ctx.spec.components.map(() =>
          unscorable("worker_error", { error: String((e as Error)?.message ?? e), stage: "group" }),
        ),
        reward: null,
      },
      advantage: NaN,
    }),
  );
}

/** Ends a held group: stages and advantages over the whole group, or `partial_group` (see the module comment). */
async function finishGroup(members: HeldMember[], end: GroupEnd): Promise<HeldAnswer[]> {
  const { spec, scorer } = members[0]!.ctx;
  const scores = await Promise.all(members.map((m) => m.score));
  const rollouts = members.map((m) => m.rollout);
  if (end.complete) {
    stageBatch(spec, rollouts, scores, (step) => scorer.valuesAt(step));
    const adv = batchAdvantages(spec, rollouts, scores);
    return scores.map((score, k) => ({ score, advantage: adv[k]! }));
  }
  const staged = stagedComponents(spec);
  const details = {
    group: rollouts[0]!.group,
    step: rollouts[0]!.step ?? null,
    arrived: end.arrived,
    group_size: end.size,
    waited_ms: end.waitedMs,
  };
  return scores.map((score, k) => {
    if (score.members) {
      // a member whose stage input failed keeps its worker_error; one past its deadline has no members at all
      for (const i of staged)
        if (score.members[i] !== undefined) score.results[i] = unscorable("partial_group", details);
      score.reward = computeReward(spec, score.results, scorer.valuesAt(rollouts[k]!.step ?? 0));
    }
    return { score, advantage: NaN };
  });
}
