import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileSpec } from "../src/spec/compile.js";
import { scoreFile } from "../src/engine/score-file.js";
import { chatCompletion, promptOf, startReplay } from "../src/client/replay.test-helper.js";
import type { ReplayServer, Reply } from "../src/client/replay.test-helper.js";
import { formatSummary } from "../src/diagnostics/format.js";
import { readJsonl, tmp } from "./helpers.js";

/**
 * The score job against a judge that misbehaves: rollout k's first request meets fault k % 9 (none, 429 with
 * Retry-After, 500, malformed JSON, an HTML page, a truncated body, a stream cut before [DONE], an answer slower than
 * the request deadline), and rollouts with k % 9 = 8 meet 503 forever. Nothing may be lost: every rollout gets its
 * score or `judge_error` with a reason, retries stay within maxRetries, duplicates are served from the cache, and the
 * summary counts it all.
 */
describe("judge under injected faults (score job)", () => {
  let server: ReplayServer;
  const N = 45;
  const KEY = "sk-fault-test-4242";
  beforeAll(async () => {
    server = await startReplay(
      (r): Reply => {
        const k = Number(/Item (\d+)/.exec(promptOf(r.body))![1]);
        const good: Reply = { json: chatCompletion([`Reasoning about item ${k}. Rating: [[${(k % 10) + 1}]]`]) };
        const fault = k % 9;
        if (fault === 8) return { status: 503, json: { error: { message: "overloaded" } } };
        if (r.attempt > 1) return good;
        switch (fault) {
          case 1:
            return { status: 429, json: { error: { message: "slow down" } }, headers: { "retry-after": "0.3" } };
          case 2:
            return { status: 500, json: { error: { message: "boom" } } };
          case 3:
            return { raw: '{"choices": [{"message": {"content": "Rating: [[' };
          case 4:
            return { raw: "<html>502 Bad Gateway</html>", contentType: "text/html" };
          case 5:
            return { raw: JSON.stringify(chatCompletion(["x".repeat(3000)])), truncateAt: 500 };
          case 6:
            return {
              raw: 'data: {"choices":[{"index":0,"delta":{"content":"Rating: [["}}]}\n\n',
              contentType: "text/event-stream",
            };
          case 7:
            return { ...good, delayMs: 3500 };
          default:
            return good;
        }
      },
      (b) => /Item (\d+)/.exec(promptOf(b))![1]!,
    );
  });
  afterAll(() => server.close());

  it("loses no rollout, bounds retries, honours Retry-After, serves duplicates from the cache, counts in the summary", async () => {
    const dir = tmp();
    const input = join(dir, "in.jsonl");
    const rows = Array.from({ length: N }, (_, k) => ({
      id: `r${k}`,
      group: `g${k % 5}`,
      prompt: "p",
      completion: `Item ${k}`,
    }));
    const dups = [0, 9, 18].map((k) => ({ ...rows[k]!, id: `dup${k}` }));
    writeFileSync(input, [...rows, ...dups].map((r) => JSON.stringify(r)).join("\n") + "\n");
    process.env.RK_FAULT_KEY = KEY;
    const c = compileSpec(
      {
        components: [
          {
            name: "judge",
            type: "judge",
            baseUrl: `${server.url}/v1`,
            model: "m",
            apiKeyEnv: "RK_FAULT_KEY",
            template: "{{completion}}",
            parse: "mt-bench",
            requestTimeoutMs: 3000,
            maxRetries: 3,
            backoffMs: 20,
          },
        ],
      },
      "faults",
    );
    if ("issues" in c) throw new Error(JSON.stringify(c.issues));
    const output = join(dir, "out.jsonl");
    const summary = await scoreFile(c.spec, { input, output, concurrency: 1 });
    const out = readJsonl<{
      id: string;
      components: { judge: { score: number | null; reason?: string; details?: Record<string, unknown> } };
    }>(output);
    expect(out.map((r) => r.id)).toEqual([...rows, ...dups].map((r) => r.id));
    for (const [k, r] of out.slice(0, N).entries()) {
      const j = r.components.judge;
      if (k % 9 === 8) {
        expect(j).toMatchObject({ score: null, reason: "judge_error", details: { status: 503, attempts: 4 } });
        expect(String(j.details!.error)).toMatch(/HTTP 503.*gave up after 4 attempts/);
      } else expect(j.score, `rollout ${k}`).toBe((k % 10) / 9);
    }
    // duplicates: same verdict, no new request
    for (const d of out.slice(N))
      expect(d.components.judge.score).toBe(out[Number(d.id.slice(3))]!.components.judge.score);
    const perItem = new Map<number, number[]>();
    for (const r of server.received) {
      const k = Number(/Item (\d+)/.exec(promptOf(r.body))![1]);
      perItem.set(k, [...(perItem.get(k) ?? []), r.t]);
    }
    for (const [k, ts] of perItem) expect(ts.length, `item ${k}`).toBe(k % 9 === 0 ? 1 : k % 9 === 8 ? 4 : 2);
    for (const [k, ts] of perItem) if (k % 9 === 1) expect(ts[1]! - ts[0]!).toBeGreaterThanOrEqual(300);
    const faulty = 5 * 7; // 5 items of each of the 7 transient faults retried once
    expect(summary.judges!.judge).toEqual({
      calls: server.received.length,
      retries: faulty + 5 * 3,
      failures: 5,
      timeouts: 5,
      cacheHits: 3,
      promptTokens: 100 * (N - 5),
      completionTokens: 20 * (N - 5),
      cost: 0,
    });
    expect(server.received.length).toBe(5 + faulty * 2 + 5 * 4);
    expect(summary.components.judge!.reasons).toEqual({ judge_error: 5 });
    // the key was sent, and appears nowhere in the output
    expect(server.received.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    expect(readFileSync(output, "utf8").includes(KEY)).toBe(false);
    expect(formatSummary(summary)).toMatch(
      /judge judge: \d+ calls {2}50 retries {2}5 failed {2}5 timeouts {2}3 cache hits/,
    );
  });
});
