/**
 * Serving a routed spec (src/spec/routes.ts): one server, one scorer per route. `POST /v1/score` (and the TRL /
 * verl clients built on it) and OpenRLHF's `POST /get_reward` send each rollout to its route's scorer, under the
 * server's per-rollout deadline and admission as usual; every result carries its `route`. See docs/routing.md.
 */
import type { Context } from "hono";
import { nullable } from "../advantage/compute.js";
import type { Rollout } from "../core/types.js";
import type { RolloutScore, Scorer } from "../engine/scorer.js";
import { componentsRecord } from "../engine/score-file.js";
import { applyBatchWide, partition, splitGroups, splitWarning } from "../engine/routes.js";
import type { RoutedScorer, RouteProblem } from "../engine/routes.js";
import type { RoutedSpec } from "../spec/routes.js";
import type { CompiledSpec } from "../spec/types.js";
import type { ServerContext } from "./context.js";
import { stripDetails } from "./strip.js";
import { tokenAdvantageFields } from "../engine/token-advantages.js";
import { openrlhfScore } from "./openrlhf-score.js";
import { GroupsFull, scoreRollouts } from "./score.js";
import { heldKey } from "./held-groups.js";
import type { Parsed } from "./parse.js";

/**
 * The spec a routed server's own context stands for (name and hash of the routed spec, every route's schedules for
 * the missing-step warning, no components of its own): the handlers branch on `ctx.routed` before reading more.
 */
export function envelopeSpec(routed: RoutedSpec): CompiledSpec {
  const first = routed.routes.values().next().value as CompiledSpec;
  const schedules = [...routed.routes.entries()].flatMap(([k, s]) =>
    s.schedules.map((x) => ({ ...x, path: `routes.${k}.${x.path}` })),
  );
  return {
    ...first,
    name: routed.name,
    hash: routed.hash,
    components: [],
    schedules,
    plain: { ...first.plain, name: routed.name, components: [] },
  };
}

/** A {@link Scorer} face of a routed scorer for the server's shared parts (metrics, shutdown): it scores nothing itself. */
export function scorerFace(routed: RoutedScorer, spec: CompiledSpec): Scorer {
  return {
    spec,
    score: () => Promise.reject(new Error("a routed server scores through its routes")),
    valuesAt: () => undefined,
    snapshot: () => ({ version: 1, frontier: -1, schedules: {}, pending: [] }),
    restore: () => {},
    stats: () => routed.stats(),
    usage: () => routed.usage(),
    close: () => routed.close(),
  };
}

/** Per-route contexts reading through to the server's own (options, admission, metrics, draining). */
export function routeContexts(ctx: ServerContext, scorer: RoutedScorer): Map<string, ServerContext> {
  const out = new Map<string, ServerContext>();
  for (const [key, s] of scorer.scorers)
    out.set(key, Object.assign(Object.create(ctx) as ServerContext, { spec: s.spec, scorer: s }));
  return out;
}

/** Scores of a mixed request in input order. */
interface RoutedScored {
  keys: (string | null)[];
  problems: (RouteProblem | undefined)[];
  /** Per rollout, why the group barrier refused it (see {@link ScoredBatch.problems}). */
  problemsHeld: (string | undefined)[];
  scores: (RolloutScore | null)[];
  specs: (CompiledSpec | null)[];
  advantages: Float64Array;
  warnings: string[];
}

/**
 * Scores a request's rollouts, each by its route ({@link scoreRollouts} per route, concurrently), advantages per
 * route; `settled` once every route's work has finished. A group spanning routes gets no advantage.
 */
export async function routedScoreRollouts(
  ctx: ServerContext,
  rollouts: readonly Rollout[],
  settled: () => void = () => {},
  onHold: () => void = () => {},
): Promise<RoutedScored> {
  const r = ctx.routed!;
  const { keys, problems, parts } = partition(r.spec, rollouts);
  const n = rollouts.length;
  const full = ctx.groups.room(heldJoins(ctx, rollouts, keys));
  if (full) {
    settled();
    throw new GroupsFull(full.message, full.retryAfterS);
  }
  const scores = new Array<RolloutScore | null>(n).fill(null);
  const problemsHeld = new Array<string | undefined>(n);
  const specs = new Array<CompiledSpec | null>(n).fill(null);
  const advantages = new Float64Array(n).fill(NaN);
  let left = parts.size;
  if (left === 0) settled();
  const one = (): void => {
    if (--left === 0) settled();
  };
  await Promise.all(
    [...parts.entries()].map(async ([key, idx]) => {
      const sub = r.routes.get(key)!;
      const b = await scoreRollouts(
        sub,
        idx.map((i) => rollouts[i]!),
        one,
        onHold,
      );
      idx.forEach((i, j) => {
        scores[i] = b.scores[j]!;
        problemsHeld[i] = b.problems[j];
        specs[i] = sub.spec;
        advantages[i] = b.advantages[j]!;
      });
    }),
  );
  const warnings = applyBatchWide(r.spec, rollouts, scores, advantages);
  const split = splitGroups(
    rollouts.map((x) => x.group),
    keys,
  );
  if (split.size > 0) rollouts.forEach((x, i) => split.has(x.group) && (advantages[i] = NaN));
  const w = splitWarning(split);
  return { keys, problems, problemsHeld, scores, specs, advantages, warnings: [...warnings, ...(w ? [w] : [])] };
}

