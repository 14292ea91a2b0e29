/**
 * The native protocol, version 1 (snake_case JSON):
 * - `POST /v1/score` `{"rollouts": [...], "step"?: n, "details"?: bool}` →
 *   `{"results": [{"id", "reward", "components", "advantage"} | {"id", "error", ...}], "spec": {"name", "hash"}, "timing_ms"}`
 *   (+ `"filter": {groups, kept, dropped, batch_size, need, sample, metric, dropped_groups}` with `filter: dapo`)
 * - `GET /v1/curriculum?strategy=` and `GET /v1/replay?n=`: see `curriculum.ts`.
 * - `POST /v1/advantages` `{"rollouts": [{"id", "group", "reward", "components"?}], "estimator"?, "preset"?, "options"?}` →
 *   `{"results": [{"id", "advantage"}], "estimator": {"name", "options"}}`
 * - `GET /v1/spec` → the served spec, its hash and the server's limits.
 * Results are in request order, one per input rollout; an invalid rollout gets an entry with `error` and
 * never fails the batch.
 */
import type { Context } from "hono";
import { nullable } from "../advantage/compute.js";
import type { Rollout } from "../core/types.js";
import { componentsRecord } from "../engine/score-file.js";
import { planFor, planFromSpec, readScoredRecord, ScoredRows } from "../engine/scored-rows.js";
import type { AdvantagePlan } from "../engine/scored-rows.js";
import type { ServerContext } from "./context.js";
import { stripDetails } from "./strip.js";
import { tokenAdvantageFields } from "../engine/token-advantages.js";
import { errorResponse, isObject, readJson } from "./http.js";
import { parseRollouts } from "./parse.js";
import type { Parsed, RolloutError } from "./parse.js";
import { GroupsEvicted, GroupsFull, scoreRollouts } from "./score.js";
import type { ScoredBatch } from "./score.js";
import { LEASE } from "./limits.js";
import type { BodyLease } from "./limits.js";
import { noteMissingStep, requestStep } from "./step.js";
import { routedScoreResponse, routedSpecBody } from "./routes.js";
import { REQUEST_ID_HEADER, requestId } from "./idempotency.js";
import { groupProblems } from "./group-size-checks.js";
import { STEP_HEADER } from "./step.js";

/** Checks the envelope `{"rollouts": [...]}`: an object, an array within the size limit. */
export function rolloutsOf(
  ctx: ServerContext,
  c: Context,
  body: unknown,
): { rollouts: unknown[] } | { response: Response } {
  if (!isObject(body))
    return {
      response: errorResponse(c, 400, "bad_request", 'request body: expected a JSON object like {"rollouts": [...]}'),
    };
  const rs = body.rollouts;
  if (!Array.isArray(rs))
    return {
      response: errorResponse(
        c,
        400,
        "bad_request",
        `rollouts: expected an array, got ${rs === undefined ? "nothing" : typeof rs}`,
      ),
    };
  if (rs.length > ctx.options.maxRollouts)
    return {
      response: errorResponse(
        c,
        413,
        "too_large",
        `rollouts: ${rs.length} exceeds the limit of ${ctx.options.maxRollouts} per request; split the batch`,
      ),
    };
  return { rollouts: rs };
}

/**
 * 429 with `Retry-After` when `n` rollouts do not fit in the queue; undefined when admitted. With `n` undefined,
 * only checks for a full queue (before the body is read: under overload, refusing costs no parsing).
 */
export function admit(ctx: ServerContext, c: Context, n?: number): Response | undefined {
  if (n === undefined ? !ctx.admission.full : n === 0 || ctx.admission.tryAcquire(n)) return undefined;
  const s = ctx.admission.retryAfter(n ?? 1);
  return errorResponse(
    c,
    429,
    "overloaded",
    `queue full (${ctx.admission.depth}/${ctx.admission.capacity} rollouts pending); retry after ${s} s`,
    { "Retry-After": String(s) },
  );
}

/**
 * Scores through `run` (given the hook that returns the request's body budget while its rollouts wait for their
 * groups) and answers the barrier's refusals: 503 with `Retry-After` when the waiting groups are at their bound,
 * 503 when the replica began shutting down while the groups waited (the client sends them elsewhere).
 */
export async function scoringResponse(
  ctx: ServerContext,
  c: Context,
  run: (onHold: () => void) => Promise<Response>,
): Promise<Response> {
  try {
    return await run(() => (c.get(LEASE as never) as BodyLease | undefined)?.release());
  } catch (e) {
    if (e instanceof GroupsFull) {
      ctx.metrics.groupsRefused.inc();
      return errorResponse(c, 503, "overloaded", `${e.message}; retry after ${e.retryAfterS} s`, {
        "Retry-After": String(e.retryAfterS),
      });
    }
    if (e instanceof GroupsEvicted) return errorResponse(c, 503, "shutting_down", e.message, { "Retry-After": "0" });
    throw e;
  }
}

