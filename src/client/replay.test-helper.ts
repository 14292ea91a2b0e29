import { createServer } from "node:http";
import type { IncomingHttpHeaders, Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A request the replay server received. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** 1 for the first request with this body (per `key`), 2 for its first retry, … */
  attempt: number;
  /** Milliseconds since the server started. */
  t: number;
}

/** How to answer: JSON (default status 200), raw text, a truncated body, a delay, or a dropped connection. */
export interface Reply {
  status?: number;
  json?: unknown;
  raw?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Send only this many bytes of the body while announcing the full length, then close (a truncated body). */
  truncateAt?: number;
}

/** A local OpenAI-compatible replay server for tests: answers each POST from `handler`. */
export interface ReplayServer {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/**
 * Starts a replay server on 127.0.0.1 (a free port). `key(body)` groups retries of one logical request (default:
 * the body's JSON) for `attempt`.
 */
export async function startReplay(
  handler: (r: Received) => Reply | Promise<Reply>,
  key: (body: Record<string, unknown>) => string = (b) => JSON.stringify(b),
): Promise<ReplayServer> {
  const received: Received[] = [];
  const attempts = new Map<string, number>();
  const t0 = performance.now();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        let body: Record<string, unknown> = {};
        try {
          body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>;
        } catch {
          body = { unparsable: true };
        }
        const k = key(body);
        const attempt = (attempts.get(k) ?? 0) + 1;
        attempts.set(k, attempt);
        const r: Received = { path: req.url ?? "", headers: req.headers, body, attempt, t: performance.now() - t0 };
        received.push(r);
        const reply = await handler(r);
        if (reply.delayMs) await new Promise((ok) => setTimeout(ok, reply.delayMs));
        if (res.destroyed) return;
        const text = reply.raw ?? JSON.stringify(reply.json ?? {});
        const data = Buffer.from(text, "utf8");
        res.writeHead(reply.status ?? 200, {
          "content-type": reply.contentType ?? "application/json",
          "content-length": String(data.length),
          ...(reply.headers ?? {}),
        });
        if (reply.truncateAt !== undefined) {
          res.write(data.subarray(0, reply.truncateAt));
          res.socket?.destroy();
          return;
        }
        res.end(data);
      })();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

/** A chat.completion answer with the given message texts (one choice each) and optional per-choice log-probs. */
export function chatCompletion(
  texts: readonly string[],
  logprobs?: ReadonlyArray<unknown>,
  usage = { prompt_tokens: 100, completion_tokens: 20 },
): Record<string, unknown> {
  return {
    id: "chatcmpl-replay",
    object: "chat.completion",
    model: "replay",
    choices: texts.map((content, index) => ({
      index,
      message: { role: "assistant", content },
      finish_reason: "stop",
      logprobs: logprobs?.[index] ?? null,
    })),
    usage: {
      ...usage,
      completion_tokens: usage.completion_tokens * texts.length,
      total_tokens: usage.prompt_tokens + usage.completion_tokens * texts.length,
    },
  };
}

/** The text of a chat request's messages, joined. */
export function promptOf(body: Record<string, unknown>): string {
  const msgs = Array.isArray(body.messages) ? (body.messages as Array<{ content?: unknown }>) : [];
  return msgs.map((m) => (typeof m.content === "string" ? m.content : "")).join("\n");
}
