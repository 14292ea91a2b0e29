import { describe, expect, it } from "vitest";
import { parseSpec } from "../spec/load.js";
import { createScorer } from "./scorer.js";

// Catastrophic backtracking: (a+)+$ on 40 a's and a b takes ~2^40 steps. Only terminating the worker stops it.
const runaway = "a".repeat(40) + "b";

describe("scorer deadlines", () => {
  it("terminates a runaway verifier, reports timeout, and keeps scoring the next rollouts", async () => {
    const spec = parseSpec(
      `components:
  - {name: evil, type: regex, pattern: "^(a+)+$", timeoutMs: 300}
  - {name: fine, type: contains, value: "b"}`,
      "t.yaml",
    );
    const scorer = createScorer(spec, { concurrency: 1 });
    try {
      const t0 = Date.now();
      const first = await scorer.score({ id: "1", group: "g", completion: runaway });
      const elapsed = Date.now() - t0;
      expect(first.results[0]).toEqual({
        score: null,
        status: "unscorable",
        reason: "timeout",
        details: { timeoutMs: 300 },
      });
      expect(first.results[1]!.score).toBe(1);
      expect(first.reward).toBe(1); // onUnscorable: zero
      expect(elapsed).toBeLessThan(20_000); // sanity bound only: the pattern alone would run for hours
      // the pool replaced the terminated worker
      const second = await scorer.score({ id: "2", group: "g", completion: "aaaa" });
      expect(second.results[0]!.score).toBe(1);
    } finally {
      await scorer.close();
    }
  });

  it("rollouts in flight beside a runaway one are judged normally when its thread is killed", async () => {
    const spec = parseSpec(`components:\n  - {name: evil, type: regex, pattern: "^(a+)+$", timeoutMs: 300}`, "t.yaml");
    const scorer = createScorer(spec, { concurrency: 1, cacheSize: 0 });
    try {
      const runs = [runaway, "aaa", "b", "aaaa", "ab"].map((completion, i) =>
        scorer.score({ id: String(i), group: "g", completion }),
      );
      const scores = (await Promise.all(runs)).map((r) => r.results[0]!);
      expect(scores[0]).toMatchObject({ status: "unscorable", reason: "timeout" });
      expect(scores.slice(1).map((r) => [r.score, r.status])).toEqual([
        [1, "ok"],
        [0, "ok"],
        [1, "ok"],
        [0, "ok"],
      ]);
    } finally {
      await scorer.close();
    }
  });

  it("a missing capture group is no_answer, not a crash", async () => {
    const spec = parseSpec(`components:\n  - {name: r, type: regex, pattern: "x", capture: 1}`, "t.yaml");
    const scorer = createScorer(spec, { concurrency: 1 });
    try {
      const r = await scorer.score({ id: "1", group: "g", completion: "x", reference: "y" });
      // capture group 1 does not exist: the verifier reports no_answer instead of throwing
      expect(r.results[0]!.reason).toBe("no_answer");
    } finally {
      await scorer.close();
    }
  });
});

describe("scorer cache", () => {
  it("computes identical work once, keyed on every field the verifier reads", async () => {
    const spec = parseSpec(
      `components:
  - {name: acc, type: exact}
  - {name: len, type: overlong, maxLength: 100, bufferLength: 20}`,
      "t.yaml",
    );
    const scorer = createScorer(spec, { concurrency: 1 });
    try {
      const a = await scorer.score({ id: "1", group: "g", completion: "x", reference: "x", completion_tokens: 90 });
      const b = await scorer.score({ id: "2", group: "g", completion: "x", reference: "x", completion_tokens: 90 });
      expect(b).toEqual(a);
      expect(scorer.stats()).toMatchObject({ cacheHits: 2, cacheMisses: 2 });
      // overlong reads completion_tokens: a different count is a different verdict, exact is still a hit
      const c = await scorer.score({ id: "3", group: "g", completion: "x", reference: "x", completion_tokens: 100 });
      expect(c.results[1]!.score).toBeCloseTo(-1, 12);
      expect(a.results[1]!.score).toBeCloseTo(-0.5, 12);
      expect(scorer.stats()).toMatchObject({ cacheHits: 3, cacheMisses: 3 });
      // another reference is another key
      expect((await scorer.score({ id: "4", group: "g", completion: "x", reference: "y" })).results[0]!.score).toBe(0);
    } finally {
      await scorer.close();
    }
  });
});

describe("inline verifiers that return a promise", () => {
  it("are raced against timeoutMs unless they time themselves", async () => {
    const { runInline } = await import("./inline.js");
    const never = () => new Promise<never>(() => undefined);
    const t0 = Date.now();
    const r = await runInline(
      never,
      { completion: "", reference: undefined, rollout: { id: "a", group: "g", completion: "" } },
      100,
      false,
    );
    expect(r).toEqual({ score: null, status: "unscorable", reason: "timeout", details: { timeoutMs: 100 } });
    expect(Date.now() - t0).toBeLessThan(5000);
    const thrown = await runInline(
      () => Promise.reject(new Error("boom")),
      { completion: "", reference: undefined, rollout: { id: "a", group: "g", completion: "" } },
      100,
      true,
    );
    expect(thrown).toEqual({ score: null, status: "unscorable", reason: "worker_error", details: { error: "boom" } });
  });
});
