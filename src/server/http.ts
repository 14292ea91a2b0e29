import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Context, MiddlewareHandler } from "hono";

/** Error codes of the native protocol's error body `{"error": {"code", "message"}}`. */
export type ErrorCode = "unauthorized" | "bad_json" | "bad_request" | "too_large" | "overloaded" | "shutting_down" | "not_found" | "internal";

export type Status = 400 | 401 | 404 | 413 | 429 | 500 | 503;

/** The one error shape every route answers with. */
export function errorResponse(c: Context, status: Status, code: ErrorCode, message: string, headers: Record<string, string> = {}): Response {
  return c.json({ error: { code, message } }, status, headers);
}

/**
 * Reads the body as text, at most `limit` bytes. On Node it reads the raw request stream (much cheaper than
 * the web-stream `Request` body); elsewhere (`app.request` in tests) the `Request` body.
 * @returns the text, or a 413 response when the body is larger than `limit`.
 */
export async function readBody(c: Context, limit: number): Promise<{ text: string } | { response: Response }> {
  const tooLarge = (): { response: Response } => ({ response: errorResponse(c, 413, "too_large", `request body exceeds ${limit} bytes`, { Connection: "close" }) });
  const declared = Number(c.req.header("content-length") ?? NaN);
  if (declared > limit) return tooLarge();
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming) {
    const text = await c.req.text();
    return Buffer.byteLength(text) > limit ? tooLarge() : { text };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return tooLarge();
    chunks.push(chunk);
  }
  return { text: Buffer.concat(chunks, size).toString("utf8") };
}

/**
 * Reads the body as JSON. Malformed JSON answers 400 naming the parser's problem (and its position); a body
 * over `limit` bytes answers 413.
 * @returns the parsed value, or the error response to return.
 */
export async function readJson(c: Context, limit: number): Promise<{ value: unknown } | { response: Response }> {
  const body = await readBody(c, limit);
  if ("response" in body) return body;
  const text = body.text;
  if (text.trim() === "") return { response: errorResponse(c, 400, "bad_json", "empty request body: expected a JSON object") };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (e) {
    return { response: errorResponse(c, 400, "bad_json", `malformed JSON in request body: ${(e as Error).message}`) };
  }
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
      const why = h === "" ? "missing Authorization header: send `Authorization: Bearer <token>`" : "invalid bearer token";
      return errorResponse(c, 401, "unauthorized", why, { "WWW-Authenticate": 'Bearer realm="rewardkit"' });
    }
    return next();
  };
}
