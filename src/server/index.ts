/**
 * `rewardkit serve`: a spec served over HTTP (hono on Node's http server). {@link startServer} loads nothing
 * itself: it takes a compiled spec, builds the scorer, listens, and returns a handle whose `shutdown()` drains
 * in-flight work (new requests get 503) and then closes every connection and the worker pool.
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import { createScorer } from "../engine/scorer.js";
import { createRoutedScorer } from "../engine/routes.js";
import { isRoutedSpec } from "../spec/routes.js";
import type { RoutedSpec } from "../spec/routes.js";
import { envelopeSpec, routeContexts, scorerFace } from "./routes.js";
import type { CompiledSpec } from "../spec/types.js";
import { createApp, routeLabel } from "./app.js";
import { isLoopbackHost } from "./guard.js";
import { createContext } from "./context.js";
import { serverHealth } from "./health.js";
import type { ServerContext } from "./context.js";
import { resolveOptions } from "./options.js";
import { openStore } from "../store/open.js";
import { StoreGuard } from "../store/guard.js";
import { shareModelStore } from "../client/model-store.js";
import { keepServerState, restoreServerState, serverCurriculum } from "./curriculum.js";

import type { ServerOptions } from "./options.js";

export { END_TOKENS, stripQuery } from "./openrlhf.js";
export type { ServerOptions } from "./options.js";
export { DEFAULTS as SERVER_DEFAULTS } from "./options.js";

/** A running server. */
export interface RunningServer {
  /** `http://host:port` actually bound (port resolved when 0 was asked for). */
  url: string;
  port: number;
  context: ServerContext;
  /**
   * Stops accepting work, waits for in-flight requests (at most `drainTimeoutMs`), then closes connections and
   * the worker pool. Idempotent. @returns whether everything in flight finished before the deadline.
   */
  shutdown(): Promise<boolean>;
}

/** Milliseconds between two log lines about clients that went away (the ones in between are counted in the next). */
const ABORT_LOG_INTERVAL_MS = 10_000;

/** One stderr line per client that closed its connection before its answer, at most one per 10 s. */
function abortLogger(write: (line: string) => void = (l) => process.stderr.write(l)) {
  let last = -Infinity;
  let skipped = 0;
  return (method: string, path: string, phase: "body" | "answer"): void => {
    const t = Date.now();
    if (t - last < ABORT_LOG_INTERVAL_MS) {
      skipped++;
      return;
    }
    last = t;
    const more = skipped > 0 ? ` (${skipped} more since the last such line)` : "";
    skipped = 0;
    write(
      `rewardkit serve: client closed the connection ${phase === "body" ? "before its request body was complete" : "before its answer was written"} (${method} ${path}); counted in rewardkit_client_aborted_total${more}\n`,
    );
  };
}

/**
 * Starts serving `spec`. @throws Error for inconsistent options, and for a non-loopback `host` without a token
 * unless `insecure` is set; rejects with the listen error (`EADDRINUSE`, `EACCES` …) when the port cannot be
 * bound, after closing the worker pool; rejects with a `UserError` naming the store when `store` is given and does
 * not answer within `storeWaitMs`.
 *
 * With `store`, the verdict cache (second tier), performance schedules, judge / reward-model budgets and request
 * records are shared with every replica on the same store (docs/scale.md); if the store fails later, the server
 * degrades to local state with a warning and `rewardkit_store_errors_total`, and never fails a rollout for it.
 */
