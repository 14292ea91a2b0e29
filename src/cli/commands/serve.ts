import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { InvalidArgumentError, Option } from "commander";
import { startServer } from "../../server/index.js";
import { isLoopbackHost } from "../../server/guard.js";
import { SERVER_DEFAULTS } from "../../server/index.js";
import { loadAnySpec } from "../../spec/routes.js";
import { UsageError } from "../errors.js";
import { UserError } from "../../core/errors.js";
import { collect, countOption, intOption } from "../options.js";
import { readServerConfig } from "./serve-config.js";
import { STORE_ENV } from "../../store/open.js";

function portOption(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError("expected a port number 0..65535");
  return n;
}

interface ServeFlags {
  spec?: string;
  config?: string;
  host: string;
  port: number;
  token?: string;
  tokenFile?: string;
  insecure?: boolean;
  allowOrigin: string[];
  allowHost: string[];
  maxBodyMb: number;
  maxRollouts?: number;
  maxRequests: number;
  maxInflightMb?: number;
  maxQueue: number;
  rolloutTimeoutMs: number;
  drainTimeoutMs: number;
  endToken: string[];
  concurrency?: number;
  cacheSize?: number;
  store?: string;
  state?: string;
  storeWaitMs: number;
  storeTtlS: number;
  requestTtlS: number;
  shutdownDelayMs: number;
  groupWaitMs: number;
  groupMaxWaiting: number;
  groupMaxWaitingMb: number;
}

/** Non-negative integer option (0 allowed). */
const msOption = countOption;

/** The token of `--token-file` (trailing newline and spaces dropped). @throws UsageError when unreadable or empty. */
function readToken(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  let t: string;
  try {
    t = readFileSync(file, "utf8").trim();
  } catch (e) {
    throw new UsageError(`--token-file ${file}: ${(e as Error).message}`);
  }
  if (t === "") throw new UsageError(`--token-file ${file}: the file is empty`);
  return t;
}

