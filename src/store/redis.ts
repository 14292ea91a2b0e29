import { Redis } from "ioredis";
import type { BudgetAnswer, BudgetAsk, StatsDelta, Store } from "./types.js";
import { StoreError } from "./types.js";

/** Lists and indexes of schedule results expire after a week unused (a spec nobody serves any more). */
const LIST_TTL_MS = 7 * 24 * 3600 * 1000;
/** Budget keys expire an hour after the last call (an endpoint nobody calls any more). */
const BUDGET_TTL_MS = 3600 * 1000;

/** The Redis server's clock in ms (every replica reads the same clock). */
const NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** `budgetStep` of store/memory.ts, line for line: KEYS = budget hash, leases zset. */
const BUDGET_ACQUIRE = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local conc, rpm, tpm, tokens = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local h = redis.call('HMGET', KEYS[1], 'nextAt', 'tokens', 'tokensAt', 'pausedUntil')
local nextAt, level0, tokensAt, paused = tonumber(h[1]) or 0, tonumber(h[2]), tonumber(h[3]) or now, tonumber(h[4]) or 0
local wait = math.max(0, paused - now)
if redis.call('ZCARD', KEYS[2]) >= conc then wait = math.max(wait, 25) end
if rpm > 0 then wait = math.max(wait, nextAt - now) end
local level = 0
if tpm > 0 then
  local cap, perMs = math.max(1, tpm / 60), tpm / 60000
  if level0 == nil then level = cap else level = math.min(cap, level0 + (now - tokensAt) * perMs) end
  local need = math.min(tokens, cap)
  if level < need then wait = math.max(wait, math.ceil((need - level) / perMs)) end
end
if wait > 0 then return math.ceil(wait) end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[6]), ARGV[5])
if rpm > 0 then redis.call('HSET', KEYS[1], 'nextAt', string.format('%.3f', math.max(nextAt, now) + 60000 / rpm)) end
if tpm > 0 then redis.call('HSET', KEYS[1], 'tokens', string.format('%.3f', level - tokens), 'tokensAt', tostring(now)) end
redis.call('PEXPIRE', KEYS[1], ${BUDGET_TTL_MS}) redis.call('PEXPIRE', KEYS[2], ${BUDGET_TTL_MS})
return 0`;

const BUDGET_RELEASE = `
redis.call('ZREM', KEYS[2], ARGV[1])
local corr, tpm = tonumber(ARGV[2]), tonumber(ARGV[3])
if tpm > 0 and corr ~= 0 then
  local cur = tonumber(redis.call('HGET', KEYS[1], 'tokens'))
  if cur ~= nil then redis.call('HSET', KEYS[1], 'tokens', string.format('%.3f', math.min(math.max(1, tpm / 60), cur + corr))) end
end
return 0`;

const BUDGET_PAUSE = `${NOW}
local cur = tonumber(redis.call('HGET', KEYS[1], 'pausedUntil')) or 0
redis.call('HSET', KEYS[1], 'pausedUntil', tostring(math.max(cur, now + tonumber(ARGV[1]))))
redis.call('PEXPIRE', KEYS[1], ${BUDGET_TTL_MS})
return 0`;

/** KEYS = registry set, member hash; ARGV = member, field, by, ttl. */
const REGISTRY_ADD = `
local v = tonumber(redis.call('HINCRBYFLOAT', KEYS[2], ARGV[2], ARGV[3]))
if v <= 0 then redis.call('HDEL', KEYS[2], ARGV[2]) end
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('SADD', KEYS[1], ARGV[1])
return 0`;

/** KEYS = registry set: sums every live member's hash (`<set>:<member>`), forgetting dead members. */
const REGISTRY_SUM = `
local out = {}
for _, m in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local h = redis.call('HGETALL', KEYS[1] .. ':' .. m)
  if #h == 0 then
    if redis.call('EXISTS', KEYS[1] .. ':' .. m) == 0 then redis.call('SREM', KEYS[1], m) end
  else
    for i = 1, #h, 2 do out[h[i]] = (out[h[i]] or 0) + tonumber(h[i + 1]) end
  end