export async function startServer(
  served: CompiledSpec | RoutedSpec,
  opts: Partial<ServerOptions> = {},
): Promise<RunningServer> {
  const options = resolveOptions(opts);
  if (!isLoopbackHost(options.host) && options.token === undefined && !options.insecure) {
    throw new Error(
      `refusing to serve on ${options.host} without a token: anyone who can reach that address could run the spec's verifiers (the math CAS, the code sandbox). ` +
        "Set REWARDKIT_TOKEN (or --token-file), bind 127.0.0.1, or pass --insecure to serve it open anyway",
    );
  }
  const store =
    options.store !== undefined ? new StoreGuard(await openStore(options.store, options.storeWaitMs)) : undefined;
  const unwatch = store?.watch(); // a degraded replica sees the store come back without traffic
  // model clients (judges, reward models) are built with the scorers below: they take the fleet's budgets from here
  shareModelStore(store);
  const scorerOptions = {
    prestart: true, // the first request should not wait for workers to load
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.cacheSize !== undefined ? { cacheSize: options.cacheSize } : {}),
    ...(store ? { store, storeTtlMs: options.storeTtlMs } : {}),
  };
  // a routed spec: one scorer per route behind one server (src/server/routes.ts)
  const routedScorer = isRoutedSpec(served) ? createRoutedScorer(served, scorerOptions) : undefined;
  const spec = isRoutedSpec(served) ? envelopeSpec(served) : served;
  const scorer = routedScorer ? scorerFace(routedScorer, spec) : createScorer(spec, scorerOptions);
  const ctx = createContext(spec, scorer, options, store ? { store } : {});
  if (routedScorer)
    ctx.routed = { spec: served as RoutedSpec, scorer: routedScorer, routes: routeContexts(ctx, routedScorer) };
  else ctx.curriculum = serverCurriculum(ctx);
  let stopState: (() => void) | undefined;
  if (options.statePath !== undefined) {
    try {
      restoreServerState(ctx, options.statePath);
    } catch (e) {
      await scorer.close();
      unwatch?.();
      await store?.store.close();
      throw e;
    }
    stopState = keepServerState(ctx, options.statePath);
  }
  const app = createApp(ctx);
  // the host checks (the code sandbox's self-test for the spec's languages) start now, so /readyz rarely waits
  void serverHealth(ctx).then((problems) => {
    for (const p of problems)
      process.stderr.write(
        `rewardkit serve: warning: this host cannot run component ${p.component} (${p.type}): ${p.problem}; its verdicts are sandbox_error and /readyz answers 503\n`,
      );
  });
  let active = 0;
  let cut = false; // the drain deadline passed and connections were closed on purpose
  const idle: Array<() => void> = [];
  const logAbort = abortLogger();
  let server: Server;
  try {
    server = await new Promise<Server>((resolve, reject) => {
      // autoCleanupIncoming off: an unread body (a request refused early with 413/429) is discarded by Node until its
      // end and the connection stays usable; hono's own cleanup would cut it after 500 ms, resetting a keep-alive
      // connection the client has already reused
      const s = serve(
        { fetch: app.fetch, hostname: options.host, port: options.port, autoCleanupIncoming: false },
        () => resolve(s),
      ) as Server;
      s.once("error", reject);
      // counts a request until its response is fully written, so draining never cuts a reply short
      s.on("request", (req, res) => {
        active++;
        res.once("close", () => {
          // a client that went away before its answer: counted and logged as such, never as a server error
          if (!res.writableFinished && !cut) {
            const path = (req.url ?? "/").split("?")[0]!;
            const phase = req.complete ? "answer" : "body";
            ctx.metrics.clientAborted.inc({ route: routeLabel(path), phase });
            logAbort(req.method ?? "?", path, phase);
          }
          if (--active === 0) for (const f of idle.splice(0)) f();
        });
      });
    });
  } catch (e) {
    stopState?.();
    await scorer.close(); // the port could not be bound: nobody else holds the worker pool
    unwatch?.();
    await store?.store.close();
    throw e;
  }
  server.keepAliveTimeout = 65_000; // longer than common client pools' idle timeouts
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<boolean> | undefined;

  async function shutdown(): Promise<boolean> {
    ctx.ready = false; // balancers see /readyz fail and stop sending; work still arrives and is served meanwhile
    if (options.shutdownDelayMs > 0) await new Promise((r) => setTimeout(r, options.shutdownDelayMs));
    ctx.draining = true;
    // new work is refused from now on, so waiting groups cannot complete here: their requests get 503 and the
    // clients send them on to another replica, where the group meets again
    ctx.groups.evict("this replica is shutting down; send the group to another replica");
    server.close(); // no new connections; the callback fires once every connection is gone
    server.closeIdleConnections();
    const finished = await Promise.race([
      (async () => {
        await ctx.admission.drained();
        if (active > 0) await new Promise<void>((resolve) => idle.push(resolve));
        return true;
      })(),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), options.drainTimeoutMs).unref()),
    ]);
    cut = true;
    server.closeAllConnections();
    try {
      stopState?.();
    } catch (e) {
      process.stderr.write(`rewardkit serve: warning: --state ${options.statePath}: ${(e as Error).message}\n`);
    }
    await scorer.close();
    await ctx.curriculum?.settled(); // the statistics' last merges reach the store before it closes
    unwatch?.();
    await store?.store.close();
    return finished;
  }

  return {
    url: `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}`,
    port,
    context: ctx,
    shutdown: () => (closing ??= shutdown()),
  };
}
