import { describe, expect, it } from "vitest";
import { BoundedCache } from "./cache.js";

describe("BoundedCache", () => {
  it("keeps what is used at least once per half-capacity inserts, and evicts a whole generation otherwise", () => {
    const c = new BoundedCache<number>(4); // generations of 2
    c.set("k0", 0);
    c.set("k1", 1); // hot fills: {k0, k1} becomes cold
    expect(c.get("k0")).toBe(0); // promoted back into hot
    c.set("k2", 2); // hot {k0, k2} fills: becomes cold; {k1} is dropped
    c.set("k3", 3);
    expect(c.get("k1")).toBeUndefined();
    expect(c.get("k0")).toBe(0); // promoting k0 fills hot {k3, k0}: it becomes cold, {k2} is dropped
    expect(c.get("k2")).toBeUndefined();
    expect(c.get("k3")).toBe(3);
    expect(c.size).toBeLessThanOrEqual(4);
    expect([c.hits, c.misses]).toEqual([3, 2]);
  });

  it("capacity 0 stores nothing", () => {
    const c = new BoundedCache<number>(0);
    c.set("a", 1);
    expect(c.get("a")).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it("never exceeds its bound under a long stream of inserts", () => {
    const c = new BoundedCache<number>(1000);
    for (let i = 0; i < 10_000; i++) c.set(String(i), i);
    expect(c.size).toBeLessThanOrEqual(1000);
    expect(c.get("9999")).toBe(9999);
  });
});
