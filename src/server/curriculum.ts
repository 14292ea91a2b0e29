/**
 * The curriculum on the server: every scored batch's groups go into the per-prompt statistics (and the replay
 * buffer), `filter: dapo` answers in the batch response, `GET /v1/curriculum?strategy=` gives sampling weights,
 * `GET /v1/replay?n=` the buffered groups, and `--state <file>` keeps the statistics (and the performance schedules)
 * across a restart. See docs/curriculum.md.
 */
import type { Context } from "hono";
import { CurriculumStateError } from "../curriculum/table.js";
import { CurriculumTracker } from "../curriculum/tracker.js";
import { scoredGroups } from "../curriculum/groups.js";
import type { ScoredRollout } from "../curriculum/groups.js";
import type { DapoReport } from "../curriculum/dapo.js";
import { parseStrategyParams } from "../curriculum/params.js";
import { UserError } from "../core/errors.js";
import type { Rollout } from "../core/types.js";
import type { RolloutScore } from "../engine/scorer.js";
import { readStateObject, writeStateAtomic } from "../io/state-file.js";
import type { ScheduleState } from "../schedule/runtime.js";
import type { ServerContext } from "./context.js";
import { errorResponse } from "./http.js";

/** How often a changed state is written to `--state`, ms (and once more at shutdown). */
const SAVE_INTERVAL_MS = 1000;

/**
 * Records a scored batch: its rollouts gathered into groups (the request's part of each group), `filter: dapo`
 * applied (dropped groups' advantages set to NaN in `advantages`), the groups recorded. Rollouts answered with an
 * error (`problems`) are left out. The statistics are in this process's table on return; the store's merges follow
 * (see `CurriculumTracker.record`). @returns the filter's report when the spec has one.
 */
export function recordBatch(
  ctx: ServerContext,
  rollouts: readonly Rollout[],
  scores: readonly RolloutScore[],
  advantages: Float64Array,
  problems: ReadonlyArray<string | undefined>,
): DapoReport | undefined {
  const cur = ctx.curriculum;
  if (!cur) return undefined;
  const idx: number[] = [];
  for (let k = 0; k < rollouts.length; k++) if (problems[k] === undefined) idx.push(k);
  // the texts are kept only for the replay buffer (a one-rollout request records one small group)
  const texts = cur.replay !== undefined;
  const groups = scoredGroups(
    cur.names,
    idx.map((k) => {
      const r = rollouts[k]!;
      const row: ScoredRollout = {
        id: r.id,
        group: r.group,
        step: r.step ?? 0,
        reward: scores[k]!.reward,
        scores: scores[k]!.results.map((x) => x.score),
        advantage: advantages[k]!,
      };
      if (r.prompt_id !== undefined) row.promptId = r.prompt_id;
      if (texts) {
        if (r.prompt !== undefined) row.prompt = r.prompt;
        row.completion = r.completion;
      }
      return row;
    }),
  );
  const filter = cur.filter(groups);
  if (filter) {
    const dropped = new Set(filter.report.dropped_groups);
    for (const k of idx) if (dropped.has(rollouts[k]!.group)) advantages[k] = NaN;
  }
  // the store's merges go on after the answer (the request does not wait for a store round trip per group)
  void cur.record(groups, filter?.keep);
  ctx.stateDirty = true;
  return filter?.report;
}

/** Reads `--state` at start: the performance schedules and the statistics resume. @throws {UserError} naming the file. */
export function restoreServerState(ctx: ServerContext, path: string): void {
  const flag = `--state ${path}`;
  const st = readStateObject(path, flag);
  if (!st) return;
  try {
    ctx.scorer.restore(st as unknown as ScheduleState);
    if (st.curriculum !== undefined) ctx.curriculum?.restore(st.curriculum);
  } catch (e) {
    if (e instanceof CurriculumStateError || e instanceof UserError) throw new UserError(`${flag}: ${e.message}`);
    throw e;
  }
}

/** Writes the state now (schedules and statistics). */
export function saveServerState(ctx: ServerContext, path: string): void {
  writeStateAtomic(path, {
    ...ctx.scorer.snapshot(),
    ...(ctx.curriculum ? { curriculum: ctx.curriculum.snapshot() } : {}),
  });
  ctx.stateDirty = false;
}

/** Saves the state every second while it changes. @returns a stop function (which saves once more). */
export function keepServerState(ctx: ServerContext, path: string): () => void {
  const t = setInterval(() => {
    if (!ctx.stateDirty) return;
    try {
      saveServerState(ctx, path);
    } catch (e) {
      process.stderr.write(`rewardkit serve: warning: --state ${path}: ${(e as Error).message}\n`);
    }
  }, SAVE_INTERVAL_MS);
  t.unref();
  return () => {
    clearInterval(t);
    saveServerState(ctx, path);
  };
}

const snake = (k: string): string => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * `GET /v1/curriculum?strategy=success-guided` (also `budget`, `cap`, `unit`, `bins`, `pass_rate`, `window`,
 * `review`, `floor`, `smooth`): `{"strategy", "rows": [{prompt_id, weight, pass_rate, attempts, ...}]}`, the
 * fleet's statistics when the server shares a store.
 */
export function curriculumHandler(ctx: ServerContext) {
  return async (c: Context): Promise<Response> => {
    if (!ctx.curriculum)
      return errorResponse(c, 400, "bad_request", "a routed server keeps no curriculum (serve one spec)");
    const strategy = c.req.query("strategy") ?? "success-guided";
    try {
      const params = parseStrategyParams((k) => c.req.query(snake(k)), snake);
      return c.json({ strategy, rows: await ctx.curriculum.rows(strategy, params) });
    } catch (e) {
      if (e instanceof UserError) return errorResponse(c, 400, "bad_request", e.message);
      throw e;
    }
  };
}

/** `GET /v1/replay?n=8`: up to n buffered groups (default all), best (or newest) first: `{"groups": [...]}`. */
export function replayHandler(ctx: ServerContext) {
  return (c: Context): Response => {
    const buf = ctx.curriculum?.replay;
    if (!buf) return errorResponse(c, 400, "bad_request", "the served spec has no replay: block");
    const q = c.req.query("n");
    const n = q === undefined ? undefined : Number(q);
    if (n !== undefined && !(Number.isInteger(n) && n >= 0))
      return errorResponse(c, 400, "bad_request", `n: expected a non-negative integer, got ${JSON.stringify(q)}`);
    return c.json({ groups: buf.take(n) });
  };
}

/** The tracker of a single-spec server (shared through the store when there is one). */
export function serverCurriculum(ctx: ServerContext): CurriculumTracker {
  const t = new CurriculumTracker(ctx.spec);
  if (ctx.store) t.share(ctx.store);
  return t;
}
