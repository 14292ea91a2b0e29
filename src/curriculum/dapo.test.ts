import { describe, expect, it } from "vitest";
import { dapoFilter } from "./dapo.js";
import type { GroupObservation } from "./stats.js";

const g = (group: string, rewards: Array<number | null>, acc = rewards): GroupObservation => ({
  key: group,
  group,
  step: 0,
  rewards,
  components: { acc },
});

describe("filter: dapo", () => {
  const groups = [g("a", [1, 0]), g("b", [1, 1]), g("c", [0.5]), g("d", [null, null]), g("e", [0, 0, 0])];

  it("drops groups of two or more equal values (a singleton is kept, as verl does) and counts what to resample", () => {
    const { keep, report } = dapoFilter(groups, { type: "dapo" });
    expect(keep).toEqual([true, false, true, false, false]);
    // batch of 5 prompts, 2 kept: 3 missing; keep rate 2/5 → sample ⌈3 / 0.4⌉ = 8
    expect(report).toEqual({
      groups: 5,
      kept: 2,
      dropped: 3,
      batch_size: 5,
      need: 3,
      sample: 8,
      metric: null,
      dropped_groups: ["b", "d", "e"],
    });
  });

  it("judges a named component; batchSize sets the target; nothing kept → sample null", () => {
    const byAcc = dapoFilter([g("a", [1, 0.9], [1, 1]), g("b", [1, 0], [1, 0])], {
      type: "dapo",
      component: "acc",
      batchSize: 1,
    });
    expect(byAcc.keep).toEqual([false, true]);
    expect(byAcc.report).toMatchObject({ need: 0, sample: 0, metric: "acc" });
    expect(dapoFilter([g("a", [1, 1])], { type: "dapo" }).report).toMatchObject({ need: 1, sample: null });
  });
});
