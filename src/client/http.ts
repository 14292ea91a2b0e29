import { Agent as HttpAgent, request as httpRequest } from "node:http";
import type { IncomingHttpHeaders } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
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

/** Keep-alive connection pools for one client (HTTP and HTTPS). Idle sockets do not hold the process open. */
export interface Agents {
  http: HttpAgent;
  https: HttpsAgent;
}

/** Connection pools sized for `maxSockets` concurrent requests per host. */
export function createAgents(maxSockets: number): Agents {
  return {
    http: new HttpAgent({ keepAlive: true, maxSockets }),
    https: new HttpsAgent({ keepAlive: true, maxSockets }),
  };
}

function toHeaders(h: IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const [k, v] of Object.entries(h)) if (typeof v === "string") out.set(k, v);
  return out;
}

type Raw =
  | { status: number; headers: IncomingHttpHeaders; text: string }
  | { error: string; timedOut?: boolean; aborted?: boolean };

/** One exchange over node:http(s): the whole body, or why not. A body shorter than announced is an error. */
function exchange(
  url: URL,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  agents: Agents,
  signal: AbortSignal | undefined,
): Promise<Raw> {
  return new Promise<Raw>((resolve) => {
    let done = false;
    const finish = (r: Raw): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(r);
    };
    const https = url.protocol === "https:";
    const req = (https ? httpsRequest : httpRequest)(
      url,
      {
        method: "POST",
        agent: https ? agents.https : agents.http,
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          "content-length": Buffer.byteLength(body),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", (e) => finish({ error: `response failed: ${e.message}` }));
        res.on("close", () => {
          if (!res.complete)
            finish({
              error: `truncated body: the connection closed after ${chunks.reduce((n, c) => n + c.length, 0)} bytes`,
            });
        });
        res.on("end", () =>
          finish({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }),
        );
      },
    );
    const timer = setTimeout(() => {
      finish({ error: `timeout after ${timeoutMs} ms`, timedOut: true });
      req.destroy();
    }, timeoutMs);
    const onAbort = (): void => {
      finish({ error: "aborted: the component's deadline passed", aborted: true });
      req.destroy();
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    req.on("error", (e: NodeJS.ErrnoException) =>
      finish({ error: `request failed: ${e.message}${e.code && !e.message.includes(e.code) ? ` (${e.code})` : ""}` }),
    );
    req.end(body);
  });
}

/**
 * POSTs `body` (JSON text) to `url` once, with a hard deadline of `timeoutMs` covering the connection, the headers
 * and the whole body. Never throws. A body served as `text/event-stream` is assembled into one chat completion
 * (`sse.ts`); a stream without its `[DONE]` line is truncated and retried.
 * @param signal the caller's deadline: when it aborts, the attempt is abandoned (`fail`, not retried).
 */
export async function postOnce(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  agents: Agents,
  signal?: AbortSignal,
): Promise<Attempt> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { kind: "fail", error: `invalid URL ${url}` };
  }
  const r = await exchange(u, body, headers, timeoutMs, agents, signal);
  if ("error" in r)
    return r.aborted
      ? { kind: "fail", error: r.error }
      : { kind: "retry", error: r.error, ...(r.timedOut ? { timedOut: true } : {}) };
  const { status, text } = r;
  if (status < 200 || status > 299) {
    const retryAfterMs = parseRetryAfter(toHeaders(r.headers));
    return {
      kind: retryableStatus(status) ? "retry" : "fail",
      status,
      error: `HTTP ${status}: ${head(text)}`,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    };
  }
  const type = String(r.headers["content-type"] ?? "").toLowerCase();
  if (type.includes("text/event-stream")) {
    const s = assembleChatStream(text);
    return "error" in s ? { kind: "retry", status, error: s.error } : { kind: "ok", status, json: s.json };
  }
  try {
    return { kind: "ok", status, json: JSON.parse(text) as unknown };
  } catch {
    // a proxy's error page (HTML with status 200) or a body cut short: both pass on a retry
    const what =
      type.includes("json") || type === ""
        ? "malformed JSON"
        : `content-type ${type.split(";")[0]} (expected application/json)`;
    return { kind: "retry", status, error: `${what}: ${head(text)}` };
  }
}
