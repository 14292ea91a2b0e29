import type { BudgetAnswer, BudgetAsk, StatsDelta, Store } from "./types.js";

interface Entry {
  value: string;
  /** Expiry, ms since the epoch (Infinity: never). */
  until: number;
}

interface Budget {
  /** Earliest time the next call may start under `rpm` (GCRA's theoretical arrival time), ms. */
  nextAt: number;
  /** Token bucket level and the time it was last refilled, ms. */
  tokens: number;
  tokensAt: number;
  pausedUntil: number;
  /** Lease id → expiry, ms. */
  leases: Map<string, number>;
}

/**
 * Waits and charges for one call under `ask` at time `now` (ms); shared by {@link MemoryStore} and mirrored line for
 * line by `RedisStore`'s Lua script, so both give the same answers (tested side by side).
 *
 * - concurrency: live leases (not expired) < `concurrency`, else wait 25 ms (a release wakes nobody across the
 *   fleet, so waiters poll);
 * - rpm: GCRA with no burst — calls spaced at least T = 60 000 / rpm ms apart, so any 60 s window holds ≤ rpm calls;
 * - tpm: a bucket of `tpm / 60` tokens refilled at `tpm / 60 000` per ms; a call asking more than a full bucket
 *   waits for a full bucket and drives it negative (debt, waited out by later calls), as the local `Limiter`.
 */
export function budgetStep(b: Budget, ask: BudgetAsk, now: number): BudgetAnswer {
  for (const [id, until] of b.leases) if (until <= now) b.leases.delete(id);
  let wait = Math.max(0, b.pausedUntil - now);
  if (b.leases.size >= ask.concurrency) wait = Math.max(wait, 25);
  if (ask.rpm !== undefined) wait = Math.max(wait, b.nextAt - now);
  let level = b.tokens;
  if (ask.tpm !== undefined) {
    const cap = Math.max(1, ask.tpm / 60);
    const perMs = ask.tpm / 60_000;
    level = Math.min(cap, b.tokens + (now - b.tokensAt) * perMs);
    const need = Math.min(ask.tokens, cap);
    if (level < need) wait = Math.max(wait, Math.ceil((need - level) / perMs));
  }
  if (wait > 0) return { granted: false, waitMs: Math.ceil(wait) };
  b.leases.set(ask.lease, now + ask.leaseMs);
  if (ask.rpm !== undefined) b.nextAt = Math.max(b.nextAt, now) + 60_000 / ask.rpm;
  if (ask.tpm !== undefined) {
    b.tokens = level - ask.tokens;
    b.tokensAt = now;
  }
  return { granted: true };
}

/** One {@link StatsDelta} merged into an item's fields (the Redis script `STATS_MERGE` does the same, line for line). */
export function statsStep(cur: Readonly<Record<string, number>>, d: StatsDelta): Record<string, number> {
  const out = { ...cur };
  const last = cur.last;
  const t = last !== undefined && last > d.step ? last : d.step;
  const fOld = last !== undefined ? Math.pow(d.factor, t - last) : 1;
  const fNew = Math.pow(d.factor, t - d.step);
  for (const [k, v] of Object.entries(d.add)) out[k] = (out[k] ?? 0) + v;
  for (const [k, v] of Object.entries(d.decayed)) out[k] = (out[k] ?? 0) * fOld + v * fNew;
  out.last = t;
  return out;
}

/**
 * The store held in this process: the embedded default (no `--store`) and the reference the Redis store is tested
 * against. Same semantics as `RedisStore`, including expiry.
 */
export class MemoryStore implements Store {
  readonly description = "memory";
  private readonly kv = new Map<string, Entry>();
  private readonly lists = new Map<string, string[]>();
  private readonly indexes = new Map<string, Set<number>>();
  private readonly registries = new Map<string, Map<string, { fields: Map<string, number>; until: number }>>();
  private readonly budgets = new Map<string, Budget>();
  /** Statistics indexes: per index, items in recency order (least recently merged first). */
  private readonly stats = new Map<string, Map<string, Record<string, number>>>();

  /** UTF-16 code units held by keys and values (≈ bytes / 2 for ASCII), bounded by `maxChars`. */
  private chars = 0;
  private sweptAt = -Infinity;