/** `rewardkit serve --spec <spec>`: the reward server (see docs/server.md). Resolves after SIGTERM/SIGINT has drained it. */
export function registerServe(program: Command): void {
  const d = SERVER_DEFAULTS;
  program
    .command("serve")
    .description("serve a reward spec over HTTP (native /v1 protocol and OpenRLHF /get_reward)")
    .option("-s, --spec <spec>", "reward spec (YAML or JSON); required here or as spec: in --config")
    .option(
      "--config <file>",
      "server settings in YAML (keys as the flags in camelCase: store, maxQueue, …); flags win",
    )
    .option("--host <host>", "interface to bind", d.host)
    .option("-p, --port <port>", "port (0: any free port)", portOption, d.port)
    .addOption(
      new Option(
        "--token <token>",
        "refused: a token on the command line is visible to every local user (ps)",
      ).hideHelp(),
    )
    .option(
      "--token-file <file>",
      "require Authorization: Bearer <token>, the token read from this file (default: $REWARDKIT_TOKEN)",
    )
    .option("--insecure", "allow a non-loopback --host without a token (anyone who reaches it can run the verifiers)")
    .option(
      "--allow-origin <origin>",
      "let requests from this web origin in, e.g. https://notebook.example:8888 (repeatable; * for any)",
      collect,
      [],
    )
    .option(
      "--allow-host <name>",
      "accept this Host header name besides the bound address, e.g. a proxy's name (repeatable; * for any)",
      collect,
      [],
    )
    .option("--max-body-mb <n>", "largest request body, MiB", intOption, d.maxBodyBytes / 1024 / 1024)
    .option(
      "--max-rollouts <n>",
      `most rollouts per request (default: ${d.maxRollouts}, at most --max-queue)`,
      intOption,
    )
    .option(
      "--max-requests <n>",
      "most requests with a body handled at once (beyond: 429 before the body is read)",
      intOption,
      d.maxRequests,
    )
    .option(
      "--max-inflight-mb <n>",
      "most request-body MiB held at once over all requests (default: 1.5 x --max-body-mb; beyond: 429 before the body is read)",
      intOption,
    )
    .option("--max-queue <n>", "most rollouts pending over all requests (beyond: 429)", intOption, d.maxQueue)
    .option("--rollout-timeout-ms <n>", "deadline per rollout, queueing included", intOption, d.rolloutTimeoutMs)
    .option("--drain-timeout-ms <n>", "on SIGTERM, how long in-flight work may finish", intOption, d.drainTimeoutMs)
    .option("--end-token <token>", "extra end-of-turn token stripped from OpenRLHF queries (repeatable)", collect, [])
    .option("-j, --concurrency <n>", "worker threads for worker verifiers (default: CPUs)", intOption)
    .option("--cache-size <n>", "verdict cache capacity (component verdicts; 0 disables it)", countOption)
    .option(
      "--store <url>",
      `shared store for a fleet of replicas, redis://host:port[/db] (default: $${STORE_ENV}; none: all state in this process)`,
    )
    .option(
      "--state <file>",
      "keep performance schedules and per-prompt statistics (GET /v1/curriculum) in this file: read at start, written every second while they change and at shutdown",
    )
    .option("--store-wait-ms <n>", "how long to wait at start for the store to answer", msOption, d.storeWaitMs)
    .option(
      "--store-ttl-s <n>",
      "how long a verdict stays in the shared store, seconds",
      intOption,
      d.storeTtlMs / 1000,
    )
    .option(
      "--request-ttl-s <n>",
      "how long the answer to a request with X-Rewardkit-Request-Id is kept for its retries, seconds",
      intOption,
      d.requestTtlMs / 1000,
    )
    .option(
      "--shutdown-delay-ms <n>",
      "on SIGTERM, serve this long with /readyz failing before draining (let balancers stop sending)",
      msOption,
      d.shutdownDelayMs,
    )
    .option(
      "--group-wait-ms <n>",
      "how long a group whose rollouts carry group_size waits for its other members; then partial_group",
      intOption,
      d.groupWaitMs,
    )
    .option(
      "--group-max-waiting <n>",
      "most rollouts waiting for their groups (beyond: 503 for requests opening new groups)",
      intOption,
      d.groupMaxWaiting,
    )
    .option(
      "--group-max-waiting-mb <n>",
      "most MiB of rollouts waiting for their groups (beyond: 503 for requests opening new groups)",
      intOption,
      d.groupMaxWaitingBytes / 1024 / 1024,
    )
    .action(async (flags: ServeFlags, cmd: Command) => {
      // a --config file fills every setting not given as a flag
      const o: ServeFlags = { ...flags };
      if (flags.config !== undefined) {
        const file = readServerConfig(flags.config);
        for (const [k, v] of Object.entries(file)) {
          const src = cmd.getOptionValueSource(k);
          if (src === undefined || src === "default") (o as unknown as Record<string, unknown>)[k] = v;
        }
      }
      if (o.spec === undefined) throw new UsageError("serve: give the spec with --spec <file> (or spec: in --config)");
      const storeUrl = o.store ?? (process.env[STORE_ENV] || undefined);
      if (o.token !== undefined)
        throw new UsageError(
          "--token: a token on the command line is visible to every local user (ps, /proc/<pid>/cmdline); set REWARDKIT_TOKEN or use --token-file <file>",
        );
      const spec = loadAnySpec(o.spec);
      const token = readToken(o.tokenFile) ?? (process.env.REWARDKIT_TOKEN || undefined);
      let server;
      try {
        server = await startServer(spec, {
          host: o.host,
          port: o.port,
          token,
          insecure: o.insecure ?? false,
          allowOrigins: o.allowOrigin,
          allowHosts: o.allowHost,
          maxBodyBytes: o.maxBodyMb * 1024 * 1024,
          maxRollouts: o.maxRollouts,
          maxRequests: o.maxRequests,
          maxInflightBytes: o.maxInflightMb === undefined ? undefined : o.maxInflightMb * 1024 * 1024,
          maxQueue: o.maxQueue,
          rolloutTimeoutMs: o.rolloutTimeoutMs,
          drainTimeoutMs: o.drainTimeoutMs,
          endTokens: o.endToken,
          concurrency: o.concurrency,
          cacheSize: o.cacheSize,
          store: storeUrl,
          statePath: o.state,
          storeWaitMs: o.storeWaitMs,
          storeTtlMs: o.storeTtlS * 1000,
          requestTtlMs: o.requestTtlS * 1000,
          shutdownDelayMs: o.shutdownDelayMs,
          groupWaitMs: o.groupWaitMs,
          groupMaxWaiting: o.groupMaxWaiting,
          groupMaxWaitingBytes: o.groupMaxWaitingMb * 1024 * 1024,
        });
      } catch (e) {
        const err = e as NodeJS.ErrnoException;
        if (err.code === "EADDRINUSE" || err.code === "EACCES" || err.code === "EADDRNOTAVAIL")
          throw new UsageError(`cannot listen on ${o.host}:${o.port}: ${err.code}`);
        if (e instanceof UserError) throw e;
        if (!err.code) throw new UsageError(err.message);
        throw e;
      }
      if (!token && o.insecure && !isLoopbackHost(o.host))
        process.stderr.write(
          `rewardkit serve: warning: --insecure: serving ${o.host} without a token; anyone who can reach it can run the spec's verifiers\n`,
        );
      process.stderr.write(
        `rewardkit serve: spec ${spec.name} (hash ${spec.hash}) on ${server.url}${token ? " (bearer token required)" : ""}` +
          `${server.context.store ? `, sharing state through ${server.context.store.store.description}` : ""}\n`,
      );
      await new Promise<void>((resolve) => {
        const stop = (signal: string): void => {
          process.stderr.write(`rewardkit serve: ${signal}: draining in-flight work\n`);
          void server.shutdown().then((clean) => {
            process.stderr.write(
              `rewardkit serve: ${clean ? "drained" : "drain deadline passed; connections cut"}, exiting\n`,
            );
            resolve();
          });
        };
        process.once("SIGTERM", () => stop("SIGTERM"));
        process.once("SIGINT", () => stop("SIGINT"));
      });
    });
}
