import { createHash } from "node:crypto";
import { BoundedCache } from "../core/cache.js";
import { createAgents, postOnce } from "./http.js";
import type { Agents } from "./http.js";
import { AbortedError, Limiter } from "./limiter.js";
import { FleetLimiter } from "./fleet-limiter.js";
import { sharedModelStore } from "./model-store.js";
import type { StoreGuard } from "../store/guard.js";

/** How long a model response stays in the fleet's store, ms (24 h, as verdicts). */
const SHARED_RESPONSE_TTL_MS = 24 * 3600 * 1000;
import { backoffDelay, sleep } from "./retry.js";
import type { BackoffOptions } from "./retry.js";
import type { CallUsage, ClientOptions, Extracted } from "./types.js";
import { emptyUsage } from "./types.js";

/** The outcome of {@link ModelClient.call}. `attempts` counts HTTP requests made for it (0 when served from the cache). */
export type CallResult<T> =
  | { ok: true; value: T; attempts: number; cached: boolean }
  | { ok: false; error: string; status?: number; attempts: number };

/** Per-call settings. */
export interface CallOptions<T> {
  /** Reads the value (and the token usage) out of a parsed response body; an `error` is not retried. */
  extract: (json: unknown) => Extracted<T>;
  /** Estimated tokens of the call (prompt + completion budget), for the `tpm` budget. */
  estimateTokens: number;
  /** `false`: neither read nor write the cache. A string: mixed into the cache key (e.g. a sample index). */
  cache?: boolean | string;
  /** The caller's deadline: aborting stops the wait, the request in flight and any retry. */
  signal?: AbortSignal;
}

/**
 * An HTTP client for one model endpoint (an LLM judge or a reward model): admission control ({@link Limiter}:
 * concurrency, rpm, tpm, a pause on 429 + `Retry-After`), bounded retries with backoff and jitter (`retry.ts`), a
 * hard deadline per attempt, a response cache with in-flight de-duplication keyed by (URL, request body — which
 * holds the model, the rendered prompt and every sampling option — and the caller's salt), and accounting of calls,
 * retries, cache hits, tokens and cost. In a fleet (`rewardkit serve --store`, see `budgets.ts`) the limits hold for
 * every replica together and the response cache has a second tier in the store.
 *
 * The API key is held only to build the `Authorization` header; every error text that leaves the client has the key
 * replaced by `***` (a server that echoes the header cannot leak it into outputs or logs).
 */
export class ModelClient {
  private readonly limiter: Limiter | FleetLimiter;
  /** The fleet's store (`rewardkit serve --store`): budgets and a second tier of the response cache. */
  private readonly fleet: StoreGuard | undefined;
  private readonly cache: BoundedCache<unknown>;
  private readonly pending = new Map<string, Promise<CallResult<unknown>>>();
  private readonly headers: Record<string, string>;
  private readonly backoff: BackoffOptions;
  private readonly agents: Agents;
  private readonly usage: CallUsage = emptyUsage();

