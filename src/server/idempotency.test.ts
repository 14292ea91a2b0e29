import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../store/memory.js";
import { StoreGuard } from "../store/guard.js";
import { Idempotency, requestId } from "./idempotency.js";

const answer = (body: string) => ({ status: 200, body });

describe("idempotent requests (X-Rewardkit-Request-Id)", () => {
  it("a retry with the same id and body is answered from the record, without computing again", async () => {
    const rec = new Idempotency(new StoreGuard(new MemoryStore()), "spec");
    let computed = 0;
    const compute = () => Promise.resolve(answer(`{"n":${++computed}}`));
    expect(await rec.run("r1", "body", compute)).toEqual({
      kind: "answered",
      answer: answer('{"n":1}'),
      replayed: false,
    });
    expect(await rec.run("r1", "body", compute)).toEqual({
      kind: "answered",
      answer: answer('{"n":1}'),
      replayed: true,
    });
    expect(computed).toBe(1);
    expect(rec.replays).toBe(1);
    // another id is another request
    expect((await rec.run("r2", "body", compute)).kind).toBe("answered");
    expect(computed).toBe(2);
  });

  it("the same id with another body is a conflict, never the other request's answer", async () => {
    const rec = new Idempotency(new StoreGuard(new MemoryStore()), "spec");
    await rec.run("r1", "body A", () => Promise.resolve(answer("A")));
    const out = await rec.run("r1", "body B", () => Promise.resolve(answer("B")));
    expect(out.kind).toBe("conflict");
  });

  it("two replicas on one store: a duplicate arriving while the first is scored waits for its answer", async () => {
    const store = new MemoryStore();
    const a = new Idempotency(new StoreGuard(store), "spec", { pollMs: 5 });
    const b = new Idempotency(new StoreGuard(store), "spec", { pollMs: 5 });
    let computed = 0;
    const slow = () =>
      new Promise<{ status: number; body: string }>((r) => setTimeout(() => r(answer(`${++computed}`)), 100));
    const [x, y] = await Promise.all([a.run("r", "body", slow), b.run("r", "body", slow)]);
    expect(computed).toBe(1);
    expect(x).toEqual({ kind: "answered", answer: answer("1"), replayed: false });
    expect(y).toEqual({ kind: "answered", answer: answer("1"), replayed: true });
    expect(b.joins).toBe(1);
  });

  it("a replica that died holding a claim: the claim expires and the retry is scored where it arrived", async () => {
    const store = new MemoryStore();
    const rec = new Idempotency(new StoreGuard(store), "spec", { pollMs: 10 });
    // a claim for the same body that its holder never renews (the replica was SIGKILLed mid-request)
    const hash = createHash("sha256").update("body").digest("base64url");
    await store.set("r:spec:r", JSON.stringify({ state: "pending", hash, owner: "dead" }), 150);
    const t0 = Date.now();
    const out = await rec.run("r", "body", () => Promise.resolve(answer("fresh")));
    expect(out).toEqual({ kind: "answered", answer: answer("fresh"), replayed: false });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(100); // it waited for the claim to lapse, then scored
  });

  it("an error answer is not recorded: the retry computes", async () => {
    const rec = new Idempotency(new StoreGuard(new MemoryStore()), "spec");
    await rec.run("r", "b", () => Promise.resolve({ status: 429, body: "busy" }));
    const out = await rec.run("r", "b", () => Promise.resolve(answer("ok")));
    expect(out).toEqual({ kind: "answered", answer: answer("ok"), replayed: false });
  });

  it("request ids: visible ASCII, at most 200 characters", () => {
    expect(requestId(undefined)).toEqual({ id: undefined });
    expect(requestId("a1-B2_c3:4")).toEqual({ id: "a1-B2_c3:4" });
    expect(requestId("has space")).toHaveProperty("error");
    expect(requestId("x".repeat(201))).toHaveProperty("error");
  });
});