/**
 * `POST /v1/score`. With `X-Rewardkit-Request-Id`, the answer is recorded and a retry with the same id and body
 * (and step header) is answered from the record, marked `X-Rewardkit-Replayed: true`, without scoring anything again;
 * the same id with another body is 409 (see `idempotency.ts`).
 */
export function scoreHandler(ctx: ServerContext) {
  return async (c: Context): Promise<Response> => {
    const t0 = performance.now();
    const full = admit(ctx, c);
    if (full) return full;
    const rid = requestId(c.req.header(REQUEST_ID_HEADER));
    if ("error" in rid) return errorResponse(c, 400, "bad_request", rid.error);
    const body = await readJson(c, ctx.options.maxBodyBytes);
    if ("response" in body) return body.response;
    const env = rolloutsOf(ctx, c, body.value);
    if ("response" in env) return env.response;
    const { details } = body.value as { details?: unknown };
    const step = requestStep(c, (body.value as { step?: unknown }).step);
    if ("error" in step) return errorResponse(c, 400, "bad_request", step.error);
    if (details !== undefined && typeof details !== "boolean")
      return errorResponse(c, 400, "bad_request", "details: expected true or false");
    const parsed = groupProblems(parseRollouts(env.rollouts, "score", step.step), env.rollouts);
    const answer = (): Promise<Response> => scoreParsed(ctx, c, parsed, details, t0);
    if (rid.id === undefined) return answer();
    let fresh: Response | undefined; // scored here: answered as it is (with its headers, e.g. a 429's Retry-After)
    const outcome = await ctx.records.run(rid.id, `${c.req.header(STEP_HEADER) ?? ""}\u0000${body.text}`, async () => {
      fresh = await answer();
      return { status: fresh.status, body: await fresh.clone().text() };
    });
    if (outcome.kind === "conflict") return errorResponse(c, 409, "conflict", outcome.message);
    if (!outcome.replayed && fresh) return fresh;
    const { status, body: text } = outcome.answer;
    return c.body(text, status as 200, {
      "Content-Type": "application/json",
      ...(outcome.replayed ? { "X-Rewardkit-Replayed": "true" } : {}),
    });
  };
}

/** Admits, scores and answers parsed rollouts (errors stay in their place, one result per input). */
async function scoreParsed(
  ctx: ServerContext,
  c: Context,
  parsed: Parsed[],
  details: boolean | undefined,
  t0: number,
): Promise<Response> {
  const valid = parsed.filter((p): p is Extract<Parsed, { rollout: Rollout }> => "rollout" in p);
  const refused = admit(ctx, c, valid.length);
  if (refused) return refused;
  noteMissingStep(ctx, "/v1/score", valid.filter((p) => p.rollout.step === undefined).length, valid.length);
  return scoringResponse(ctx, c, async (onHold) => {
    if (ctx.routed) return routedScoreResponse(ctx, c, parsed, details, t0, onHold);
    const batch = await scoreRollouts(
      ctx,
      valid.map((p) => p.rollout),
      () => ctx.admission.release(valid.length),
      onHold,
    );
    return nativeAnswer(ctx, c, parsed, batch, details, t0);
  });
}

/** The `/v1/score` answer of a single-spec server: one entry per parsed rollout, in request order. */
function nativeAnswer(
  ctx: ServerContext,
  c: Context,
  parsed: Parsed[],
  batch: ScoredBatch,
  details: boolean | undefined,
  t0: number,
): Response {
  let k = 0;
  let errors = 0;
  const results = parsed.map((p) => {
    if ("error" in p) {
      errors++;
      return { id: p.id, reward: null, components: null, advantage: null, error: p.error };
    }
    const j = k++;
    const problem = batch.problems[j];
    if (problem !== undefined) {
      errors++;
      const error: RolloutError = { field: `rollouts[${p.index}].id`, message: problem };
      return { id: p.id, reward: null, components: null, advantage: null, error };
    }
    const s = batch.scores[j]!;
    const components = componentsRecord(ctx.spec, s.results);
    return {
      id: p.id,
      reward: s.reward,
      components: details === false ? stripDetails(components) : components,
      advantage: nullable(batch.advantages[j]!),
      ...tokenAdvantageFields(ctx.spec, batch.advantages[j]!, s.results),
    };
  });
  ctx.metrics.rolloutErrors.inc({}, errors);
  return c.json({
    results,
    spec: { name: ctx.spec.name, hash: ctx.spec.hash },
    ...(batch.filter ? { filter: batch.filter } : {}),
    timing_ms: Math.round((performance.now() - t0) * 100) / 100,
  });
}

