import { computeReward } from "../compose/reward.js";
import { stageBatch } from "../compose/group-stage.js";
import type { ComponentResult, Rollout } from "../core/types.js";
import { unscorable } from "../core/types.js";
import { batchAdvantages } from "../engine/advantage-batch.js";
import type { RolloutScore } from "../engine/scorer.js";
import { fingerprint } from "./barrier.js";
import type { JoinResult } from "./barrier.js";
import type { HeldAnswer } from "./held-groups.js";
import { heldKey } from "./held-groups.js";
import type { ServerContext } from "./context.js";
import { recordBatch } from "./curriculum.js";
import { nextTurn } from "./turn.js";
import type { DapoReport } from "../curriculum/dapo.js";

/** Scores of admitted rollouts in input order, and advantages, shape [n] (NaN: none). */
export interface ScoredBatch {
  scores: RolloutScore[];
  advantages: Float64Array;
  /**
   * Per rollout, why it is answered with an error entry instead of its score (a held rollout the barrier refused:
   * its id reused with other content, a `group_size` other than its group's); undefined for the rest.
   */
  problems: Array<string | undefined>;
  /** `filter: dapo` over the request's groups, when the spec has it. */
  filter?: DapoReport;
}

/** The request's held groups do not fit in the barrier's bounds: answered 503 with `Retry-After`. */
export class GroupsFull extends Error {
  constructor(
    message: string,
    readonly retryAfterS: number,
  ) {
    super(message);
  }
}

/** The server began shutting down while the request's group waited: answered 503 so the client goes elsewhere. */
export class GroupsEvicted extends Error {}

function allUnscorable(
  ctx: ServerContext,
  reason: "timeout" | "worker_error",
  details: Record<string, unknown>,
): RolloutScore {
  const results: ComponentResult[] = ctx.spec.components.map(() => unscorable(reason, details));
  return { results, reward: computeReward(ctx.spec, results) };
}

/**
 * Scores valid rollouts, starting in the check phase of the loop iteration that read them (with every other
 * request read in that poll phase: `turn.ts`), under the server's per-rollout deadline (one timer per batch: a
 * rollout not answered `rolloutTimeoutMs` after admission reads `unscorable("timeout")` on every component; its
 * component deadlines still stop the work in the pool).
 *
 * Rollouts with `group_size` are *held* (src/server/held-groups.ts): their per-rollout components are scored at once,
 * then they wait in the server's group barrier until their whole group (same spec, step and group, `group_size`
 * distinct ids, from any requests) has arrived, and get the group stage's verdicts and the advantages over that
 * group; after `groupWaitMs`, `partial_group`. The other rollouts are staged and normalized over the groups in this
 * request only.
 * @param settled called once every rollout's work has really finished (after the answer when the deadline
 *   passed): the caller releases the rollouts' admission then, so the queue bound covers work still running.
 * @param onHold called (once, before waiting) when some rollouts wait for their groups: the caller gives back the
 *   request's body budget, since the barrier accounts waiting rollouts itself.
 * @throws GroupsFull (before anything is scored; `settled` has been called) when the held rollouts would open groups
 *   past the barrier's bounds; GroupsEvicted when the server began shutting down while they waited.
 */
