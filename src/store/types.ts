/**
 * The shared store: what many `rewardkit serve` replicas share (verdict cache, idempotency records, performance
 * schedule state, model-endpoint budgets). One small interface, two implementations: {@link MemoryStore} (one
 * process; tests and the embedded default) and `RedisStore` (a real Redis ≥ 7 shared by the fleet).
 *
 * Keys are plain strings; every implementation namespaces them under its own prefix. Values are strings (JSON).
 * Every method may reject with {@link StoreError} when the store cannot be reached; callers degrade to local state
 * (see `store/guard.ts`), never fail a rollout because of the store.
 */

/** The store could not answer (connection refused, timeout, script error). */
export class StoreError extends Error {
  constructor(
    message: string,
    readonly op: string,
  ) {
    super(message);
    this.name = "StoreError";
  }
}

/**
 * One atomic step of a fleet-wide budget for one model endpoint (an LLM judge, a reward model): a concurrency
 * lease, a requests-per-minute pacing and a tokens-per-minute bucket, and a shared pause (a 429's `Retry-After`).
 */
export interface BudgetAsk {
  /** Most calls in flight over the fleet (leases held). */
  concurrency: number;
  /** Requests per minute over the fleet: calls are spaced at least `60 000 / rpm` ms apart (no burst). */
  rpm?: number;
  /** Tokens per minute over the fleet: a bucket of at most `tpm / 60` tokens refilled at `tpm / 60 000` per ms. */
  tpm?: number;
  /** The call's estimated tokens (for `tpm`). */
  tokens: number;
  /** Lease id (unique per call). */
  lease: string;
  /** A lease not released within this long is dropped (its holder died), ms. */
  leaseMs: number;
}

/** `{granted: true}` (lease taken, budgets charged) or `{granted: false, waitMs}` (nothing charged). */
export type BudgetAnswer = { granted: true } | { granted: false; waitMs: number };

/**
 * One merge into an item of a statistics index ({@link Store.statsMerge}): fields that add, and fields that decay
 * with the step (exponentially weighted counts): with T = max(step, the item's `last`), a decayed field becomes
 * stored·factor^(T − last) + given·factor^(T − step), and `last` becomes T. Merges commute: replicas may merge in
 * any order and get the same sums.
 */
export interface StatsDelta {
  add: Readonly<Record<string, number>>;
  decayed: Readonly<Record<string, number>>;
  step: number;
  /** Decay per step, 0 < factor ≤ 1. */
  factor: number;
}

/** The shared store's operations. All are atomic on their own. */
export interface Store {
  /** `redis://host:port/db` (password redacted) or `memory`. */
  readonly description: string;
  /** Round trip to the store. @throws {StoreError} when it cannot be reached. */
  ping(): Promise<void>;
  /** Values of `keys`, `undefined` where absent. */
  getMany(keys: readonly string[]): Promise<Array<string | undefined>>;
  /** Sets `key` (expiring after `ttlMs` when given and > 0). */
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  /** Sets every `[key, value]` of `entries`, each expiring after `ttlMs` (one round trip). */
  setMany(entries: ReadonlyArray<readonly [string, string]>, ttlMs: number): Promise<void>;
  /** Sets `key` only when absent. @returns whether it was set. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** Deletes `key` when its value is `value` (releasing a lock one holds). @returns whether it was deleted. */
  deleteIfEquals(key: string, value: string): Promise<boolean>;
  /** Appends `value` to the list `key` and adds `member` to the sorted set `index` (one atomic step). */
  appendIndexed(key: string, value: string, index: string, member: number): Promise<void>;
  /** Members of the sorted set `index` below `below`, ascending. */
  indexBelow(index: string, below: number): Promise<number[]>;
  /** Takes the whole list `key` (returns it and deletes it, atomically) and removes `member` from `index`. */
  takeIndexed(key: string, index: string, member: number): Promise<string[]>;
  /**
   * Adds `by` to field `field` of member `member`'s counters in registry `registry` (a field at 0 or below is
   * removed); the member's counters expire in `ttlMs` unless touched (a replica that dies drops out on its own).
   */
  registryAdd(registry: string, member: string, field: string, by: number, ttlMs: number): Promise<void>;
  /** Keeps member `member` of `registry` alive for another `ttlMs` (a heartbeat). */
  registryTouch(registry: string, member: string, ttlMs: number): Promise<void>;
  /** Every live member's counters in `registry`, summed per field. */
  registrySum(registry: string): Promise<Record<string, number>>;
  /**
   * Merges `delta` into item `member` of the statistics index `index` (one atomic step, see {@link StatsDelta}) and
   * marks it most recently merged; past `cap` items the least recently merged ones are deleted.
   */
  statsMerge(index: string, member: string, delta: StatsDelta, cap: number): Promise<void>;
  /** Every item of `index` with its fields (including `last`), least recently merged first. */
  statsRead(index: string): Promise<Array<{ member: string; fields: Record<string, number> }>>;
  /** One atomic budget step for `endpoint` (see {@link BudgetAsk}). */
  budgetAcquire(endpoint: string, ask: BudgetAsk): Promise<BudgetAnswer>;
  /**
   * Releases a lease and corrects the token bucket by `estimate − actual` tokens (0 when the real usage is unknown).
   */
  budgetRelease(endpoint: string, lease: string, tokenCorrection: number, tpm?: number): Promise<void>;
  /** Holds every replica's calls to `endpoint` for `ms` (a longer pause already set is kept). */
  budgetPause(endpoint: string, ms: number): Promise<void>;
  /** Closes connections. */
  close(): Promise<void>;
}