/** The barrier joins a routed request would make (each held rollout under its route's spec), for the room check. */
function heldJoins(
  ctx: ServerContext,
  rollouts: readonly Rollout[],
  keys: readonly (string | null)[],
): Array<{ key: string; bytes: number }> {
  const out: Array<{ key: string; bytes: number }> = [];
  rollouts.forEach((r, i) => {
    const route = keys[i];
    if (r.group_size === undefined || route === null || route === undefined) return;
    out.push({ key: heldKey(ctx.routed!.routes.get(route)!.spec.hash, r), bytes: 2 * JSON.stringify(r).length });
  });
  return out;
}

/**
 * The `/v1/score` answer of a routed server: one entry per request rollout, in order, each with its `route`; a
 * rollout without a route gets an `error` naming the routing field and its value (and `route: null`), the rest is
 * scored. `warnings` appears when a group spans routes.
 */
export async function routedScoreResponse(
  ctx: ServerContext,
  c: Context,
  parsed: readonly Parsed[],
  details: boolean | undefined,
  t0: number,
  onHold: () => void = () => {},
): Promise<Response> {
  const valid = parsed.filter((p): p is Extract<Parsed, { rollout: Rollout }> => "rollout" in p);
  const b = await routedScoreRollouts(
    ctx,
    valid.map((p) => p.rollout),
    () => ctx.admission.release(valid.length),
    onHold,
  );
  let k = 0;
  let unrouted = 0;
  const results = parsed.map((p) => {
    if ("error" in p) return { id: p.id, reward: null, components: null, advantage: null, route: null, error: p.error };
    const j = k++;
    const s = b.scores[j];
    const held = b.problemsHeld[j];
    // no route, or refused by the group barrier: an error entry in its place
    const error = !s
      ? { field: `rollouts[${p.index}].${b.problems[j]!.field}`, message: b.problems[j]!.message }
      : held !== undefined
        ? { field: `rollouts[${p.index}].id`, message: held }
        : undefined;
    if (!s || error) {
      unrouted++;
      return { id: p.id, reward: null, components: null, advantage: null, route: s ? b.keys[j] : null, error };
    }
    const components = componentsRecord(b.specs[j]!, s.results);
    return {
      id: p.id,
      reward: s.reward,
      components: details === false ? stripDetails(components) : components,
      advantage: nullable(b.advantages[j]!),
      ...tokenAdvantageFields(b.specs[j]!, b.advantages[j]!, s.results),
      route: b.keys[j],
    };
  });
  ctx.metrics.rolloutErrors.inc({}, parsed.length - valid.length + unrouted);
  return c.json({
    results,
    spec: { name: ctx.spec.name, hash: ctx.spec.hash },
    ...(b.warnings.length > 0 ? { warnings: b.warnings } : {}),
    timing_ms: Math.round((performance.now() - t0) * 100) / 100,
  });
}

/**
 * OpenRLHF's `/get_reward` answer of a routed server (the route field is read from the rollout built from the query,
 * e.g. `by: reference.data_source` with JSON labels). `rewards` is each rollout's route reward (0.0 without a route:
 * OpenRLHF needs floats; `extra_logs.no_route` is 1.0 there, and a line is written to stderr); `extra_logs` has
 * `<route>/<component>` (0.0 for the other routes' rollouts) and `route/<key>` (1.0 for that route's rollouts, so a
 * per-route mean is the column's sum over the indicator's).
 */
export async function routedGetReward(
  ctx: ServerContext,
  c: Context,
  rollouts: readonly Rollout[],
  onHold: () => void = () => {},
): Promise<Response> {
  const b = await routedScoreRollouts(ctx, rollouts, () => ctx.admission.release(rollouts.length), onHold);
  const n = rollouts.length;
  const extra: Record<string, number[]> = { no_route: b.keys.map((k) => (k === null ? 1 : 0)) };
  const scoreOf = new Map<string, ReturnType<typeof openrlhfScore>>();
  for (const [key, sub] of ctx.routed!.routes) {
    scoreOf.set(key, openrlhfScore(sub.spec));
    extra[`route/${key}`] = b.keys.map((k) => (k === key ? 1 : 0));
    sub.spec.components.forEach((comp, ci) => {
      extra[`${key}/${comp.name}`] = Array.from({ length: n }, (_, i) =>
        b.keys[i] === key ? (b.scores[i]!.results[ci]!.score ?? 0) : 0,
      );
    });
  }
  const missing = b.problems.find((p) => p !== undefined);
  if (missing)
    process.stderr.write(
      `rewardkit serve: /get_reward: ${b.keys.filter((k) => k === null).length} of ${n} rollouts had no route (${missing.message}); sent reward 0.0 with extra_logs.no_route = 1.0\n`,
    );
  const rewards = b.scores.map((s) => s?.reward ?? 0);
  const scores = b.scores.map((s, i) => (s ? scoreOf.get(b.keys[i]!)!(s.results, s.reward) : 0));
  return c.json({ rewards, scores, extra_logs: extra });
}

/** `GET /v1/spec` of a routed server: the routing rule, each route's spec, and the union of component names. */
export function routedSpecBody(ctx: ServerContext): Record<string, unknown> {
  const r = ctx.routed!;
  const names = [...new Set([...r.spec.routes.values()].flatMap((s) => s.components.map((c) => c.name)))];
  return {
    name: r.spec.name,
    hash: r.spec.hash,
    by: r.spec.by,
    routes: [...r.spec.routes.keys()],
    components: names,
    spec: r.spec.plain,
  };
}