end
local flat = {}
for k, v in pairs(out) do flat[#flat + 1] = k flat[#flat + 1] = tostring(v) end
return flat`;

/** `statsStep` of store/memory.ts, line for line: KEYS = index zset, sequence counter; the item is `<index>:<member>`. */
const STATS_MERGE = `
local h = KEYS[1] .. ':' .. ARGV[1]
local step, factor, cap, nadd = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local last = tonumber(redis.call('HGET', h, 'last'))
local t = step
if last ~= nil and last > step then t = last end
local fOld = 1
if last ~= nil then fOld = factor ^ (t - last) end
local fNew = factor ^ (t - step)
local i = 6
for _ = 1, nadd do redis.call('HINCRBYFLOAT', h, ARGV[i], ARGV[i + 1]) i = i + 2 end
while i < #ARGV do
  local cur = tonumber(redis.call('HGET', h, ARGV[i])) or 0
  redis.call('HSET', h, ARGV[i], string.format('%.17g', cur * fOld + tonumber(ARGV[i + 1]) * fNew))
  i = i + 2
end
redis.call('HSET', h, 'last', string.format('%.17g', t))
redis.call('PEXPIRE', h, ${LIST_TTL_MS})
redis.call('ZADD', KEYS[1], redis.call('INCR', KEYS[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ${LIST_TTL_MS}) redis.call('PEXPIRE', KEYS[2], ${LIST_TTL_MS})
local n = redis.call('ZCARD', KEYS[1])
if n > cap then
  for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, n - cap - 1)) do redis.call('DEL', KEYS[1] .. ':' .. m) end
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, n - cap - 1)
end
return 0`;

/** KEYS = index zset: each item (least recently merged first) and its hash; items that expired are dropped. */
const STATS_READ = `
local out = {}
for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local h = redis.call('HGETALL', KEYS[1] .. ':' .. m)
  if #h == 0 then redis.call('ZREM', KEYS[1], m) else out[#out + 1] = m out[#out + 1] = h end
end
return out`;

interface Scripts {
  rkStatsMerge(k1: string, k2: string, ...args: Array<string | number>): Promise<number>;
  rkStatsRead(k1: string): Promise<Array<string | string[]>>;
  rkBudgetAcquire(k1: string, k2: string, ...args: Array<string | number>): Promise<number>;
  rkBudgetRelease(k1: string, k2: string, ...args: Array<string | number>): Promise<number>;
  rkBudgetPause(k1: string, ...args: Array<string | number>): Promise<number>;
  rkRegistryAdd(k1: string, k2: string, ...args: Array<string | number>): Promise<number>;
  rkRegistrySum(k1: string): Promise<string[]>;
}

/** Connection settings of {@link RedisStore}. */
export interface RedisStoreOptions {
  /** `redis://[user:password@]host:port[/db]` (or `rediss://` for TLS). */
  url: string;
  /** Namespace of every key (default `rk:`). */
  prefix?: string;
  /** Deadline of one command, ms (default 1000): past it the command fails and the caller degrades to local state. */
  commandTimeoutMs?: number;
  /** Deadline of a connection attempt, ms (default 2000). */
  connectTimeoutMs?: number;
}

/** `redis://host:port/db` with any password replaced by `***`. */
export function redactUrl(url: string): string {
  return url.replace(
    /\/\/([^/@]*)@/,
    (_, cred: string) => `//${cred.includes(":") ? cred.split(":")[0] + ":***" : "***"}@`,
  );
}

/**
 * The {@link Store} on a Redis server (≥ 7; Debian's `redis-server`), through `ioredis`. Commands fail fast while the
 * server is unreachable (no offline queue, one attempt, `commandTimeoutMs`) and the connection is re-made in the
 * background, so a replica degrades to local state at once and comes back on its own. Multi-key steps run as Lua
 * scripts (atomic on the server). Uses keys outside a script's declared `KEYS` (`registrySum`): one Redis server
 * (a replicated one behind an address that always reaches the primary), not Redis Cluster.
 */
export class RedisStore implements Store {
  readonly description: string;
  private readonly redis: Redis & Scripts;
  private readonly db: number;
  /** The last connection error ioredis reported (cleared when the connection is ready again). */
  private lastError: string | undefined;

