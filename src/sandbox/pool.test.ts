import { describe, expect, it } from "vitest";
import { SandboxPool } from "./pool.js";

describe("SandboxPool", () => {
  it("runs at most `size` at once, each on its own slot, in FIFO order", async () => {
    const pool = new SandboxPool(2);
    let running = 0;
    let peak = 0;
    const slots = new Set<number>();
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        pool.run(async (slot) => {
          running++;
          peak = Math.max(peak, running);
          slots.add(slot);
          order.push(i);
          await new Promise((r) => setTimeout(r, 5));
          running--;
        }),
      ),
    );
    expect(peak).toBe(2);
    expect([...slots].sort()).toEqual([0, 1]);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    expect(pool.busy).toBe(0);
  });
  it("frees the slot when a run throws", async () => {
    const pool = new SandboxPool(1);
    await expect(pool.run(() => Promise.reject(new Error("x")))).rejects.toThrow("x");
    await expect(pool.run(async (s) => s)).resolves.toBe(0);
  });
});
