import { afterEach, describe, expect, it, vi } from "vitest";
import { GroupBarrier } from "./barrier.js";
import type { GroupEnd, JoinResult } from "./barrier.js";

/** A barrier whose answer to member k of a group is "<payload>:<k>/<arrived>:<complete|partial>". */
function barrier(o: { waitMs?: number; maxMembers?: number; maxBytes?: number } = {}) {
  const ends: GroupEnd[] = [];
  const b = new GroupBarrier<string, string>(
    { waitMs: o.waitMs ?? 1000, maxMembers: o.maxMembers ?? 100, maxBytes: o.maxBytes ?? 1e9 },
    (payloads, end) => {
      ends.push(end);
      return payloads.map((p, k) => `${p}:${k}/${end.arrived}:${end.complete ? "complete" : "partial"}`);
    },
    (e) => `error:${(e as Error).message}`,
  );
  return { b, ends };
}

const answer = (r: JoinResult<string>): string => (r.kind === "answer" ? r.answer : `${r.kind}: ${r.message}`);

afterEach(() => {
  vi.useRealTimers();
});

describe("GroupBarrier", () => {
  it("answers nobody until size distinct ids have joined, then everyone, in arrival order", async () => {
    const { b, ends } = barrier();
    let settled = 0;
    const p1 = b.join("k", 3, "a", "fa", "A", 10).then((r) => (settled++, r));
    const p2 = b.join("k", 3, "b", "fb", "B", 10).then((r) => (settled++, r));
    await new Promise((r) => setTimeout(r, 20));
    expect(settled).toBe(0);
    expect([b.groupsWaiting, b.membersWaiting, b.bytesWaiting]).toEqual([1, 2, 20]);
    const p3 = b.join("k", 3, "c", "fc", "C", 10);
    expect((await Promise.all([p1, p2, p3])).map(answer)).toEqual([
      "A:0/3:complete",
      "B:1/3:complete",
      "C:2/3:complete",
    ]);
    expect(ends).toHaveLength(1);
    expect([b.groupsWaiting, b.membersWaiting, b.bytesWaiting, b.completed, b.partial]).toEqual([0, 0, 0, 1, 0]);
  });

  it("a retried member (same id, same content) counts once and gets the first arrival's answer", async () => {
    const { b } = barrier();
    const first = b.join("k", 2, "a", "fa", "A1", 1);
    const retry = b.join("k", 2, "a", "fa", "A2", 1);
    expect(b.membersWaiting).toBe(1);
    const other = b.join("k", 2, "b", "fb", "B", 1);
    expect((await Promise.all([first, retry, other])).map(answer)).toEqual([
      "A1:0/2:complete",
      "A1:0/2:complete",
      "B:1/2:complete",
    ]);
    // after the group ended, a retry is answered from its record at once
    expect(answer(await b.join("k", 2, "a", "fa", "A3", 1))).toBe("A1:0/2:complete");
  });

  it("an id reused with other content is refused; the group still completes with the others", async () => {
    const { b } = barrier();
    const a = b.join("k", 2, "a", "fa", "A", 1);
    const clash = await b.join("k", 2, "a", "other", "X", 1);
    expect(clash.kind).toBe("refused");
    expect(answer(clash)).toContain('id "a" already joined group k with other content');
    const c = b.join("k", 2, "c", "fc", "C", 1);
    expect((await Promise.all([a, c])).map(answer)).toEqual(["A:0/2:complete", "C:1/2:complete"]);
  });

  it("a group_size other than the group's is refused", async () => {
    const { b } = barrier();
    void b.join("k", 3, "a", "fa", "A", 1);
    expect(answer(await b.join("k", 4, "b", "fb", "B", 1))).toBe(
      "refused: group_size 4 differs from the 3 this group was opened with (group_size must be the same on every rollout of a group)",
    );
    b.evict("test over");
  });

  it("other keys are other groups (the same group name at another step)", async () => {
    const { b } = barrier();
    const s1 = b.join("spec\u00001\u0000g", 1, "a", "f", "S1", 1);
    const s2 = b.join("spec\u00002\u0000g", 1, "a", "f", "S2", 1);
    expect((await Promise.all([s1, s2])).map(answer)).toEqual(["S1:0/1:complete", "S2:0/1:complete"]);
  });

  it("past waitMs the members that arrived are finished as partial", async () => {
    vi.useFakeTimers();
    const { b, ends } = barrier({ waitMs: 500 });
    const a = b.join("k", 3, "a", "fa", "A", 1);
    await vi.advanceTimersByTimeAsync(300);
    const c = b.join("k", 3, "c", "fc", "C", 1);
    await vi.advanceTimersByTimeAsync(199);
    expect(ends).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1); // 500 ms after the first member, not after the last
    expect((await Promise.all([a, c])).map(answer)).toEqual(["A:0/2:partial", "C:1/2:partial"]);
    expect(ends[0]).toMatchObject({ key: "k", size: 3, arrived: 2, complete: false, waitedMs: 500 });
    expect([b.completed, b.partial, b.membersWaiting]).toEqual([0, 1, 0]);
  });

  it("room: new groups are refused past the bound; members of waiting groups always fit", () => {
    const { b } = barrier({ maxMembers: 3, maxBytes: 100 });
    expect(b.room([{ key: "g1", bytes: 10 }])).toBeUndefined();
    void b.join("g1", 5, "a", "f", "A", 10);
    void b.join("g1", 5, "b", "f", "B", 10);
    void b.join("g1", 5, "c", "f", "C", 10);
    const full = b.room([{ key: "g2", bytes: 10 }]);
    expect(full?.message).toBe(
      "3 rollouts (0 KiB) of 1 groups are waiting for the rest of their groups (the bounds are 3 rollouts, 0 KiB)",
    );
    expect(full!.retryAfterS).toBe(1); // the waiting group ends within 1 s
    expect(b.room([{ key: "g1", bytes: 10 }])).toBeUndefined(); // completes a waiting group: let in
    expect(b.room([{ key: "g3", bytes: 200 }])).toBeDefined(); // bytes bound
    expect(b.refused).toBe(2);
    b.evict("test over");
  });

  it("evict answers every waiting member and empties the barrier", async () => {
    const { b } = barrier();
    const a = b.join("k", 2, "a", "f", "A", 1);
    b.evict("shutting down");
    expect(await a).toEqual({ kind: "evicted", message: "shutting down" });
    expect([b.groupsWaiting, b.membersWaiting, b.bytesWaiting]).toEqual([0, 0, 0]);
  });

  it("a finish that throws answers each member through onError", async () => {
    const b = new GroupBarrier<string, string>(
      { waitMs: 1000, maxMembers: 10, maxBytes: 1e9 },
      () => Promise.reject(new Error("boom")),
      (e, p) => `${p}:${(e as Error).message}`,
    );
    const r = await b.join("k", 1, "a", "f", "A", 1);
    expect(answer(r)).toBe("A:boom");
  });
});