  constructor(o: RedisStoreOptions) {
    this.description = redactUrl(o.url);
    this.db = Number(/^\/(\d+)/.exec(new URL(o.url).pathname)?.[1] ?? 0);
    this.redis = new Redis(o.url, {
      keyPrefix: o.prefix ?? "rk:",
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: o.commandTimeoutMs ?? 1000,
      connectTimeout: o.connectTimeoutMs ?? 2000,
      enableAutoPipelining: true, // commands issued in one tick (a batch's verdict lookups) share one round trip
      retryStrategy: (times) => Math.min(100 * times, 2000),
    }) as Redis & Scripts;
    // ioredis emits 'error' on every failed (re)connect with the real cause (ECONNREFUSED, ENOTFOUND …); the callers
    // count and report failures themselves, with that cause
    this.redis.on("error", (e: Error) => {
      this.lastError = e.message;
    });
    this.redis.on("ready", () => {
      this.lastError = undefined;
    });
    this.redis.defineCommand("rkBudgetAcquire", { numberOfKeys: 2, lua: BUDGET_ACQUIRE });
    this.redis.defineCommand("rkBudgetRelease", { numberOfKeys: 2, lua: BUDGET_RELEASE });
    this.redis.defineCommand("rkBudgetPause", { numberOfKeys: 1, lua: BUDGET_PAUSE });
    this.redis.defineCommand("rkRegistryAdd", { numberOfKeys: 2, lua: REGISTRY_ADD });
    this.redis.defineCommand("rkRegistrySum", { numberOfKeys: 1, lua: REGISTRY_SUM });
    this.redis.defineCommand("rkStatsMerge", { numberOfKeys: 2, lua: STATS_MERGE });
    this.redis.defineCommand("rkStatsRead", { numberOfKeys: 1, lua: STATS_READ });
  }

  private async run<T>(op: string, f: () => Promise<T>): Promise<T> {
    try {
      if (this.redis.status === "wait") await this.redis.connect(); // the first command connects
      return await f();
    } catch (e) {
      throw new StoreError(`${this.description}: ${op}: ${this.why(e as Error)}`, op);
    }
  }

  /** A failure in the user's terms: ioredis's "offline queue" and "max retries" texts mean "not connected". */
  private why(e: Error): string {
    const m = e.message.replace(/\.+$/, "");
    if (
      /Stream isn't writeable|max retries per request|Connection is closed|connect ETIMEDOUT/.test(m) ||
      this.redis.status !== "ready"
    )
      return `not connected (${this.lastError ?? m}); reconnecting in the background`;
    return m;
  }

  /** Checks the server answers, and serves the database the URL names (Redis would fall back to 0 silently). */
  ping(): Promise<void> {
    return this.run("ping", async () => {
      await this.redis.ping();
      if (this.db !== 0) {
        const info = String(await this.redis.call("CLIENT", "INFO"));
        const db = Number(/\bdb=(\d+)/.exec(info)?.[1] ?? 0);
        if (db !== this.db) {
          const [, n] = (await this.redis.config("GET", "databases")) as [string, string];
          throw new Error(`database ${this.db} does not exist on this server (it has ${n}: 0 to ${Number(n) - 1})`);
        }
      }
    });
  }

  getMany(keys: readonly string[]): Promise<Array<string | undefined>> {
    if (keys.length === 0) return Promise.resolve([]);
    return this.run("get", async () => (await this.redis.mget(...keys)).map((v) => v ?? undefined));
  }

  set(key: string, value: string, ttlMs?: number): Promise<void> {
    return this.run("set", async () => {
      if (ttlMs !== undefined && ttlMs > 0) await this.redis.set(key, value, "PX", Math.ceil(ttlMs));
      else await this.redis.set(key, value);
    });
  }

