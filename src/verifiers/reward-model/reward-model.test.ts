import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileSpec } from "../../spec/compile.js";
import { createScorer } from "../../engine/scorer.js";
import type { ComponentResult, Rollout } from "../../core/types.js";
import { startReplay } from "../../client/replay.test-helper.js";
import type { ReplayServer, Reply } from "../../client/replay.test-helper.js";
import { normalizeScore } from "./index.js";

/** A fake RM: the score of a text is the number after "RM=" in it (0 when none). */
const rmOf = (t: unknown): number => Number(/RM=(-?[\d.]+)/.exec(String(t))?.[1] ?? 0);

async function score(
  component: Record<string, unknown>,
  rollouts: Rollout[],
): Promise<{ results: ComponentResult[]; usage: Record<string, number> }> {
  const r = compileSpec({ components: [{ name: "rm", type: "reward-model", ...component }] }, "t");
  if ("issues" in r) throw new Error(JSON.stringify(r.issues));
  const scorer = createScorer(r.spec, { concurrency: 1 });
  try {
    const results = await Promise.all(rollouts.map(async (x) => (await scorer.score(x)).results[0]!));
    return { results, usage: scorer.usage().rm as unknown as Record<string, number> };
  } finally {
    await scorer.close();
  }
}
const rolls = (xs: number[]): Rollout[] =>
  xs.map((x, i) => ({ id: `r${i}`, group: "g", prompt: "Q: ", completion: `A RM=${x}` }));

describe("reward-model component", () => {
  let server: ReplayServer;
  beforeAll(async () => {
    server = await startReplay((r): Reply => {
      const b = r.body;
      const list = (x: unknown): unknown[] => (Array.isArray(x) ? x : [x]);
      if (r.path === "/classify")
        return {
          json: {
            object: "list",
            data: list(b.input ?? "").map((t, index) => ({
              index,
              label: "LABEL_0",
              probs: [rmOf(t)],
              num_classes: 1,
            })),
          },
        };
      if (r.path === "/two/classify")
        return {
          json: { data: list(b.input).map((t, index) => ({ index, probs: [1 - rmOf(t), rmOf(t)], num_classes: 2 })) },
        };
      if (r.path === "/pooling") {
        if (b.messages)
          return {
            json: {
              data: [
                { index: 0, data: [rmOf((b.messages as Array<{ content: string }>).map((m) => m.content).join(" "))] },
              ],
            },
          };
        // answered out of order: the client orders by index
        return {
          json: {
            data: list(b.input)
              .map((t, index) => ({ index, data: [[0.1], [rmOf(t)]] }))
              .reverse(),
          },
        };
      }
      if (r.path === "/score")
        return {
          json: {
            data: (b.text_2 as string[]).map((t, index) => ({
              index,
              score: rmOf(t) + ((b.text_1 as string[])[index] === "Q: " ? 0 : 100),
            })),
          },
        };
      if (r.path === "/predict") return { json: list(b.inputs).map((t) => [{ score: rmOf(t), label: "LABEL_0" }]) };
      if (r.path === "/rerank") return { json: (b.texts as string[]).map((t, index) => ({ index, score: rmOf(t) })) };
      if (r.path === "/get_reward") return { json: { rewards: (b.query as string[]).map(rmOf) } };
      if (r.path === "/broken/classify") return { json: { data: [] } };
      return { status: 404, json: { error: { message: "no route" } } };
    });
  });
  afterAll(() => server.close());

  it.each([
    ["vllm-classify", ""],
    ["vllm-pooling", ""],
    ["vllm-score", ""],
    ["tei-predict", ""],
    ["tei-rerank", ""],
    ["openrlhf", ""],
  ])("%s: raw score kept in details.raw, batched into one request", async (api) => {
    const before = server.received.length;
    const { results, usage } = await score(
      { api, baseUrl: server.url, model: "rm", batchWaitMs: 20 },
      rolls([0.25, 0.5, 0.75]),
    );
    expect(results.map((r) => r.score)).toEqual([0.25, 0.5, 0.75]);
    expect(results.map((r) => r.details?.raw)).toEqual([0.25, 0.5, 0.75]);
    expect(server.received.length - before).toBe(1);
    expect(usage.calls).toBe(1);
  });

  it("two-class heads score the positive class; normalization and clipping; server-side chat template", async () => {
    expect(
      (await score({ api: "vllm-classify", baseUrl: `${server.url}/two`, model: "rm" }, rolls([0.9]))).results[0]!
        .score,
    ).toBe(0.9);
    const sig = await score({ api: "openrlhf", baseUrl: server.url, normalize: "sigmoid" }, rolls([0, 2]));
    expect(sig.results.map((r) => r.score)).toEqual([0.5, 1 / (1 + Math.exp(-2))]);
    const std = await score(
      { api: "openrlhf", baseUrl: server.url, normalize: "standardize", mean: 1, std: 2, clip: [-0.5, 0.5] },
      rolls([3, 0, 1.5]),
    );
    expect(std.results.map((r) => r.score)).toEqual([0.5, -0.5, 0.25]);
    const before = server.received.length;
    const chat = await score({ api: "vllm-pooling", baseUrl: server.url, chatTemplate: "server" }, [
      { id: "c", group: "g", prompt: [{ role: "user", content: "Hi" }], completion: "RM=0.3" },
    ]);
    expect(chat.results[0]!.score).toBe(0.3);
    expect(server.received[before]!.body).toEqual({
      model: "default",
      messages: [
        { role: "user", content: "Hi" },
        { role: "assistant", content: "RM=0.3" },
      ],
    });
    expect(normalizeScore(3, { normalize: "standardize", mean: 1, std: 2 })).toBe(1);
  });

  it("a failed or malformed answer is judge_error for every rollout of the batch; identical rollouts are one request", async () => {
    const bad = await score(
      { api: "vllm-classify", baseUrl: `${server.url}/broken`, maxRetries: 0 },
      rolls([0.1, 0.2]),
    );
    expect(bad.results.map((r) => [r.score, r.reason])).toEqual([
      [null, "judge_error"],
      [null, "judge_error"],
    ]);
    expect(bad.results[0]!.details!.error).toBe("the response has 0 results for 2 inputs");
    const missing = await score(
      { api: "vllm-classify", baseUrl: `${server.url}/nowhere`, maxRetries: 0 },
      rolls([0.1]),
    );
    expect(missing.results[0]).toMatchObject({ score: null, reason: "judge_error", details: { status: 404 } });
    const dup = await score({ api: "openrlhf", baseUrl: server.url }, rolls([0.5, 0.5, 0.5]));
    expect(dup.results.map((r) => r.score)).toEqual([0.5, 0.5, 0.5]);
    expect(dup.usage).toMatchObject({ calls: 1, cacheHits: 2 });
  });

  it("spec errors", () => {
    const r = compileSpec(
      {
        components: [
          { name: "rm", type: "reward-model", api: "openrlhf", baseUrl: "http://x", normalize: "standardize" },
        ],
      },
      "t",
    );
    expect("issues" in r && r.issues[0]!.message).toMatch(/standardize needs mean and std/);
    const r2 = compileSpec(
      {
        components: [
          { name: "rm", type: "reward-model", api: "tei-rerank", baseUrl: "http://x", chatTemplate: "server" },
        ],
      },
      "t",
    );
    expect("issues" in r2 && r2.issues[0]!.message).toMatch(/takes text/);
  });
});
