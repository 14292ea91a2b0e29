/** Server settings. Every limit has a default that keeps memory bounded on a laptop-sized machine. */
export interface ServerOptions {
  /** Interface to bind (default 127.0.0.1: loopback only). */
  host: string;
  /** TCP port (default 8787; 0 picks a free one). */
  port: number;
  /** Bearer token required on every route but `/healthz`; undefined: no auth. */
  token?: string;
  /**
   * Serve a non-loopback `host` without a token (default false: {@link startServer} refuses to, since anyone who
   * can reach the port could then drive the verifiers, the math CAS and the code sandbox).
   */
  insecure: boolean;
  /** `Origin` values let in (default none: every request from a web page gets 403); `*` lets any in. */
  allowOrigins: string[];
  /** `Host` names let in besides the bound address (and loopback names on a loopback bind); `*` lets any in. */
  allowHosts: string[];
  /** Largest request body, bytes (default 32 MiB); larger → 413. */
  maxBodyBytes: number;
  /** Most rollouts in one request (default 4096, at most `maxQueue`); more → 413. */
  maxRollouts: number;
  /** Most requests with a body handled at once (default 1024); past it → 429 before the body is read. */
  maxRequests: number;
  /**
   * Most request-body bytes held at once over all requests, bytes (default 1.5 × `maxBodyBytes`): each request's
   * `Content-Length` is reserved before its body is read; past it → 429. Memory follows this, not the clients.
   */
  maxInflightBytes: number;
  /** Most rollouts admitted and not yet answered, over all requests (default 16 384); past it → 429 with `Retry-After`. */
  maxQueue: number;
  /**
   * Deadline per rollout from admission to verdict, ms (default 30 000), covering queueing; past it every component
   * reads `unscorable("timeout")`. Each component's own `timeoutMs` still stops its work in the worker.
   */
  rolloutTimeoutMs: number;
  /** On SIGTERM, how long in-flight requests may take before connections are cut, ms (default 30 000). */
  drainTimeoutMs: number;
  /** Extra end-of-turn / padding tokens stripped from OpenRLHF `query` (added to {@link END_TOKENS}). */
  endTokens: string[];
  /** Worker threads for worker-isolated verifiers (default: available parallelism). */
  concurrency?: number;
  /** Verdict cache capacity (default 100 000 component verdicts; 0 disables). */
  cacheSize?: number;
  /**
   * The fleet's shared store, `redis://host:port[/db]` (default: none — cache, schedules, budgets and request records
   * stay in this process). See docs/scale.md.
   */
  store?: string;
  /**
   * `--state <file>`: the performance schedules and per-prompt statistics are read from it at start (when it exists)
   * and written to it every second while they change and at shutdown, so they survive a restart.
   */
  statePath?: string;
  /** How long the server waits at start for the store to answer, ms (default 10 000); then it refuses to start. */
  storeWaitMs: number;
  /** How long a verdict stays in the shared store, ms (default 86 400 000: 24 h). */
  storeTtlMs: number;
  /** How long the answer to a request with `X-Rewardkit-Request-Id` is kept for its retries, ms (default 600 000). */
  requestTtlMs: number;
  /**
   * On SIGTERM, how long `/readyz` answers 503 while requests are still served, before draining starts, ms (default 0):
   * time for a load balancer or Kubernetes to stop sending new work (set it above their probe interval).
   */
  shutdownDelayMs: number;
  /**
   * How long a group whose rollouts carry `group_size` waits for the rest of its members after the first arrived, ms
   * (default 120 000); then the members that arrived are answered with their staged components `partial_group`
   * and no advantages. Set it above the spread of generation times within a group. See docs/groups.md.
   */
  groupWaitMs: number;
  /** Most rollouts waiting for their groups at once (default 65 536); a request opening a new group past it → 503. */
  groupMaxWaiting: number;
  /**
   * Most bytes of rollouts waiting for their groups (approximate: 2 bytes per character of each rollout's JSON;
   * default 512 MiB); a request opening a new group past it → 503 with `Retry-After`.
   */
  groupMaxWaitingBytes: number;
}

export const DEFAULTS: ServerOptions = {
  host: "127.0.0.1",
  port: 8787,
  insecure: false,
  allowOrigins: [],
  allowHosts: [],
  maxBodyBytes: 32 * 1024 * 1024,
  maxRollouts: 4096,
  maxRequests: 1024,
  maxInflightBytes: 48 * 1024 * 1024,
  maxQueue: 16_384,
  rolloutTimeoutMs: 30_000,
  drainTimeoutMs: 30_000,
  endTokens: [],
  storeWaitMs: 10_000,
  storeTtlMs: 24 * 3600 * 1000,
  requestTtlMs: 600_000,
  shutdownDelayMs: 0,
  groupWaitMs: 120_000,
  groupMaxWaiting: 65_536,
  groupMaxWaitingBytes: 512 * 1024 * 1024,
};

/** Fills defaults and checks that the limits are consistent. @throws Error naming the bad setting. */
export function resolveOptions(o: Partial<ServerOptions>): ServerOptions {
  const given = Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<ServerOptions>;
  const r: ServerOptions = { ...DEFAULTS, ...given };
  // defaults that follow other settings: a smaller queue caps the batch size, a larger body the bytes in flight
  if (given.maxRollouts === undefined) r.maxRollouts = Math.min(DEFAULTS.maxRollouts, r.maxQueue);
  if (given.maxInflightBytes === undefined) r.maxInflightBytes = Math.floor(1.5 * r.maxBodyBytes);
  for (const k of [
    "maxBodyBytes",
    "maxRollouts",
    "maxQueue",
    "maxRequests",
    "maxInflightBytes",
    "rolloutTimeoutMs",
    "drainTimeoutMs",
    "storeTtlMs",
    "requestTtlMs",
    "groupWaitMs",
    "groupMaxWaiting",
    "groupMaxWaitingBytes",
  ] as const) {
    if (!Number.isFinite(r[k]) || r[k] <= 0) throw new Error(`${k}: expected a positive number, got ${r[k]}`);
  }
  if (!Number.isInteger(r.port) || r.port < 0 || r.port > 65535)
    throw new Error(`port: expected 0..65535, got ${r.port}`);
  if (r.maxRollouts > r.maxQueue)
    throw new Error(
      `maxRollouts (${r.maxRollouts}) exceeds maxQueue (${r.maxQueue}): such a request could never be admitted`,
    );
  if (r.maxInflightBytes < r.maxBodyBytes)
    throw new Error(
      `maxInflightBytes (${r.maxInflightBytes}) is below maxBodyBytes (${r.maxBodyBytes}): a body of the largest size could never be admitted`,
    );
  if (r.token === "") throw new Error("token: empty");
  for (const k of ["storeWaitMs", "shutdownDelayMs"] as const)
    if (!Number.isFinite(r[k]) || r[k] < 0) throw new Error(`${k}: expected a number ≥ 0, got ${r[k]}`);
  return r;
}
