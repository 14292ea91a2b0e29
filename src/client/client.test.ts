import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelClient } from "./client.js";
import { backoffDelay, parseRetryAfter } from "./retry.js";
import { assembleChatStream } from "./sse.js";
import { extractChat } from "../verifiers/judge/chat.js";
import { chatCompletion, startReplay } from "./replay.test-helper.js";
import type { ReplayServer, Reply } from "./replay.test-helper.js";

describe("retry timing", () => {
  it("equal-jitter exponential backoff, capped; Retry-After is a floor with up to 10 % jitter", () => {
    const o = { baseMs: 500, maxMs: 30_000 };
    expect([0, 1, 2, 3].map((k) => backoffDelay(k, o, undefined, () => 0))).toEqual([250, 500, 1000, 2000]);
    expect([0, 1, 2, 3].map((k) => backoffDelay(k, o, undefined, () => 0.999999))).toEqual([500, 1000, 2000, 4000]);
    expect(backoffDelay(10, o, undefined, () => 0.999999)).toBe(30_000);
    expect(backoffDelay(0, o, 1000, () => 0)).toBe(1000);
    expect(backoffDelay(0, o, 1000, () => 0.5)).toBe(1050);
    expect(backoffDelay(0, o, 3_600_000, () => 0)).toBe(30_000);
  });

  it("parses Retry-After seconds, HTTP dates and retry-after-ms", () => {
    expect(parseRetryAfter(new Headers({ "retry-after": "3" }))).toBe(3000);
    expect(parseRetryAfter(new Headers({ "retry-after": "0.5" }))).toBe(500);
    expect(
      parseRetryAfter(
        new Headers({ "retry-after": "Wed, 21 Oct 2015 07:28:10 GMT" }),
        Date.parse("Wed, 21 Oct 2015 07:28:00 GMT"),
      ),
    ).toBe(10_000);
    expect(parseRetryAfter(new Headers({ "retry-after-ms": "250", "retry-after": "9" }))).toBe(250);
    expect(parseRetryAfter(new Headers({ "retry-after": "soon" }))).toBeUndefined();
    expect(parseRetryAfter(new Headers())).toBeUndefined();
  });
});

describe("SSE assembly", () => {
  it("joins deltas per choice and refuses a stream without [DONE]", () => {
    const ev = (o: unknown): string => `data: ${JSON.stringify(o)}\n\n`;
    const chunks =
      ev({ choices: [{ index: 0, delta: { content: "Rating: " } }] }) +
      ev({ choices: [{ index: 0, delta: { content: "[[7]]" }, finish_reason: "stop" }] });
    const ok = assembleChatStream(`${chunks}data: [DONE]\n\n`);
    expect(ok).toEqual({
      json: {
        object: "chat.completion",
        model: undefined,
        choices: [{ index: 0, message: { role: "assistant", content: "Rating: [[7]]" }, finish_reason: "stop" }],
      },
    });
    expect(assembleChatStream(chunks)).toEqual({ error: "truncated stream: no [DONE] after 1 choice(s)" });
  });
});

/**
 * Fault injection against a local server: each request's body names its fault; first attempts fail, retries succeed
 * (except `forever`). Every call must end in a value or an error, within maxRetries + 1 attempts.
 */