  constructor(private readonly o: ClientOptions) {
    const limits = {
      concurrency: o.concurrency,
      ...(o.rpm !== undefined ? { rpm: o.rpm } : {}),
      ...(o.tpm !== undefined ? { tpm: o.tpm } : {}),
    };
    const fleet = sharedModelStore();
    this.fleet = fleet;
    this.limiter = fleet
      ? new FleetLimiter(fleet, this.budgetKey(), limits, o.requestTimeoutMs + 5_000)
      : new Limiter(limits);
    this.cache = new BoundedCache<unknown>(o.cacheSize);
    this.headers = { ...(o.headers ?? {}), ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}) };
    this.backoff = { baseMs: o.backoffMs ?? 500, maxMs: o.maxBackoffMs ?? 30_000 };
    this.agents = createAgents(o.concurrency);
  }

  /**
   * The fleet budget's key: a digest of the endpoint (API root and model), its credentials, extra headers and limits
   * (a provider's limits are per key and model), never the key itself.
   */
  private budgetKey(): string {
    return createHash("sha256")
      .update(this.o.endpoint ?? "")
      .update("\u0000")
      .update(this.o.apiKey ?? "")
      .update("\u0000")
      .update(JSON.stringify(this.o.headers ?? {}))
      .update("\u0000")
      .update(JSON.stringify([this.o.rpm ?? null, this.o.tpm ?? null, this.o.concurrency]))
      .digest("base64url")
      .slice(0, 22);
  }

  /** Counters since the client was made (a copy; cost in the `price` currency, rounded to 1e-6). */
  stats(): CallUsage {
    return { ...this.usage, cost: Math.round(this.usage.cost * 1e6) / 1e6 };
  }

  /** Counts a call its owner answered from its own cache (a reward model's per-rollout cache). */
  countCacheHit(): void {
    this.usage.cacheHits++;
  }

  /** Replaces the API key in a text by `***`. */
  redact(text: string): string {
    const key = this.o.apiKey;
    return key && key.length >= 4 ? text.split(key).join("***") : text;
  }

  /**
   * POSTs `body` as JSON to `url` and extracts a value from the answer. Never throws.
   * Identical calls (same URL, body and salt) are made once: a later or concurrent one is a cache hit.
   */
  call<T>(url: string, body: Record<string, unknown>, co: CallOptions<T>): Promise<CallResult<T>> {
    const text = JSON.stringify(body);
    const useCache = co.cache !== false && this.cache.capacity > 0;
    if (!useCache) return this.run(url, text, co);
    const key = createHash("sha256")
      .update(url)
      .update("\u0000")
      .update(text)
      .update("\u0000")
      .update(typeof co.cache === "string" ? co.cache : "")
      .digest("base64");
    const hit = this.cache.get(key);
    if (hit !== undefined) {
      this.usage.cacheHits++;
      return Promise.resolve({ ok: true, value: hit as T, attempts: 0, cached: true });
    }
    const inflight = this.pending.get(key);
    if (inflight) {
      this.usage.cacheHits++;
      return inflight.then((r) => (r.ok ? { ...(r as { ok: true; value: T }), attempts: 0, cached: true } : r));
    }
    const fleet = this.fleet;
    const p = (async (): Promise<CallResult<unknown>> => {
      // the fleet's response cache: a call another replica made (a retried rollout after a failover) is not made again
      if (fleet) {
        const [v] = await fleet.attempt(
          "cache_get",
          (s) => s.getMany([`m:${key}`]),
          () => [undefined],
        );
        if (v !== undefined) {
          this.usage.cacheHits++;
          return { ok: true, value: JSON.parse(v) as unknown, attempts: 0, cached: true };
        }
      }
      const r = await this.run(url, text, co);
      if (r.ok && fleet) {
        const value = JSON.stringify(r.value);
        void fleet.attempt(
          "cache_set",
          (s) => s.set(`m:${key}`, value, SHARED_RESPONSE_TTL_MS),
          () => undefined,
        );
      }
      return r;
    })().then((r) => {
      this.pending.delete(key);
      if (r.ok) this.cache.set(key, r.value);
      return r;
    });
    this.pending.set(key, p);
    return p as Promise<CallResult<T>>;
  }

  private async run<T>(url: string, text: string, co: CallOptions<T>): Promise<CallResult<T>> {
    let attempts = 0;
    for (let retry = 0; ; retry++) {
      let slot;
      try {
        slot = await this.limiter.acquire(co.estimateTokens, co.signal);
      } catch (e) {
        this.usage.failures++;
        return { ok: false, error: e instanceof AbortedError ? e.message : String(e), attempts };
      }
      attempts++;
      this.usage.calls++;
      const a = await postOnce(url, text, this.headers, this.o.requestTimeoutMs, this.agents, co.signal);
      if (a.kind === "ok") {
        const x = co.extract(a.json);
        const prompt = x.usage?.promptTokens ?? 0;
        const completion = x.usage?.completionTokens ?? 0;
        slot.release(x.usage ? prompt + completion : undefined);
        this.usage.promptTokens += prompt;
        this.usage.completionTokens += completion;
        if (this.o.price) this.usage.cost += (prompt * this.o.price.input + completion * this.o.price.output) / 1e6;
        if ("error" in x) {
          this.usage.failures++;
          return { ok: false, error: this.redact(x.error), status: a.status, attempts };
        }
        return { ok: true, value: x.value, attempts, cached: false };
      }
      slot.release();
      if (a.timedOut) this.usage.timeouts++;
      if (a.kind === "fail" || retry >= this.o.maxRetries) {
        this.usage.failures++;
        const error = a.kind === "retry" ? `${a.error} (gave up after ${attempts} attempts)` : a.error;
        return {
          ok: false,
          error: this.redact(error),
          ...(a.status !== undefined ? { status: a.status } : {}),
          attempts,
        };
      }
      if (a.status === 429 && a.retryAfterMs !== undefined)
        this.limiter.pause(Math.min(a.retryAfterMs, this.backoff.maxMs));
      this.usage.retries++;
      try {
        await sleep(backoffDelay(retry, this.backoff, a.retryAfterMs), co.signal);
      } catch {
        this.usage.failures++;
        return { ok: false, error: `aborted while waiting to retry after: ${this.redact(a.error)}`, attempts };
      }
    }
  }
}
