import { afterEach, describe, expect, it } from "vitest";
import { MemoryStore } from "../store/memory.js";
import { StoreGuard } from "../store/guard.js";
import { ModelClient } from "./client.js";
import { shareModelStore } from "./model-store.js";
import { FleetLimiter } from "./fleet-limiter.js";
import { Limiter } from "./limiter.js";
import { chatCompletion, startReplay } from "./replay.test-helper.js";
import { extractChat } from "../verifiers/judge/chat.js";

afterEach(() => shareModelStore(undefined));

/** Grant times (ms) of `n` slots taken one after another from each of `limiters`, all asking at once. */
async function grants(limiters: ReadonlyArray<{ acquire: Limiter["acquire"] }>, n: number): Promise<number[]> {
  const t0 = performance.now();
  const times: number[] = [];
  await Promise.all(
    limiters.map(async (l) => {
      for (let k = 0; k < n; k++) {
        const slot = await l.acquire(1);
        times.push(performance.now() - t0);
        slot.release();
      }
    }),
  );
  return times.sort((a, b) => a - b);
}

/** Every k consecutive grants span at least k × `gap` ms, less `jitter` (sorted times). */
function spaced(times: readonly number[], gap: number, jitter: number): void {
  for (let i = 0; i < times.length; i++)
    for (let j = i + 1; j < times.length; j++)
      expect(times[j]! - times[i]!).toBeGreaterThanOrEqual((j - i) * gap - jitter);
}

describe("fleet-wide budgets (FleetLimiter)", () => {
  it("rpm holds for the fleet: two replicas at rpm 1200 get one grant per 50 ms together, not each", async () => {
    const store = new MemoryStore();
    const opts = { concurrency: 4, rpm: 1200 };
    const fleet = await grants(
      [
        new FleetLimiter(new StoreGuard(store), "e", opts, 10_000),
        new FleetLimiter(new StoreGuard(store), "e", opts, 10_000),
      ],
      5,
    );
    expect(fleet).toHaveLength(10);
    // the store grants 50 ms apart; the times seen here carry event-loop jitter (≤ 25 ms on a loaded machine)
    spaced(fleet, 50, 25);
    // the control: two unshared limiters each pace themselves, so together they go twice as fast
    const apart = await grants([new Limiter(opts), new Limiter(opts)], 5);
    expect(apart[9]! - apart[0]!).toBeLessThan(fleet[9]! - fleet[0]!);
  });

  it("concurrency holds for the fleet: leases are shared, a release lets the next replica in", async () => {
    const store = new MemoryStore();
    const a = new FleetLimiter(new StoreGuard(store), "c", { concurrency: 1 }, 10_000);
    const b = new FleetLimiter(new StoreGuard(store), "c", { concurrency: 1 }, 10_000);
    const s1 = await a.acquire(1);
    let got = false;
    const p = b.acquire(1).then((s) => {
      got = true;
      return s;
    });
    await new Promise((r) => setTimeout(r, 80));
    expect(got).toBe(false);
    s1.release();
    (await p).release();
    expect(got).toBe(true);
  });

  it("judges in two replicas (model clients built after shareModelStore) call the endpoint at the fleet's rpm", async () => {
    const server = await startReplay(() => ({ json: chatCompletion(["Rating: [[7]]"]) }));
    try {
      shareModelStore(new StoreGuard(new MemoryStore()));
      const make = () =>
        new ModelClient({
          concurrency: 8,
          rpm: 600,
          requestTimeoutMs: 5000,
          maxRetries: 0,
          cacheSize: 0,
          endpoint: "e",
        });
      const replicas = [make(), make()];
      await Promise.all(
        replicas.flatMap((c, r) =>
          [0, 1, 2, 3].map((k) =>
            c.call(
              `${server.url}/v1/chat/completions`,
              { model: "m", messages: [{ role: "user", content: `${r}-${k}` }] },
              { extract: extractChat, estimateTokens: 10 },
            ),
          ),
        ),
      );
      const t = server.received.map((x) => x.t).sort((x, y) => x - y);
      expect(t).toHaveLength(8);
      // 100 ms apart at the store; seen through HTTP each arrival lags its grant by a connection set-up (a new client's
      // first call) or a busy event loop: up to one spacing. Unshared, the two replicas would span about half as long.
      spaced(t, 100, 100);
    } finally {
      await server.close();
    }
  });

  it("a response one replica got is not asked again by another (the fleet's response cache)", async () => {
    const server = await startReplay(() => ({ json: chatCompletion(["Rating: [[7]]"]) }));
    try {
      shareModelStore(new StoreGuard(new MemoryStore()));
      const make = () => new ModelClient({ concurrency: 2, requestTimeoutMs: 5000, maxRetries: 0, cacheSize: 100 });
      const body = { model: "m", messages: [{ role: "user", content: "same prompt" }] };
      const co = { extract: extractChat, estimateTokens: 10 };
      const a = await make().call(`${server.url}/v1/chat/completions`, body, co);
      await new Promise((r) => setTimeout(r, 20)); // the write to the store is not awaited by the call
      const b = await make().call(`${server.url}/v1/chat/completions`, body, co);
      expect(server.received).toHaveLength(1);
      expect(a.ok && b.ok && b.cached).toBe(true);
      expect(b.ok && b.value).toEqual(a.ok && a.value);
      // a salted call (a different sample) is its own call
      await make().call(`${server.url}/v1/chat/completions`, body, { ...co, cache: "sample-2" });
      expect(server.received).toHaveLength(2);
    } finally {
      await server.close();
    }
  });
});