/**
 * `POST /v1/advantages`: advantages of already-scored rollouts, with the spec's estimator or another one, through
 * the same scored-rows collector as `/v1/score` and `rewardkit advantages` (same rows in → same advantages).
 * Optional `"on_unscorable": "zero" | "exclude"` (default: the served spec's `onUnscorable`). Multi-component
 * estimators default to the spec's counting components and weights. Response lengths come from `completion_tokens`
 * (else ceil(chars/4) of `completion`), strata from `options.key`.
 */
export function advantagesHandler(ctx: ServerContext) {
  return async (c: Context): Promise<Response> => {
    if (ctx.routed)
      return errorResponse(
        c,
        400,
        "bad_request",
        "this server routes rollouts to several specs, each with its own estimator: /v1/score returns each rollout's advantage from its route; /v1/advantages takes a single spec (serve a route's spec on its own)",
      );
    const body = await readJson(c, ctx.options.maxBodyBytes);
    if ("response" in body) return body.response;
    const env = rolloutsOf(ctx, c, body.value);
    if ("response" in env) return env.response;
    const req = body.value as { estimator?: unknown; preset?: unknown; options?: unknown; on_unscorable?: unknown };
    if (req.estimator !== undefined && typeof req.estimator !== "string")
      return errorResponse(c, 400, "bad_request", "estimator: expected a string");
    if (req.preset !== undefined && typeof req.preset !== "string")
      return errorResponse(c, 400, "bad_request", "preset: expected a string");
    if (req.options !== undefined && !isObject(req.options))
      return errorResponse(c, 400, "bad_request", "options: expected an object");
    if (req.on_unscorable !== undefined && req.on_unscorable !== "zero" && req.on_unscorable !== "exclude")
      return errorResponse(c, 400, "bad_request", 'on_unscorable: expected "zero" or "exclude"');
    const onUnscorable = req.on_unscorable ?? ctx.spec.onUnscorable;
    let plan: AdvantagePlan = { ...planFromSpec(ctx.spec), onUnscorable };
    if (req.estimator !== undefined || req.preset !== undefined || req.options !== undefined) {
      try {
        plan = planFor(req.estimator ?? plan.estimator.name, req.preset, req.options ?? {}, onUnscorable, ctx.spec);
      } catch (e) {
        return errorResponse(c, 400, "bad_request", (e as Error).message);
      }
    }
    const rows = new ScoredRows(plan);
    const fields = plan.stratumKey !== undefined ? { stratumKey: plan.stratumKey } : {};
    // each entry: its slot in the estimator's arrays, or the problem that kept it out
    const entries = parseRollouts(env.rollouts, "advantages").map(
      (p): { id: string; k: number } | { id: string; error: RolloutError } => {
        if ("error" in p) return p;
        const s = readScoredRecord(env.rollouts[p.index] as Record<string, unknown>, p.rollout.group, fields);
        if ("problem" in s)
          return { id: p.id, error: { field: `rollouts[${p.index}].${s.problem.field}`, message: s.problem.message } };
        return { id: p.id, k: rows.add(s.row) };
      },
    );
    let adv: Float64Array;
    try {
      adv = rows.compute().advantages;
    } catch (e) {
      return errorResponse(c, 400, "bad_request", (e as Error).message);
    }
    const results = entries.map((e) =>
      "error" in e ? { id: e.id, advantage: null, error: e.error } : { id: e.id, advantage: nullable(adv[e.k]!) },
    );
    return c.json({ results, estimator: { name: plan.estimator.name, options: plan.options } });
  };
}

/** `GET /v1/spec`: what the server computes and its limits. */
export function specHandler(ctx: ServerContext) {
  const o = ctx.options;
  const body = {
    name: ctx.spec.name,
    hash: ctx.spec.hash,
    components: ctx.spec.components.map((c) => c.name),
    spec: ctx.spec.plain as unknown,
    ...(ctx.routed ? routedSpecBody(ctx) : {}),
    limits: {
      max_body_bytes: o.maxBodyBytes,
      max_rollouts: o.maxRollouts,
      max_queue: o.maxQueue,
      rollout_timeout_ms: o.rolloutTimeoutMs,
    },
    protocol: "rewardkit/v1",
  };
  return (c: Context): Response => c.json(body);
}
