import { expect, it } from "vitest";
import type { Store } from "./types.js";

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * The behaviour every {@link Store} must have, run against the in-process store (src/store/memory.test.ts) and a
 * real Redis (test/store-redis.test.ts): the same calls, the same answers. `make` gives a fresh, empty store.
 */
export function storeConformance(make: () => Promise<Store>): void {
  it("get / set / expiry / set-if-absent / delete-if-equals", async () => {
    const s = await make();
    try {
      expect(await s.getMany(["a", "b"])).toEqual([undefined, undefined]);
      await s.set("a", "1");
      await s.set("b", "2", 80);
      expect(await s.getMany(["a", "b", "c"])).toEqual(["1", "2", undefined]);
      expect(await s.setIfAbsent("a", "x", 1000)).toBe(false);
      expect(await s.setIfAbsent("c", "3", 80)).toBe(true);
      expect(await s.deleteIfEquals("a", "2")).toBe(false);
      expect(await s.deleteIfEquals("a", "1")).toBe(true);
      await sleep(150);
      expect(await s.getMany(["a", "b", "c"])).toEqual([undefined, undefined, undefined]);
      expect(await s.setIfAbsent("c", "4", 1000)).toBe(true); // the expired claim is gone
      await s.setMany(
        [
          ["m1", "x"],
          ["m2", "y"],
        ],
        80,
      );
      expect(await s.getMany(["m1", "m2"])).toEqual(["x", "y"]);
      await sleep(150);
      expect(await s.getMany(["m1", "m2"])).toEqual([undefined, undefined]);
    } finally {
      await s.close();
    }
  });

  it("indexed lists: append in order, index below a bound, take all at once", async () => {
    const s = await make();
    try {
      await s.appendIndexed("p:3", "x", "ix", 3);
      await s.appendIndexed("p:1", "a", "ix", 1);
      await s.appendIndexed("p:1", "b", "ix", 1);
      await s.appendIndexed("p:5", "y", "ix", 5);
      expect(await s.indexBelow("ix", 5)).toEqual([1, 3]);
      expect(await s.takeIndexed("p:1", "ix", 1)).toEqual(["a", "b"]);
      expect(await s.takeIndexed("p:1", "ix", 1)).toEqual([]);
      expect(await s.indexBelow("ix", 10)).toEqual([3, 5]);
    } finally {
      await s.close();
    }
  });

  it("registries: counts per field summed over live members, a member that stops its heartbeat drops out", async () => {
    const s = await make();
    try {
      await s.registryAdd("reg", "A", "4", 2, 10_000);
      await s.registryAdd("reg", "B", "4", 1, 200);
      await s.registryAdd("reg", "B", "5", 3, 200);
      await s.registryAdd("reg", "A", "4", -1, 10_000);
      expect(await s.registrySum("reg")).toEqual({ "4": 2, "5": 3 });
      await s.registryAdd("reg", "A", "4", -1, 10_000); // at 0: the field is gone
      expect(await s.registrySum("reg")).toEqual({ "4": 1, "5": 3 });
      await sleep(500); // B died: no heartbeat
      expect(await s.registrySum("reg")).toEqual({});
      await s.registryAdd("reg", "A", "7", 1, 600);
      await sleep(300);
      await s.registryTouch("reg", "A", 600); // alive until ~900 ms
      await sleep(400);
      expect(await s.registrySum("reg")).toEqual({ "7": 1 }); // kept alive by the heartbeat (700 ms > its first 600)
    } finally {
      await s.close();
    }
  });

  it("statistics: fields add, decayed fields are brought to the later step, the least recently merged go past the cap", async () => {
    const s = await make();
    try {
      const merge = (m: string, n: number, e: number, step: number) =>
        s.statsMerge("st", m, { add: { n }, decayed: { e }, step, factor: 0.5 }, 2);
      await merge("a", 2, 2, 3);
      await merge("a", 1, 1, 1); // an older step: e = 2 + 1·0.5² = 2.25, last stays 3
      await merge("b", 1, 4, 0);
      await merge("a", 1, 1, 5); // a later step: e = 2.25·0.5² + 1 = 1.5625, last 5
      expect(await s.statsRead("st")).toEqual([
        { member: "b", fields: { n: 1, e: 4, last: 0 } },
        { member: "a", fields: { n: 4, e: 1.5625, last: 5 } },
      ]);
      await merge("c", 1, 1, 0); // three items, cap 2: b (least recently merged) goes
      expect((await s.statsRead("st")).map((x) => x.member)).toEqual(["a", "c"]);
      expect(await s.statsRead("none")).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it("budgets: rpm spaces grants 60 000 / rpm ms apart, leases bound concurrency, a pause holds everyone", async () => {
    const s = await make();
    try {
      const ask = (lease: string, o: Partial<Parameters<Store["budgetAcquire"]>[1]> = {}) =>
        s.budgetAcquire("e", { concurrency: 2, rpm: 600, tokens: 1, lease, leaseMs: 10_000, ...o });
      expect(await ask("l1")).toEqual({ granted: true });
      const second = await ask("l2");
      expect(second.granted).toBe(false); // 100 ms spacing at 600 rpm
      if (!second.granted) expect(second.waitMs).toBeGreaterThan(50);
      if (!second.granted) expect(second.waitMs).toBeLessThanOrEqual(100);
      await sleep(110);
      expect(await ask("l2")).toEqual({ granted: true });
      await sleep(110);
      const third = await ask("l3"); // two leases held: concurrency 2
      expect(third).toEqual({ granted: false, waitMs: 25 });
      await s.budgetRelease("e", "l1", 0);
      expect(await ask("l3")).toEqual({ granted: true });
      await s.budgetRelease("e", "l2", 0);
      await s.budgetRelease("e", "l3", 0);
      await sleep(110);
      await s.budgetPause("e", 300);
      const paused = await ask("l4");
      expect(paused.granted).toBe(false);
      if (!paused.granted) expect(paused.waitMs).toBeGreaterThan(200);
      // a lease whose holder died expires
      const t = await s.budgetAcquire("f", { concurrency: 1, tokens: 1, lease: "dead", leaseMs: 100 });
      expect(t.granted).toBe(true);
      expect((await s.budgetAcquire("f", { concurrency: 1, tokens: 1, lease: "x", leaseMs: 100 })).granted).toBe(false);
      await sleep(150);
      expect((await s.budgetAcquire("f", { concurrency: 1, tokens: 1, lease: "x", leaseMs: 100 })).granted).toBe(true);
    } finally {
      await s.close();
    }
  });

  it("budgets: a tpm bucket of tpm/60 tokens, debt for a call larger than the bucket, corrections on release", async () => {
    const s = await make();
    try {
      // 6 000 tpm: a bucket of 100 tokens refilled at 0.1 token/ms
      const ask = (lease: string, tokens: number) =>
        s.budgetAcquire("t", { concurrency: 100, tpm: 6000, tokens, lease, leaseMs: 10_000 });
      expect(await ask("a", 60)).toEqual({ granted: true }); // 40 left
      const b = await ask("b", 60);
      expect(b.granted).toBe(false); // needs 20 more tokens: ~200 ms
      if (!b.granted) expect(b.waitMs).toBeGreaterThan(150);
      if (!b.granted) expect(b.waitMs).toBeLessThanOrEqual(201);
      await s.budgetRelease("t", "a", 60, 6000); // the call really used 0 tokens: 60 back (capped at 100)
      expect(await ask("b", 60)).toEqual({ granted: true });
      expect(await ask("c", 250)).toEqual({ granted: false, waitMs: expect.any(Number) as number });
    } finally {
      await s.close();
    }
  });
}