describe("ModelClient under faults", () => {
  let server: ReplayServer;
  const ev = (o: unknown): string => `data: ${JSON.stringify(o)}\n\n`;
  beforeAll(async () => {
    server = await startReplay(
      (r): Reply => {
        const fault = String(r.body.fault);
        const good: Reply = { json: chatCompletion([`answer ${String(r.body.id)}`]) };
        if (fault === "forever") return { status: 503, json: { error: { message: "overloaded" } } };
        if (r.attempt > 1) return good;
        switch (fault) {
          case "429":
            return { status: 429, json: { error: { message: "rate limited" } }, headers: { "retry-after-ms": "300" } };
          case "500":
            return { status: 500, json: { error: { message: "internal" } } };
          case "malformed":
            return { raw: '{"choices": [{"message": {"content": "Rating: [[' };
          case "html":
            return { raw: "<html><body>502 Bad Gateway</body></html>", contentType: "text/html" };
          case "truncated":
            return { raw: JSON.stringify(chatCompletion(["x".repeat(2000)])), truncateAt: 300 };
          case "slow":
            return { ...good, delayMs: 3000 };
          case "stream-cut":
            return {
              raw: ev({ choices: [{ index: 0, delta: { content: "Rating: " } }] }),
              contentType: "text/event-stream",
            };
          case "401":
            return {
              status: 401,
              json: { error: { message: `invalid key Bearer ${String(r.headers.authorization).slice(7)}` } },
            };
          default:
            return good;
        }
      },
      (b) => String(b.id),
    );
  });
  afterAll(() => server.close());

  it("retries what is transient, gives up on the rest, counts it all, never leaks the key", async () => {
    const client = new ModelClient({
      concurrency: 4,
      requestTimeoutMs: 2500,
      maxRetries: 3,
      backoffMs: 10,
      maxBackoffMs: 1000,
      cacheSize: 100,
      apiKey: "sk-secret-key-123",
      price: { input: 2, output: 8 },
    });
    const faults = ["none", "429", "500", "malformed", "html", "truncated", "slow", "stream-cut", "forever", "401"];
    const results = await Promise.all(
      faults.map((fault, id) =>
        client.call(`${server.url}/v1/chat/completions`, { id, fault }, { extract: extractChat, estimateTokens: 10 }),
      ),
    );
    const byFault = Object.fromEntries(faults.map((f, k) => [f, results[k]!]));
    for (const f of ["none", "429", "500", "malformed", "html", "truncated", "slow", "stream-cut"]) {
      expect(byFault[f], f).toMatchObject({ ok: true, attempts: f === "none" ? 1 : 2 });
    }
    expect(byFault.forever).toMatchObject({ ok: false, status: 503, attempts: 4 });
    expect((byFault.forever as { error: string }).error).toMatch(/HTTP 503: .*overloaded.*gave up after 4 attempts/);
    expect(byFault["401"]).toMatchObject({ ok: false, status: 401, attempts: 1 });
    expect((byFault["401"] as { error: string }).error).toBe(
      'HTTP 401: {"error":{"message":"invalid key Bearer ***"}}',
    );
    // Retry-After honoured: the retry of the 429 came at least 300 ms after it
    const r429 = server.received.filter((r) => r.body.fault === "429");
    expect(r429[1]!.t - r429[0]!.t).toBeGreaterThanOrEqual(300);
    // the key went out on every request
    expect(server.received.every((r) => r.headers.authorization === "Bearer sk-secret-key-123")).toBe(true);
    const s = client.stats();
    expect(s.calls).toBe(server.received.length);
    expect(s.calls).toBe(1 + 7 * 2 + 4 + 1);
    expect(s.retries).toBe(7 + 3);
    expect(s.failures).toBe(2);
    expect(s.timeouts).toBe(1);
    // usage of the 8 successful answers: 100 prompt + 20 completion tokens each; cost (100·2 + 20·8)/1e6 each
    expect([s.promptTokens, s.completionTokens]).toEqual([800, 160]);
    expect(s.cost).toBeCloseTo((8 * (100 * 2 + 20 * 8)) / 1e6, 12);
  });

  it("identical calls are made once (in flight or later) and counted as cache hits; a salt or cache: false calls again", async () => {
    const client = new ModelClient({ concurrency: 4, requestTimeoutMs: 2000, maxRetries: 0, cacheSize: 100 });
    const before = server.received.length;
    const url = `${server.url}/v1/chat/completions`;
    const body = { id: "dup", fault: "none" };
    const [a, b] = await Promise.all([
      client.call(url, body, { extract: extractChat, estimateTokens: 1 }),
      client.call(url, body, { extract: extractChat, estimateTokens: 1 }),
    ]);
    const c = await client.call(url, body, { extract: extractChat, estimateTokens: 1 });
    await client.call(url, body, { extract: extractChat, estimateTokens: 1, cache: "sample-1" });
    await client.call(url, body, { extract: extractChat, estimateTokens: 1, cache: false });
    expect([a.ok, b.ok, c.ok]).toEqual([true, true, true]);
    expect(server.received.length - before).toBe(3);
    expect(client.stats()).toMatchObject({ calls: 3, cacheHits: 2 });
  });

  it("never has more than `concurrency` requests in flight", async () => {
    let inflight = 0;
    let peak = 0;
    const s = await startReplay(async () => {
      inflight++;
      peak = Math.max(peak, inflight);
      await new Promise((ok) => setTimeout(ok, 150));
      inflight--;
      return { json: chatCompletion(["ok"]) };
    });
    try {
      const client = new ModelClient({ concurrency: 3, requestTimeoutMs: 5000, maxRetries: 0, cacheSize: 0 });
      const rs = await Promise.all(
        Array.from({ length: 12 }, (_, id) =>
          client.call(`${s.url}/x`, { id }, { extract: extractChat, estimateTokens: 1 }),
        ),
      );
      expect(rs.every((r) => r.ok)).toBe(true);
      expect(peak).toBeLessThanOrEqual(3);
      expect(peak).toBeGreaterThan(1); // they did overlap
    } finally {
      await s.close();
    }
  });

  it("an aborted caller stops waiting and retrying", async () => {
    const client = new ModelClient({
      concurrency: 1,
      requestTimeoutMs: 5000,
      maxRetries: 5,
      backoffMs: 5000,
      cacheSize: 0,
    });
    const ctl = new AbortController();
    const p = client.call(
      `${server.url}/v1/chat/completions`,
      { id: "abort", fault: "forever" },
      { extract: extractChat, estimateTokens: 1, signal: ctl.signal },
    );
    setTimeout(() => ctl.abort(), 200);
    const r = await p;
    expect(r).toMatchObject({ ok: false, attempts: 1 });
    expect((r as { error: string }).error).toMatch(/aborted/);
  });
});