export async function scoreRollouts(
  ctx: ServerContext,
  rollouts: readonly Rollout[],
  settled: () => void = () => {},
  onHold: () => void = () => {},
): Promise<ScoredBatch> {
  // the requests read in this poll phase are scored together (src/server/turn.ts)
  await nextTurn();
  const n = rollouts.length;
  const held = heldOf(ctx, rollouts);
  if (held.length > 0) {
    const full = ctx.groups.room(held);
    if (full) {
      settled();
      throw new GroupsFull(full.message, full.retryAfterS);
    }
  }
  const m = ctx.metrics;
  const scored = scoreEach(ctx, rollouts, settled);
  // joins happen in this synchronous turn, right after the room check
  const joins = new Map<number, Promise<JoinResult<HeldAnswer>>>();
  for (const h of held)
    joins.set(
      h.k,
      ctx.groups.join(
        h.key,
        rollouts[h.k]!.group_size!,
        rollouts[h.k]!.id,
        h.fingerprint,
        { ctx, rollout: rollouts[h.k]!, score: scored[h.k]! },
        h.bytes,
      ),
    );
  if (held.length > 0) onHold();
  const scores = await Promise.all(scored);
  const problems = new Array<string | undefined>(n);
  const advantages = new Float64Array(n).fill(NaN);
  if (joins.size === 0) {
    // nothing held (the usual request): the request's groups are the whole request, no index copies
    stageBatch(ctx.spec, rollouts, scores, (step) => ctx.scorer.valuesAt(step));
    advantages.set(batchAdvantages(ctx.spec, rollouts, scores));
  } else {
    const local = rollouts.flatMap((r, k) => (joins.has(k) ? [] : [k]));
    if (local.length > 0) {
      // group-context components see the request's groups
      const rs = local.map((k) => rollouts[k]!);
      const ss = local.map((k) => scores[k]!);
      stageBatch(ctx.spec, rs, ss, (step) => ctx.scorer.valuesAt(step));
      const adv = batchAdvantages(ctx.spec, rs, ss);
      local.forEach((k, j) => (advantages[k] = adv[j]!));
    }
  }
  let evicted: string | undefined;
  for (const [k, p] of joins) {
    const r = await p;
    if (r.kind === "answer") {
      scores[k] = r.answer.score;
      advantages[k] = r.answer.advantage;
    } else if (r.kind === "refused") problems[k] = r.message;
    else evicted = r.message;
  }
  if (evicted !== undefined) throw new GroupsEvicted(evicted);
  const filter = recordBatch(ctx, rollouts, scores, advantages, problems);
  m.rolloutsScored.inc({}, n);
  for (const s of scores) {
    for (let k = 0; k < s.results.length; k++) {
      const r = s.results[k]!;
      if (r.status !== "ok")
        m.unscorable.inc({ component: ctx.spec.components[k]!.name, reason: r.reason ?? "unknown" });
    }
  }
  return { scores, advantages, problems, ...(filter ? { filter } : {}) };
}

/** Each rollout's score as a promise that settles by the deadline (a timeout verdict past it). */
function scoreEach(ctx: ServerContext, rollouts: readonly Rollout[], settled: () => void): Promise<RolloutScore>[] {
  if (rollouts.length === 0) {
    settled();
    return [];
  }
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ctx.options.rolloutTimeoutMs);
  });
  const work = rollouts.map((r) =>
    ctx.scorer
      .score(r)
      .catch((e: unknown) => allUnscorable(ctx, "worker_error", { error: String((e as Error)?.message ?? e) })),
  );
  void Promise.all(work).then(() => {
    clearTimeout(timer);
    settled();
  });
  return work.map((w) =>
    Promise.race([w, deadline]).then((s) => {
      if (s) return s;
      ctx.metrics.rolloutTimeouts.inc();
      return allUnscorable(ctx, "timeout", { deadline: "rollout", timeoutMs: ctx.options.rolloutTimeoutMs });
    }),
  );
}

/** The rollouts of a request that wait for their groups: those with `group_size`, with their key, content and size. */
function heldOf(
  ctx: ServerContext,
  rollouts: readonly Rollout[],
): Array<{ k: number; key: string; fingerprint: string; bytes: number }> {
  const out: Array<{ k: number; key: string; fingerprint: string; bytes: number }> = [];
  if (!rollouts.some((r) => r.group_size !== undefined)) return out;
  rollouts.forEach((r, k) => {
    if (r.group_size === undefined) return;
    const text = JSON.stringify(r);
    // a retry must carry the same content; strings take about 2 bytes a character in memory
    out.push({ k, key: heldKey(ctx.spec.hash, r), fingerprint: fingerprint(text), bytes: 2 * text.length });
  });
  return out;
}
