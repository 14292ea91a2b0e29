/**
 * Retry timing for model endpoints: exponential backoff with jitter, and the server's `Retry-After` when it sends one.
 */

/** Backoff settings, milliseconds. */
export interface BackoffOptions {
  /** First retry's nominal delay (default 500). */
  baseMs: number;
  /** Upper bound of any delay, including a server's `Retry-After` (default 30 000). */
  maxMs: number;
}

/**
 * Delay before retry number `retry` (0-based): "equal jitter", d = min(maxMs, baseMs · 2^retry) · (0.5 + 0.5 · u),
 * u uniform in [0, 1) — half the nominal delay is guaranteed (no thundering herd of immediate retries), the other half
 * is random (retries of many rollouts spread out). Example: baseMs 500 → retry 0 waits 250–500 ms, retry 3 2–4 s.
 * With a `Retry-After` of r ms the delay is min(maxMs, r) plus up to 10 % jitter: the server's instruction is a floor.
 * @param random a uniform [0, 1) source (tests pass a constant).
 */
export function backoffDelay(
  retry: number,
  o: BackoffOptions,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined && retryAfterMs >= 0) {
    const r = Math.min(o.maxMs, retryAfterMs);
    return Math.round(r + 0.1 * r * random());
  }
  const nominal = Math.min(o.maxMs, o.baseMs * 2 ** retry);
  return Math.round(nominal * (0.5 + 0.5 * random()));
}

/**
 * Parses a `Retry-After` header (RFC 9110 §10.2.3): delay-seconds (`"2"`, `"0.5"` as some proxies send) or an
 * HTTP-date. Also reads OpenAI's `retry-after-ms`. Returns milliseconds ≥ 0, or undefined when absent or unreadable.
 * Example: "3" → 3000; "Wed, 21 Oct 2015 07:28:00 GMT" → that time minus `now` (0 if past).
 */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Math.max(0, Number(ms));
  const v = headers.get("retry-after");
  if (v === null) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(v)) return Math.max(0, Number(v) * 1000);
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : Math.max(0, t - now);
}

/** HTTP statuses worth retrying: request timeout, conflict, too early, too many requests, and every 5xx. */
export function retryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 425 || status === 429 || status >= 500;
}

/** Resolves after `ms`, or rejects early when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error("aborted"));
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(t);
      reject(new Error("aborted"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
