import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Context, MiddlewareHandler } from "hono";
import { preciseElements } from "../io/precise.js";
import type { BodyLease } from "./limits.js";
import { LEASE } from "./limits.js";
import { CLIENT_CLOSED, errorResponse } from "./errors.js";

export { CLIENT_CLOSED, errorResponse } from "./errors.js";
export type { ErrorCode, Status } from "./errors.js";

/**
 * Reads the body as text, at most `limit` bytes. On Node it reads the raw request stream (much cheaper than
 * the web-stream `Request` body); elsewhere (`app.request` in tests) the `Request` body. A chunked body grows the
 * request's admission lease ({@link BodyLease}) chunk by chunk: past the byte budget it is refused with 429.
 * @returns the text; a 413 response when the body is larger than `limit`; a 499 response (never delivered: the
 *   client is gone) when the client went away before the body was complete.
 */
export async function readBody(c: Context, limit: number): Promise<{ text: string } | { response: Response }> {
  const tooLarge = (): { response: Response } => ({
    response: errorResponse(c, 413, "too_large", `request body exceeds ${limit} bytes`),
  });
  const declared = Number(c.req.header("content-length") ?? NaN);
  if (declared > limit) return tooLarge();
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming) {
    const text = await c.req.text();
    return Buffer.byteLength(text) > limit ? tooLarge() : { text };
  }
  const lease = c.get(LEASE as never) as BodyLease | undefined;
  const chunked = !(declared >= 0);
  const gone = (): { response: Response } => ({
    response: errorResponse(
      c,
      CLIENT_CLOSED,
      "client_closed",
      "the client closed the connection before its body was complete",
    ),
  });
  // with a declared length the body is copied into one buffer as it arrives (each chunk can go at once), else
  // the chunks are kept and joined at the end
  const whole = chunked ? undefined : Buffer.allocUnsafe(declared);
  let chunks: Buffer[] = [];
  let size = 0;
  // 'data' events rather than an async iterator: stopping early must not destroy the request (that would reset the
  // connection under a client that has just read its 413 / 429); the rest of the body is discarded by Node
  const stop = await new Promise<"end" | "gone" | "large" | "busy">((resolve) => {
    const done = (why: "end" | "gone" | "large" | "busy"): void => {
      incoming.off("data", onData);
      incoming.off("end", onEnd);
      incoming.off("error", onGone);
      incoming.off("close", onClose);
      if (why === "large" || why === "busy") incoming.resume();
      resolve(why);
    };
    const onData = (chunk: Buffer): void => {
      if (size + chunk.length > limit || (whole && size + chunk.length > whole.length)) return done("large");
      if (chunked && lease && !lease.grow(chunk.length)) return done("busy");
      if (whole) chunk.copy(whole, size);
      else chunks.push(chunk);
      size += chunk.length;
    };
    const onEnd = (): void => done("end");
    const onGone = (): void => done("gone");
    const onClose = (): void => done(incoming.complete ? "end" : "gone");
    incoming.on("data", onData);
    incoming.once("end", onEnd);
    incoming.once("error", onGone);
    incoming.once("close", onClose);
    if (incoming.readableEnded) done("end");
  });
  if (stop === "large") return tooLarge();
  if (stop === "busy")
    return {
      response: errorResponse(c, 429, "overloaded", "server busy: too many body bytes in flight; retry after 1 s", {
        "Retry-After": "1",
      }),
    };
  if (stop === "gone") return gone();
  if (!incoming.complete) return gone();
  if (whole) return { text: whole.toString("utf8", 0, size) };
  const joined = Buffer.concat(chunks, size);
  chunks = []; // the pieces can go before the text is made
  return { text: joined.toString("utf8") };
}

/**
 * Reads the body as JSON. Malformed JSON answers 400 naming the parser's problem (and its position); a body
 * over `limit` bytes answers 413. Numeric `id` / `group` of `rollouts[i]` beyond 2^53 keep their digits (as
 * strings, read from the text), so two groups never merge by rounding.
 * @returns the parsed value, or the error response to return.
 */
export async function readJson(
  c: Context,
  limit: number,
): Promise<{ value: unknown; text: string } | { response: Response }> {
  const body = await readBody(c, limit);
  if ("response" in body) return body;
  const text = body.text;
  if (text.trim() === "")
    return { response: errorResponse(c, 400, "bad_json", "empty request body: expected a JSON object") };
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (e) {
    return { response: errorResponse(c, 400, "bad_json", `malformed JSON in request body: ${(e as Error).message}`) };
  }
  preciseElements(value, text);
  return { value, text };
}

/** A plain JSON object (not null, not an array)? */
export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

const digest = (s: string): Buffer => createHash("sha256").update(s).digest();

/**
 * Requires `Authorization: Bearer <token>` (compared in constant time); anything else answers 401 with
 * `WWW-Authenticate: Bearer`. `open` paths skip the check.
 */
export function bearerAuth(token: string, open: ReadonlySet<string>): MiddlewareHandler {
  const want = digest(token);
  return async (c, next) => {
    if (open.has(c.req.path)) return next();
    const h = c.req.header("authorization") ?? "";
    const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
    if (!m || !timingSafeEqual(digest(m[1]!), want)) {
      const why =
        h === "" ? "missing Authorization header: send `Authorization: Bearer <token>`" : "invalid bearer token";
      return errorResponse(c, 401, "unauthorized", why, { "WWW-Authenticate": 'Bearer realm="rewardkit"' });
    }
    return next();
  };
}
