import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { startServer } from "../../server/index.js";
import { SERVER_DEFAULTS } from "../../server/index.js";
import { loadSpec } from "../../spec/load.js";
import { UsageError } from "../errors.js";
import { collect, countOption, intOption } from "../options.js";

function portOption(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError("expected a port number 0..65535");
  return n;
}

interface ServeFlags {
  spec: string;
  host: string;
  port: number;
  token?: string;
  maxBodyMb: number;
  maxRollouts: number;
  maxQueue: number;
  rolloutTimeoutMs: number;
  drainTimeoutMs: number;
  endToken: string[];
  concurrency?: number;
  cacheSize?: number;
}

/** `rewardkit serve --spec <spec>`: the reward server (see docs/server.md). Resolves after SIGTERM/SIGINT has drained it. */
export function registerServe(program: Command): void {
  const d = SERVER_DEFAULTS;
  program
    .command("serve")
    .description("serve a reward spec over HTTP (native /v1 protocol and OpenRLHF /get_reward)")
    .requiredOption("-s, --spec <spec>", "reward spec (YAML or JSON)")
    .option("--host <host>", "interface to bind", d.host)
    .option("-p, --port <port>", "port (0: any free port)", portOption, d.port)
    .option("--token <token>", "require Authorization: Bearer <token> (default: $REWARDKIT_TOKEN)")
    .option("--max-body-mb <n>", "largest request body, MiB", intOption, d.maxBodyBytes / 1024 / 1024)
    .option("--max-rollouts <n>", "most rollouts per request", intOption, d.maxRollouts)
    .option("--max-queue <n>", "most rollouts pending over all requests (beyond: 429)", intOption, d.maxQueue)
    .option("--rollout-timeout-ms <n>", "deadline per rollout, queueing included", intOption, d.rolloutTimeoutMs)
    .option("--drain-timeout-ms <n>", "on SIGTERM, how long in-flight work may finish", intOption, d.drainTimeoutMs)
    .option("--end-token <token>", "extra end-of-turn token stripped from OpenRLHF queries (repeatable)", collect, [])
    .option("-j, --concurrency <n>", "worker threads for worker verifiers (default: CPUs)", intOption)
    .option("--cache-size <n>", "verdict cache capacity (component verdicts; 0 disables it)", countOption)
    .action(async (o: ServeFlags) => {
      const spec = loadSpec(o.spec);
      const token = o.token ?? (process.env.REWARDKIT_TOKEN || undefined);
      let server;
      try {
        server = await startServer(spec, {
          host: o.host,
          port: o.port,
          token,
          maxBodyBytes: o.maxBodyMb * 1024 * 1024,
          maxRollouts: o.maxRollouts,
          maxQueue: o.maxQueue,
          rolloutTimeoutMs: o.rolloutTimeoutMs,
          drainTimeoutMs: o.drainTimeoutMs,
          endTokens: o.endToken,
          concurrency: o.concurrency,
          cacheSize: o.cacheSize,
        });
      } catch (e) {
        const err = e as NodeJS.ErrnoException;
        if (err.code === "EADDRINUSE" || err.code === "EACCES" || err.code === "EADDRNOTAVAIL") throw new UsageError(`cannot listen on ${o.host}:${o.port}: ${err.code}`);
        if (!err.code) throw new UsageError(err.message);
        throw e;
      }
      process.stderr.write(`rewardkit serve: spec ${spec.name} (hash ${spec.hash}) on ${server.url}${token ? " (bearer token required)" : ""}\n`);
      await new Promise<void>((resolve) => {
        const stop = (signal: string): void => {
          process.stderr.write(`rewardkit serve: ${signal}: draining in-flight work\n`);
          void server.shutdown().then((clean) => {
            process.stderr.write(`rewardkit serve: ${clean ? "drained" : "drain deadline passed; connections cut"}, exiting\n`);
            resolve();
          });
        };
        process.once("SIGTERM", () => stop("SIGTERM"));
        process.once("SIGINT", () => stop("SIGINT"));
      });
    });
}