  setMany(entries: ReadonlyArray<readonly [string, string]>, ttlMs: number): Promise<void> {
    if (entries.length === 0) return Promise.resolve();
    return this.run("set", async () => {
      const p = this.redis.pipeline();
      for (const [k, v] of entries) p.set(k, v, "PX", Math.ceil(ttlMs));
      const r = await p.exec();
      const failed = r?.find(([e]) => e);
      if (failed) throw failed[0]!;
    });
  }

  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    return this.run("set", async () => (await this.redis.set(key, value, "PX", Math.ceil(ttlMs), "NX")) === "OK");
  }

  deleteIfEquals(key: string, value: string): Promise<boolean> {
    return this.run("delete", async () => {
      const n = (await this.redis.eval(
        "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0",
        1,
        key,
        value,
      )) as number;
      return n === 1;
    });
  }

  appendIndexed(key: string, value: string, index: string, member: number): Promise<void> {
    return this.run("append", async () => {
      await this.redis
        .multi()
        .rpush(key, value)
        .pexpire(key, LIST_TTL_MS)
        .zadd(index, member, String(member))
        .pexpire(index, LIST_TTL_MS)
        .exec();
    });
  }

  indexBelow(index: string, below: number): Promise<number[]> {
    return this.run("index", async () =>
      (await this.redis.zrangebyscore(index, "-inf", `(${below}`)).map(Number).sort((a, b) => a - b),
    );
  }

  takeIndexed(key: string, index: string, member: number): Promise<string[]> {
    return this.run("take", async () => {
      const r = await this.redis.multi().lrange(key, 0, -1).del(key).zrem(index, String(member)).exec();
      if (!r || r[0]![0]) throw r?.[0]?.[0] ?? new Error("transaction aborted");
      return r[0]![1] as string[];
    });
  }

  registryAdd(registry: string, member: string, field: string, by: number, ttlMs: number): Promise<void> {
    return this.run("registry", async () => {
      await this.redis.rkRegistryAdd(registry, `${registry}:${member}`, member, field, by, Math.ceil(ttlMs));
    });
  }

  registryTouch(registry: string, member: string, ttlMs: number): Promise<void> {
    return this.run("registry", async () => {
      await this.redis.pexpire(`${registry}:${member}`, Math.ceil(ttlMs));
    });
  }

  registrySum(registry: string): Promise<Record<string, number>> {
    return this.run("registry", async () => {
      const flat = await this.redis.rkRegistrySum(registry);
      const out: Record<string, number> = {};
      for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]!] = Number(flat[i + 1]);
      return out;
    });
  }

  statsMerge(index: string, member: string, delta: StatsDelta, cap: number): Promise<void> {
    return this.run("stats", async () => {
      const add = Object.entries(delta.add);
      const args: Array<string | number> = [member, delta.step, delta.factor, cap, add.length];
      for (const [k, v] of [...add, ...Object.entries(delta.decayed)]) args.push(k, String(v));
      await this.redis.rkStatsMerge(index, `${index}:seq`, ...args);
    });
  }

  statsRead(index: string): Promise<Array<{ member: string; fields: Record<string, number> }>> {
    return this.run("stats", async () => {
      const flat = await this.redis.rkStatsRead(index);
      const out: Array<{ member: string; fields: Record<string, number> }> = [];
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const h = flat[i + 1] as string[];
        const fields: Record<string, number> = {};
        for (let j = 0; j + 1 < h.length; j += 2) fields[h[j]!] = Number(h[j + 1]);
        out.push({ member: flat[i] as string, fields });
      }
      return out;
    });
  }

  budgetAcquire(endpoint: string, ask: BudgetAsk): Promise<BudgetAnswer> {
    return this.run("budget", async () => {
      const w = await this.redis.rkBudgetAcquire(
        `budget:${endpoint}`,
        `budget:${endpoint}:leases`,
        ask.concurrency,
        ask.rpm ?? -1,
        ask.tpm ?? -1,
        ask.tokens,
        ask.lease,
        Math.ceil(ask.leaseMs),
      );
      return w > 0 ? { granted: false, waitMs: w } : { granted: true };
    });
  }

  budgetRelease(endpoint: string, lease: string, tokenCorrection: number, tpm?: number): Promise<void> {
    return this.run("budget", async () => {
      await this.redis.rkBudgetRelease(
        `budget:${endpoint}`,
        `budget:${endpoint}:leases`,
        lease,
        tokenCorrection,
        tpm ?? -1,
      );
    });
  }

  budgetPause(endpoint: string, ms: number): Promise<void> {
    return this.run("budget", async () => {
      await this.redis.rkBudgetPause(`budget:${endpoint}`, Math.ceil(ms));
    });
  }

  async close(): Promise<void> {
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }
}
