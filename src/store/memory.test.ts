import { describe, expect, it } from "vitest";
import { MemoryStore, budgetStep } from "./memory.js";
import { storeConformance } from "./conformance.test-helper.js";

describe("MemoryStore", () => {
  storeConformance(() => Promise.resolve(new MemoryStore()));

  it("rpm 60: any 60 s window holds at most 60 grants (GCRA with no burst), computed on a fake clock", () => {
    const b = { nextAt: 0, tokens: Infinity, tokensAt: 0, pausedUntil: 0, leases: new Map<string, number>() };
    const grants: number[] = [];
    // a caller that asks every 10 ms for 3 minutes, releasing at once
    for (let t = 0; t < 180_000; t += 10) {
      const a = budgetStep(b, { concurrency: 1, rpm: 60, tokens: 1, lease: `l${t}`, leaseMs: 1 }, t);
      if (a.granted) grants.push(t);
    }
    expect(grants.slice(0, 3)).toEqual([0, 1000, 2000]);
    expect(grants).toHaveLength(180);
    for (let i = 60; i < grants.length; i++) expect(grants[i]! - grants[i - 60]!).toBeGreaterThanOrEqual(60_000);
  });

  it("holds at most maxChars of keys and values: expired entries go first, then the oldest writes", async () => {
    let t = 0;
    const s = new MemoryStore(() => t, 100);
    await s.set("a", "x".repeat(30), 10); // 31 chars, expires at 10
    await s.set("b", "x".repeat(30)); // 31
    await s.set("c", "x".repeat(30)); // 31: 93 in all
    t = 20;
    await s.set("d", "x".repeat(30)); // 124 > 100: the expired a goes
    expect(await s.getMany(["a", "b", "c", "d"])).toEqual([undefined, "x".repeat(30), "x".repeat(30), "x".repeat(30)]);
    await s.set("b", "y"); // rewritten: now the newest
    await s.set("e", "x".repeat(60)); // 31 + 31 + 2 + 61 = 125: the oldest write (c) goes
    expect(await s.getMany(["b", "c", "d", "e"])).toEqual(["y", undefined, "x".repeat(30), "x".repeat(60)]);
  });
});
