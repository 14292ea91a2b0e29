import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** Error codes of the native protocol's error body `{"error": {"code", "message"}}`. */
export type ErrorCode =
  | "unauthorized"
  | "forbidden"
  | "bad_json"
  | "bad_request"
  | "too_large"
  | "unsupported_media_type"
  | "overloaded"
  | "client_closed"
  | "shutting_down"
  | "not_found"
  | "conflict"
  | "internal";

/** HTTP statuses the server answers with; 499 (nginx's "client closed request") is only ever logged and counted. */
export type Status = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 499 | 500 | 503;

/** Status recorded for a request whose client went away before its body was read (nobody receives it). */
export const CLIENT_CLOSED: Status = 499;

/** The one error shape every route answers with. */
export function errorResponse(
  c: Pick<Context, "json">,
  status: Status,
  code: ErrorCode,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return c.json({ error: { code, message } }, status as ContentfulStatusCode, headers);
}
