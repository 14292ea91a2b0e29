import { parseRetryAfter, retryableStatus } from "./retry.js";
import { assembleChatStream } from "./sse.js";

/**
 * The outcome of one HTTP attempt: the parsed JSON body, or an error that is worth retrying (`retry`: timeouts,
 * connection failures, truncated or malformed bodies, a proxy's HTML page, 408/409/425/429/5xx) or not (`fail`:
 * other 4xx such as a bad key or a bad request, an abort by the caller).
 */
export type Attempt =
  | { kind: "ok"; json: unknown; status: number }
  | { kind: "retry" | "fail"; error: string; status?: number; retryAfterMs?: number; timedOut?: boolean };

const HEAD = 200;

function head(text: string): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > HEAD ? `${t.slice(0, HEAD)}…` : t;
}

/**
 * POSTs `body` (JSON text) to `url` once, with a hard deadline of `timeoutMs` covering the connection, the headers
 * and the whole body. Never throws. A body served as `text/event-stream` is assembled into one chat completion
 * (`sse.ts`); a stream without its `[DONE]` line is truncated and retried.
 * @param signal the caller's deadline: when it aborts, the attempt is abandoned (`fail`, not retried).
 */
export async function postOnce(url: string, body: string, headers: Record<string, string>, timeoutMs: number, signal?: AbortSignal): Promise<Attempt> {
  // one controller, aborted by the deadline or by the caller (AbortSignal.any would make a third signal per attempt,
  // and signals are costly to create in Node 20)
  const ctl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctl.abort();
  }, timeoutMs);
  const onAbort = (): void => ctl.abort();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json", ...headers }, body, signal: ctl.signal });
    const text = await res.text();
    if (!res.ok) {
      const retryAfterMs = parseRetryAfter(res.headers);
      return { kind: retryableStatus(res.status) ? "retry" : "fail", status: res.status, error: `HTTP ${res.status}: ${head(text)}`, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
    }
    const type = (res.headers.get("content-type") ?? "").toLowerCase();
    if (type.includes("text/event-stream")) {
      const s = assembleChatStream(text);
      return "error" in s ? { kind: "retry", status: res.status, error: s.error } : { kind: "ok", status: res.status, json: s.json };
    }
    try {
      return { kind: "ok", status: res.status, json: JSON.parse(text) as unknown };
    } catch {
      // a proxy's error page (HTML with status 200) or a body cut short: both pass on a retry
      const what = type.includes("json") || type === "" ? "malformed JSON" : `content-type ${type.split(";")[0]} (expected application/json)`;
      return { kind: "retry", status: res.status, error: `${what}: ${head(text)}` };
    }
  } catch (e) {
    if (signal?.aborted) return { kind: "fail", error: "aborted: the component's deadline passed" };
    if (timedOut) return { kind: "retry", error: `timeout after ${timeoutMs} ms`, timedOut: true };
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    return { kind: "retry", error: `request failed: ${(e as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ""}` };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}