  /**
   * @param now the clock, ms since the epoch (tests pass a fake one).
   * @param maxChars most characters of keys and values held (default 32 M, ~64 MB): past it the oldest entries are
   *   dropped first (a store in one process must not grow with the traffic; Redis bounds itself by `maxmemory`).
   */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxChars = 32 * 1024 * 1024,
  ) {}

  private put(key: string, value: string, until: number): void {
    const old = this.kv.get(key);
    if (old) {
      this.chars -= key.length + old.value.length;
      this.kv.delete(key); // re-inserted last: the eviction order is the order of the last write
    }
    this.kv.set(key, { value, until });
    this.chars += key.length + value.length;
    if (this.chars <= this.maxChars) return;
    const t = this.now();
    if (t - this.sweptAt >= 1000) {
      this.sweptAt = t; // expired entries first, at most one full pass a second
      for (const [k, e] of this.kv) if (e.until <= t) this.drop(k, e);
    }
    for (const [k, e] of this.kv) {
      if (this.chars <= this.maxChars || k === key) break;
      this.drop(k, e);
    }
  }

  private drop(key: string, e: Entry): void {
    this.kv.delete(key);
    this.chars -= key.length + e.value.length;
  }

  private live(key: string): Entry | undefined {
    const e = this.kv.get(key);
    if (e && e.until <= this.now()) {
      this.drop(key, e);
      return undefined;
    }
    return e;
  }

  ping(): Promise<void> {
    return Promise.resolve();
  }

  getMany(keys: readonly string[]): Promise<Array<string | undefined>> {
    return Promise.resolve(keys.map((k) => this.live(k)?.value));
  }

  set(key: string, value: string, ttlMs?: number): Promise<void> {
    this.put(key, value, ttlMs !== undefined && ttlMs > 0 ? this.now() + ttlMs : Infinity);
    return Promise.resolve();
  }

  setMany(entries: ReadonlyArray<readonly [string, string]>, ttlMs: number): Promise<void> {
    for (const [k, v] of entries) this.put(k, v, this.now() + ttlMs);
    return Promise.resolve();
  }

  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    if (this.live(key)) return Promise.resolve(false);
    this.put(key, value, this.now() + ttlMs);
    return Promise.resolve(true);
  }

  deleteIfEquals(key: string, value: string): Promise<boolean> {
    const e = this.live(key);
    if (e?.value !== value) return Promise.resolve(false);
    this.drop(key, e);
    return Promise.resolve(true);
  }

  appendIndexed(key: string, value: string, index: string, member: number): Promise<void> {
    let l = this.lists.get(key);
    if (!l) this.lists.set(key, (l = []));
    l.push(value);
    let ix = this.indexes.get(index);
    if (!ix) this.indexes.set(index, (ix = new Set()));
    ix.add(member);
    return Promise.resolve();
  }

  indexBelow(index: string, below: number): Promise<number[]> {
    const ix = this.indexes.get(index);
    return Promise.resolve(ix ? [...ix].filter((m) => m < below).sort((a, b) => a - b) : []);
  }

  takeIndexed(key: string, index: string, member: number): Promise<string[]> {
    const l = this.lists.get(key) ?? [];
    this.lists.delete(key);
    this.indexes.get(index)?.delete(member);
    return Promise.resolve(l);
  }

  private members(registry: string): Map<string, { fields: Map<string, number>; until: number }> {
    let r = this.registries.get(registry);
    if (!r) {
      r = new Map<string, { fields: Map<string, number>; until: number }>();
      this.registries.set(registry, r);
    }
    return r;
  }

  registryAdd(registry: string, member: string, field: string, by: number, ttlMs: number): Promise<void> {
    const r = this.members(registry);
    let m = r.get(member);
    if (!m || m.until <= this.now()) r.set(member, (m = { fields: new Map(), until: 0 }));
    const v = (m.fields.get(field) ?? 0) + by;
    if (v <= 0) m.fields.delete(field);
    else m.fields.set(field, v);
    m.until = this.now() + ttlMs;
    return Promise.resolve();
  }

  registryTouch(registry: string, member: string, ttlMs: number): Promise<void> {
    const m = this.members(registry).get(member);
    if (m && m.until > this.now()) m.until = this.now() + ttlMs;
    return Promise.resolve();
  }

  registrySum(registry: string): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    const r = this.members(registry);
    for (const [id, m] of r) {
      if (m.until <= this.now()) {
        r.delete(id);
        continue;
      }
      for (const [f, v] of m.fields) out[f] = (out[f] ?? 0) + v;
    }
    return Promise.resolve(out);
  }

  statsMerge(index: string, member: string, delta: StatsDelta, cap: number): Promise<void> {
    let ix = this.stats.get(index);
    if (!ix) this.stats.set(index, (ix = new Map<string, Record<string, number>>()));
    const cur = ix.get(member) ?? {};
    ix.delete(member);
    ix.set(member, statsStep(cur, delta));
    while (ix.size > cap) ix.delete(ix.keys().next().value!);
    return Promise.resolve();
  }

  statsRead(index: string): Promise<Array<{ member: string; fields: Record<string, number> }>> {
    const ix = this.stats.get(index);
    return Promise.resolve(ix ? [...ix].map(([member, f]) => ({ member, fields: { ...f } })) : []);
  }

  private budget(endpoint: string): Budget {
    let b = this.budgets.get(endpoint);
    if (!b) {
      b = { nextAt: 0, tokens: Infinity, tokensAt: this.now(), pausedUntil: 0, leases: new Map() };
      this.budgets.set(endpoint, b);
    }
    return b;
  }

  budgetAcquire(endpoint: string, ask: BudgetAsk): Promise<BudgetAnswer> {
    return Promise.resolve(budgetStep(this.budget(endpoint), ask, this.now()));
  }

  budgetRelease(endpoint: string, lease: string, tokenCorrection: number, tpm?: number): Promise<void> {
    const b = this.budget(endpoint);
    b.leases.delete(lease);
    if (tpm !== undefined && tokenCorrection !== 0)
      b.tokens = Math.min(Math.max(1, tpm / 60), b.tokens + tokenCorrection);
    return Promise.resolve();
  }

  budgetPause(endpoint: string, ms: number): Promise<void> {
    const b = this.budget(endpoint);
    b.pausedUntil = Math.max(b.pausedUntil, this.now() + ms);
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
