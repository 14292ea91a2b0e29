/**
 * The shared store on a real Redis (Debian redis-server, started here on a free port): the same conformance suite as
 * the in-process store, the fleet's performance schedule over three connections, and degrading to local state when
 * Redis goes away (and back when it returns).
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisStore } from "../src/store/redis.js";
import { StoreGuard } from "../src/store/guard.js";
import { openStore, storeFromUrl } from "../src/store/open.js";
import { storeConformance } from "../src/store/conformance.test-helper.js";
import { fleetScript } from "../src/schedule/fleet.test-helper.js";
import { redisMissing, startRedis } from "./redis-helper.js";

const missing = redisMissing();
if (missing) console.warn(`skipping Redis store tests: ${missing}`);

describe.skipIf(missing !== undefined)("RedisStore on a real redis-server", () => {
  let redis: Awaited<ReturnType<typeof startRedis>>;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());

  /** A store in its own namespace (tests share one server). */
  const fresh = async (prefix = `t${randomBytes(4).toString("hex")}:`): Promise<RedisStore> => {
    const s = new RedisStore({ url: redis.url, prefix });
    await s.ping();
    return s;
  };

  storeConformance(() => fresh());

  it("three replicas on three connections move a performance schedule at the same steps as one server", async () => {
    const prefix = `fleet${randomBytes(4).toString("hex")}:`;
    const stores = await Promise.all([fresh(prefix), fresh(prefix), fresh(prefix)]);
    try {
      await fleetScript(stores.map((s) => new StoreGuard(s)));
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it("addresses: redis://host:port/db, a clear error for anything else, and a store that does not answer", async () => {
    expect(storeFromUrl("memory").description).toBe("memory");
    expect(storeFromUrl("redis://u:secret@127.0.0.1:1/2").description).toBe("redis://u:***@127.0.0.1:1/2");
    expect(() => storeFromUrl("http://x")).toThrow(/unsupported scheme http:/);
    expect(() => storeFromUrl("redis://h:1/x")).toThrow(/database must be a number/);
    await expect(openStore("redis://127.0.0.1:1", 300)).rejects.toThrow(
      /does not answer \(tried for 0\.\d s\).*ECONNREFUSED/,
    );
    // a database the server does not have: refused at once (Redis would otherwise serve database 0 silently)
    const t0 = Date.now();
    await expect(openStore(`${redis.url}/99`, 5000)).rejects.toThrow(
      /database 99 does not exist on this server \(it has 16/,
    );
    expect(Date.now() - t0).toBeLessThan(3000);
    const five = await openStore(`${redis.url}/5`, 1000);
    await five.close();
  });

  it("when Redis goes away: operations fall back at once, counted and warned; when it returns: shared again", async () => {
    const r2 = await startRedis();
    const lines: string[] = [];
    const store = new RedisStore({ url: r2.url, commandTimeoutMs: 500 });
    const guard = new StoreGuard(store, (l) => lines.push(l));
    try {
      expect(
        await guard.attempt(
          "cache_get",
          (s) => s.getMany(["k"]),
          () => ["local"],
        ),
      ).toEqual([undefined]);
      r2.stop();
      await new Promise((r) => setTimeout(r, 200));
      const t0 = Date.now();
      expect(
        await guard.attempt(
          "cache_get",
          (s) => s.getMany(["k"]),
          () => ["local"],
        ),
      ).toEqual(["local"]);
      expect(Date.now() - t0).toBeLessThan(1500); // no hang: fails within the command timeout
      expect(guard.health.degraded).toBe(true);
      expect(guard.health.errors.cache_get).toBe(1);
      expect(lines.join("")).toMatch(/store redis:\/\/127\.0\.0\.1:\d+ failed \(cache_get: .*not connected/);
      const back = await startRedis(r2.port);
      const stop = guard.watch(100); // no traffic: the watch's pings see the store return
      try {
        for (let i = 0; i < 50 && guard.health.degraded; i++) await new Promise((r) => setTimeout(r, 100));
        expect(guard.health.degraded).toBe(false);
        expect(lines.join("")).toMatch(/answers again/);
      } finally {
        stop();
        back.stop();
      }
    } finally {
      await store.close();
      r2.stop();
    }
  });
});
