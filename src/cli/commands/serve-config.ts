import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import { UsageError } from "../errors.js";

/**
 * `rewardkit serve --config server.yaml`: the server's settings in a file (what a Kubernetes ConfigMap holds), keys
 * named as the flags in camelCase (`--max-queue` → `maxQueue`, `--store` → `store`). A flag given on the command line
 * wins over the file; the file wins over the environment (`REWARDKIT_STORE`) and the defaults. Paths in the file
 * (`spec`, `tokenFile`) are relative to the file's folder.
 */
const serverConfig = z.strictObject({
  spec: z.string().min(1).optional(),
  host: z.string().min(1).optional(),
  port: z.number().int().min(0).max(65535).optional(),
  tokenFile: z.string().min(1).optional(),
  insecure: z.boolean().optional(),
  allowOrigin: z.array(z.string()).optional(),
  allowHost: z.array(z.string()).optional(),
  maxBodyMb: z.number().int().positive().optional(),
  maxRollouts: z.number().int().positive().optional(),
  maxRequests: z.number().int().positive().optional(),
  maxInflightMb: z.number().int().positive().optional(),
  maxQueue: z.number().int().positive().optional(),
  rolloutTimeoutMs: z.number().int().positive().optional(),
  drainTimeoutMs: z.number().int().positive().optional(),
  shutdownDelayMs: z.number().int().min(0).optional(),
  endToken: z.array(z.string()).optional(),
  concurrency: z.number().int().positive().optional(),
  cacheSize: z.number().int().min(0).optional(),
  store: z.string().min(1).optional(),
  state: z.string().min(1).optional(),
  storeWaitMs: z.number().int().min(0).optional(),
  storeTtlS: z.number().int().positive().optional(),
  requestTtlS: z.number().int().positive().optional(),
  groupWaitMs: z.number().int().positive().optional(),
  groupMaxWaiting: z.number().int().positive().optional(),
  groupMaxWaitingMb: z.number().int().positive().optional(),
});

/** The settings a server config file may hold. */
export type ServerConfig = z.infer<typeof serverConfig>;

/**
 * Reads and validates a server config file; `spec` and `tokenFile` come back resolved against the file's folder.
 * @throws UsageError naming the file and each bad key.
 */
export function readServerConfig(file: string): ServerConfig {
  let raw: unknown;
  try {
    raw = parse(readFileSync(file, "utf8")) as unknown;
  } catch (e) {
    throw new UsageError(`--config ${file}: ${(e as Error).message}`);
  }
  const r = serverConfig.safeParse(raw ?? {});
  if (!r.success)
    throw new UsageError(
      `--config ${file}: ` + r.error.issues.map((i) => `${i.path.join(".") || "(top level)"}: ${i.message}`).join("; "),
    );
  const here = (p: string): string => (isAbsolute(p) ? p : resolve(dirname(file), p));
  return {
    ...r.data,
    ...(r.data.spec !== undefined ? { spec: here(r.data.spec) } : {}),
    ...(r.data.tokenFile !== undefined ? { tokenFile: here(r.data.tokenFile) } : {}),
  };
}
