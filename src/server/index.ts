/**
 * `rewardkit serve`: a spec served over HTTP (hono on Node's http server). {@link startServer} loads nothing
 * itself: it takes a compiled spec, builds the scorer, listens, and returns a handle whose `shutdown()` drains
 * in-flight work (new requests get 503) and then closes every connection and the worker pool.
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import { createScorer } from "../engine/scorer.js";
import type { CompiledSpec } from "../spec/types.js";
import { createApp } from "./app.js";
import { createContext } from "./context.js";
import type { ServerContext } from "./context.js";
import { resolveOptions } from "./options.js";
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

/**
 * Starts serving `spec`. @throws Error for inconsistent options; rejects with the listen error (`EADDRINUSE`,
 * `EACCES` …) when the port cannot be bound, after closing the worker pool.
 */
export async function startServer(spec: CompiledSpec, opts: Partial<ServerOptions> = {}): Promise<RunningServer> {
  const options = resolveOptions(opts);
  const scorer = createScorer(spec, {
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.cacheSize !== undefined ? { cacheSize: options.cacheSize } : {}),
  });
  const ctx = createContext(spec, scorer, options);
  const app = createApp(ctx);
  let active = 0;
  const idle: Array<() => void> = [];
  let server: Server;
  try {
    server = await new Promise<Server>((resolve, reject) => {
      const s = serve({ fetch: app.fetch, hostname: options.host, port: options.port }, () => resolve(s as Server)) as Server;
      s.once("error", reject);
      // counts a request until its response is fully written, so draining never cuts a reply short
      s.on("request", (_req, res) => {
        active++;
        res.once("close", () => {
          if (--active === 0) for (const f of idle.splice(0)) f();
        });
      });
    });
  } catch (e) {
    await scorer.close(); // the port could not be bound: nobody else holds the worker pool
    throw e;
  }
  server.keepAliveTimeout = 65_000; // longer than common client pools' idle timeouts
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<boolean> | undefined;

  async function shutdown(): Promise<boolean> {
    ctx.draining = true;
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
    server.closeAllConnections();
    await scorer.close();
    return finished;
  }

  return {
    url: `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}`,
    port,
    context: ctx,
    shutdown: () => (closing ??= shutdown()),
  };
}
