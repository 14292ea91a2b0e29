/** Settings of one model endpoint's client (judge and reward-model options map onto these). */
export interface ClientOptions {
  /** Requests in flight at once. */
  concurrency: number;
  /** Requests per minute (absent: unlimited). */
  rpm?: number;
  /** Tokens per minute, prompt + completion (absent: unlimited). */
  tpm?: number;
  /** Hard deadline of one HTTP attempt, milliseconds (connection, headers and body). */
  requestTimeoutMs: number;
  /** Retries after the first attempt (0: none). */
  maxRetries: number;
  /** First retry's nominal backoff, milliseconds (default 500). */
  backoffMs?: number;
  /** Upper bound of a backoff or a honoured `Retry-After`, milliseconds (default 30 000). */
  maxBackoffMs?: number;
  /** Bearer token (from the environment variable the spec names; never logged). */
  apiKey?: string;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** Price per million tokens, for the cost estimate. */
  price?: { input: number; output: number };
  /** Cached responses held (0: no cache). */
  cacheSize: number;
  /**
   * What identifies the endpoint's budget across a fleet (the API root and model; default: none, the credentials and
   * limits alone). Clients of one endpoint in every replica share `rpm`, `tpm` and `concurrency` when the server has a
   * store ({@link shareModelStore}).
   */
  endpoint?: string;
}

/** Token counts a response reports (`usage.prompt_tokens`, `usage.completion_tokens`). */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

/** What an extractor makes of a response body: a value, or an error (not retried). Usage is counted either way. */
export type Extracted<T> = ({ value: T } | { error: string }) & { usage?: TokenUsage };

/**
 * Accounting of one model client, reported per component in the summary (`summary.judges.<component>`).
 * `calls` counts HTTP requests sent (retries included); `retries` the attempts that followed a failed one;
 * `failures` the calls given up on (after `maxRetries`, or not retryable); `timeouts` attempts past
 * `requestTimeoutMs`; `cacheHits` calls answered from the cache or joined to an identical one in flight;
 * tokens from the responses' `usage`; `cost` = (promptTokens · price.input + completionTokens · price.output) / 10⁶.
 */
export interface CallUsage {
  calls: number;
  retries: number;
  failures: number;
  timeouts: number;
  cacheHits: number;
  promptTokens: number;
  completionTokens: number;
  cost: number;
}

/** A {@link CallUsage} with every count at 0. */
export function emptyUsage(): CallUsage {
  return {
    calls: 0,
    retries: 0,
    failures: 0,
    timeouts: 0,
    cacheHits: 0,
    promptTokens: 0,
    completionTokens: 0,
    cost: 0,
  };
}
