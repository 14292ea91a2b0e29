/**
 * Admission of request bodies, before they are read: at most `maxRequests` requests with a body are handled at
 * once and at most `maxBytes` body bytes are held over all of them (each declared `Content-Length` is reserved
 * when the request is admitted; a chunked body reserves its bytes as they arrive). A request that does not fit
 * is refused with 429 at once, its body unread, so memory follows these bounds and not the number of clients
 * uploading. The reservation lasts until the request is answered: the parsed body lives that long.
 */
import type { MiddlewareHandler } from "hono";
import { errorResponse } from "./errors.js";

/** The bytes one admitted request holds; chunked bodies grow it while streaming. */
export class BodyLease {
  private released = false;
  constructor(
    private readonly budget: BodyBudget,
    public bytes: number,
  ) {}

  /** Reserves `n` more bytes (a chunked body's next chunk). @returns false when the budget has no room. */
  grow(n: number): boolean {
    if (this.released) return true;
    if (!this.budget.take(n)) return false;
    this.bytes += n;
    return true;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.budget.give(this.bytes, true);
  }
}

/** Requests with a body in flight and the bytes they hold, with their bounds. */
export class BodyBudget {
  private requests = 0;
  private bytes = 0;

  constructor(
    readonly maxRequests: number,
    readonly maxBytes: number,
  ) {}

  /** Requests with a body being handled now. */
  get inFlight(): number {
    return this.requests;
  }

  /** Body bytes held now. */
  get bytesInFlight(): number {
    return this.bytes;
  }

  /**
   * Admits a request declaring `declared` body bytes (0 when chunked).
   * @returns its lease, or why it does not fit.
   */
  admit(declared: number): BodyLease | { refused: string } {
    if (this.requests >= this.maxRequests)
      return { refused: `${this.requests} requests in flight (the limit is ${this.maxRequests})` };
    if (declared > 0 && this.bytes + declared > this.maxBytes)
      return { refused: `${this.bytes + declared} body bytes would be in flight (the limit is ${this.maxBytes})` };
    this.requests++;
    this.bytes += declared;
    return new BodyLease(this, declared);
  }

  /** @internal reserves bytes for a lease. */
  take(n: number): boolean {
    if (this.bytes + n > this.maxBytes) return false;
    this.bytes += n;
    return true;
  }

  /** @internal returns bytes (and, at the end of a request, its slot). */
  give(n: number, end: boolean): void {
    this.bytes -= n;
    if (end) this.requests--;
  }
}

/** Context variable holding the request's {@link BodyLease} (read by `readBody` for chunked bodies). */
export const LEASE = "rewardkitBodyLease";

/**
 * Admission middleware for requests with a body (POST): 413 when the declared body is over `maxBodyBytes`, 429
 * with `Retry-After` when the budget has no room for it, both before a byte of the body is read.
 */
export function bodyAdmission(budget: BodyBudget, maxBodyBytes: number): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method !== "POST") return next();
    const declared = Number(c.req.header("content-length") ?? 0);
    if (declared > maxBodyBytes)
      return errorResponse(c, 413, "too_large", `request body exceeds ${maxBodyBytes} bytes`);
    const lease = budget.admit(Number.isFinite(declared) && declared > 0 ? declared : 0);
    if ("refused" in lease)
      return errorResponse(c, 429, "overloaded", `server busy: ${lease.refused}; retry after 1 s`, {
        "Retry-After": "1",
      });
    c.set(LEASE as never, lease as never);
    try {
      await next();
    } finally {
      lease.release();
    }
  };
}
