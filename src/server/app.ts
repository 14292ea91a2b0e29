import { Hono } from "hono";
import type { ServerContext } from "./context.js";
import { hostOriginGuard, jsonBodyOnly } from "./guard.js";
import { healthWithin } from "./health.js";
import { bearerAuth, errorResponse } from "./http.js";
import { bodyAdmission } from "./limits.js";
import { advantagesHandler, scoreHandler, specHandler } from "./native.js";
import { getRewardHandler } from "./openrlhf.js";
import { curriculumHandler, replayHandler } from "./curriculum.js";

/** Routes with their own latency series; anything else is labelled `other` (bounded label cardinality). */
const ROUTES = new Set([
  "/v1/score",
  "/v1/advantages",
  "/v1/spec",
  "/v1/curriculum",
  "/v1/replay",
  "/get_reward",
  "/healthz",
  "/readyz",
  "/metrics",
]);
/** Routes that answer while draining (so orchestrators can watch the shutdown). */
const DURING_DRAIN = new Set(["/healthz", "/readyz", "/metrics"]);

/** Is `path` one of the routes (else it is labelled `other`)? */
export function routeLabel(path: string): string {
  return ROUTES.has(path) ? path : "other";
}

/**
 * The HTTP application: metrics → Host / Origin guard (403) → drain gate → bearer auth (all but `/healthz`) →
 * JSON content type for bodies (415) → body admission (413 / 429 before the body is read) → routes (each reads
 * its body under `maxBodyBytes`).
 * Every error is `{"error": {"code", "message"}}` with a 4xx/5xx status; never a bare 500 for one bad rollout.
 */
export function createApp(ctx: ServerContext): Hono {
  const app = new Hono();
  const m = ctx.metrics;

  app.use("*", async (c, next) => {
    const t0 = performance.now();
    await next();
    const route = routeLabel(c.req.path);
    m.requests.inc({ route, code: String(c.res.status) });
    m.latency.observe((performance.now() - t0) / 1000, { route });
  });
  app.use(
    "*",
    hostOriginGuard({
      host: ctx.options.host,
      allowHosts: ctx.options.allowHosts,
      allowOrigins: ctx.options.allowOrigins,
    }),
  );
  app.use("*", async (c, next) => {
    if (ctx.draining && !DURING_DRAIN.has(c.req.path))
      return errorResponse(c, 503, "shutting_down", "server is shutting down", {
        "Retry-After": "5",
        Connection: "close",
      });
    return next();
  });
  if (ctx.options.token !== undefined) app.use("*", bearerAuth(ctx.options.token, new Set(["/healthz", "/readyz"])));
  app.use("*", jsonBodyOnly());
  app.use("*", bodyAdmission(ctx.bodies, ctx.options.maxBodyBytes));

  app.get("/healthz", (c) =>
    c.json(
      { status: ctx.draining ? "draining" : "ok", spec: { name: ctx.spec.name, hash: ctx.spec.hash } },
      ctx.draining ? 503 : 200,
    ),
  );
  // readiness (load balancers, Kubernetes readinessProbe): 503 from SIGTERM on, while /healthz (liveness) stays 200
  // until draining; the store's state is reported, not judged: a degraded replica still scores (on local state).
  // A host that cannot run the spec's verifiers (the code sandbox's self-test fails) is not ready either: every
  // verdict it gave would be a sandbox_error, so balancers should send the work elsewhere.
  app.get("/readyz", async (c) => {
    const ready = ctx.ready && !ctx.draining;
    const store = ctx.store ? { store: { address: ctx.store.store.description, up: !ctx.store.health.degraded } } : {};
    if (!ready) return c.json({ status: "shutting_down", ...store }, 503);
    const problems = await healthWithin(ctx);
    if (problems === undefined)
      return c.json(
        { status: "starting", reason: "the host checks (code sandbox self-test) are running", ...store },
        503,
      );
    if (problems.length > 0) {
      const reason = problems.map((p) => `${p.component}: ${p.problem}`).join("; ");
      return c.json({ status: "host_broken", reason, problems, ...store }, 503);
    }
    return c.json({ status: "ready", ...store }, 200);
  });
  app.get("/metrics", (c) =>
    c.body(m.registry.render(), 200, { "Content-Type": "text/plain; version=0.0.4; charset=utf-8" }),
  );
  app.get("/v1/spec", specHandler(ctx));
  app.post("/v1/score", scoreHandler(ctx));
  app.post("/v1/advantages", advantagesHandler(ctx));
  app.post("/get_reward", getRewardHandler(ctx));
  app.get("/v1/curriculum", curriculumHandler(ctx));
  app.get("/v1/replay", replayHandler(ctx));

  app.notFound((c) =>
    errorResponse(
      c,
      404,
      "not_found",
      `no route ${c.req.method} ${c.req.path}; see GET /v1/spec, POST /v1/score, POST /v1/advantages, GET /v1/curriculum, GET /v1/replay, POST /get_reward, GET /healthz, GET /readyz, GET /metrics`,
    ),
  );
  app.onError((e, c) => {
    process.stderr.write(`rewardkit serve: internal error on ${c.req.method} ${c.req.path}: ${e.stack ?? e.message}\n`);
    return errorResponse(c, 500, "internal", e.message);
  });
  return app;
}
