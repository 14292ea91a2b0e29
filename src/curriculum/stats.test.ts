import { describe, expect, it } from "vitest";
import { emptyStats, fromFields, groupStats, mergeStats, promptRow, toFields } from "./stats.js";
import type { GroupObservation } from "./stats.js";
import { PromptTable } from "./table.js";

const th = { success: 1, components: { acc: 1 } };
const obs = (rewards: Array<number | null>, step = 0, acc = rewards): GroupObservation => ({
  key: "p",
  group: "g",
  step,
  rewards,
  components: { acc },
});

describe("per-prompt statistics", () => {
  it("one group: counts, Welford mean and m2, component successes, flat", () => {
    const s = groupStats(obs([1, 0, 1, null], 3), th);
    expect(s).toMatchObject({ attempts: 4, successes: 2, scored: 3, lastStep: 3, groups: 1, flat: 0 });
    expect(s.mean).toBeCloseTo(2 / 3, 15);
    expect(s.m2).toBeCloseTo(2 / 3, 15); // 2·(1/3)² + (2/3)²
    expect(s.components).toEqual({ acc: 2 });
    expect(s.ewSuccesses).toBe(2);
    expect(s.ewAttempts).toBe(4);
    expect(groupStats(obs([0.5, 0.5]), th).flat).toBe(1);
    expect(groupStats(obs([0.5]), th).flat).toBe(0); // a singleton is not a flat group
  });

  it("merging: counts add, Chan's m2, EW counts decayed to the later step", () => {
    const a = groupStats(obs([1, 1], 0), th);
    const b = groupStats(obs([0, 0], 2), th);
    const m = mergeStats(a, b, 0.5);
    expect(m).toMatchObject({ attempts: 4, successes: 2, scored: 4, mean: 0.5, m2: 1, lastStep: 2, flat: 2 });
    expect(m.ewSuccesses).toBe(0.5); // 2 · 0.5²
    expect(m.ewAttempts).toBe(2.5); // 2 · 0.5² + 2
    const row = promptRow("p", m, { a: 1, b: 1 });
    expect(row.pass_rate).toBe(0.5);
    expect(row.ew_pass_rate).toBe(0.2);
    expect(row.variance).toBe(0.25);
    expect(mergeStats(b, a, 0.5)).toEqual(m); // order does not matter
  });

  it("merging is associative and the store's fields give the same statistics back", () => {
    const gs = [obs([1, 0, 0.5], 1), obs([0.25, 0.75], 4), obs([1, 1, 0], 2)].map((g) => groupStats(g, th));
    const left = mergeStats(mergeStats(gs[0]!, gs[1]!, 0.1), gs[2]!, 0.1);
    const right = mergeStats(gs[0]!, mergeStats(gs[1]!, gs[2]!, 0.1), 0.1);
    for (const k of ["mean", "m2", "ewSuccesses", "ewAttempts"] as const) expect(left[k]).toBeCloseTo(right[k], 12);
    const f = toFields(left);
    const back = fromFields({ ...f.add, ...f.decayed, last: left.lastStep });
    for (const k of ["attempts", "successes", "scored", "mean", "m2", "lastStep", "ewSuccesses"] as const)
      expect(back[k]).toBeCloseTo(left[k], 12);
    expect(back.components).toEqual(left.components);
  });

  it("the row: raw pass rate, Beta posterior mean and variance", () => {
    const s = { ...emptyStats(), attempts: 4, successes: 1 };
    const r = promptRow("x", s, { a: 1, b: 1 });
    expect(r.pass_rate).toBe(0.25);
    expect(r.posterior_mean).toBeCloseTo(1 / 3, 15); // (1 + 1) / (2 + 4)
    expect(r.posterior_variance).toBeCloseTo(8 / 252, 15); // 2·4 / (6²·7)
    expect(r.mean).toBeNull();
  });
});

describe("PromptTable", () => {
  it("keeps at most maxPrompts, forgetting the least recently seen", () => {
    const t = new PromptTable(0.1, 2);
    const s = groupStats(obs([1]), th);
    t.add("a", s);
    t.add("b", s);
    t.add("a", s); // a is now the most recent
    t.add("c", s); // b goes
    expect(t.entries().map(([k]) => k)).toEqual(["a", "c"]);
    expect(t.get("a")!.attempts).toBe(2);
  });

  it("snapshot → restore gives the same table; a malformed or foreign state is an error naming the field", () => {
    const t = new PromptTable(0.1, 10);
    t.add("a", groupStats(obs([1, 0]), th));
    const u = new PromptTable(0.1, 10);
    u.restore(JSON.parse(JSON.stringify(t.snapshot())));
    expect(u.entries()).toEqual(t.entries());
    const bad = t.snapshot() as unknown as { prompts: Array<Record<string, unknown>> };
    bad.prompts[0]!.attempts = "4";
    expect(() => new PromptTable(0.1, 10).restore(bad)).toThrow("curriculum.prompts[0].attempts: expected a number");
    expect(() => new PromptTable(0.1, 10).restore({ version: 2 })).toThrow("not a rewardkit curriculum state");
    expect(() => new PromptTable(0.2, 10).restore(t.snapshot())).toThrow("curriculum.alpha");
  });
});
