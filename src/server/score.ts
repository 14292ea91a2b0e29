import { computeReward } from "../compose/reward.js";
import { stageBatch } from "../compose/group-stage.js";
import type { ComponentResult, Rollout } from "../core/types.js";
import { unscorable } from "../core/types.js";
import { batchAdvantages } from "../engine/advantage-batch.js";
import type { RolloutScore } from "../engine/scorer.js";
import type { ServerContext } from "./context.js";

/** Scores of admitted rollouts in input order, and advantages over the groups present, shape [n] (NaN: none). */
export interface ScoredBatch {
  scores: RolloutScore[];
  advantages: Float64Array;
}

function allUnscorable(
  ctx: ServerContext,
  reason: "timeout" | "worker_error",
  details: Record<string, unknown>,
): RolloutScore {
  const results: ComponentResult[] = ctx.spec.components.map(() => unscorable(reason, details));
  return { results, reward: computeReward(ctx.spec, results) };
}

/**
 * Scores valid rollouts under the server's per-rollout deadline (one timer per batch: a rollout not answered
 * `rolloutTimeoutMs` after admission reads `unscorable("timeout")` on every component; its component deadlines
 * still stop the work in the pool). Then computes the spec's advantages over the groups in this batch only:
 * a group split across requests is normalized per request.
 * @param settled called once every rollout's work has really finished (after the answer when the deadline
 *   passed): the caller releases the rollouts' admission then, so the queue bound covers work still running.
 */
export async function scoreRollouts(
  ctx: ServerContext,
  rollouts: readonly Rollout[],
  settled: () => void = () => {},
): Promise<ScoredBatch> {
  const n = rollouts.length;
  const scores = new Array<RolloutScore | undefined>(n);
  if (n === 0) settled();
  else {
    await new Promise<void>((resolve) => {
      let left = n;
      const timer = setTimeout(resolve, ctx.options.rolloutTimeoutMs);
      const done = (i: number, s: RolloutScore): void => {
        scores[i] = s;
        if (--left === 0) {
          clearTimeout(timer);
          resolve();
          settled();
        }
      };
      rollouts.forEach((r, i) => {
        ctx.scorer.score(r).then(
          (s) => done(i, s),
          (e: unknown) => done(i, allUnscorable(ctx, "worker_error", { error: String((e as Error)?.message ?? e) })),
        );
      });
    });
  }
  const m = ctx.metrics;
  const names = ctx.spec.components.map((c) => c.name);
  const final = Array.from(scores, (s) => {
    if (s) return s;
    m.rolloutTimeouts.inc();
    return allUnscorable(ctx, "timeout", { deadline: "rollout", timeoutMs: ctx.options.rolloutTimeoutMs });
  });
  stageBatch(ctx.spec, rollouts, final, (step) => ctx.scorer.valuesAt(step)); // group-context components see the batch's groups
  m.rolloutsScored.inc({}, n);
  for (const s of final) {
    for (let k = 0; k < s.results.length; k++) {
      const r = s.results[k]!;
      if (r.status !== "ok") m.unscorable.inc({ component: names[k]!, reason: r.reason ?? "unknown" });
    }
  }
  return { scores: final, advantages: batchAdvantages(ctx.spec, rollouts, final) };
}
