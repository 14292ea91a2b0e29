import { describe, expect, it } from "vitest";
import { curriculumSection } from "./curriculum.js";

type Chart = {
  title: string;
  config: { data: { labels: string[]; datasets: Array<{ label: string; data: unknown[] }> } };
};

describe("the report's curriculum section", () => {
  it("pass rate per step by starting bucket, zero-variance share per step (hand-computed)", () => {
    const row = (group: string, step: number, reward: number | null, promptId?: string) => ({
      group,
      step,
      reward,
      ...(promptId ? { promptId } : {}),
    });
    const s = curriculumSection({
      rows: [
        row("a0", 0, 1, "A"),
        row("a0", 0, 0, "A"), // A starts at 0.5: medium
        row("a1", 1, 1, "A"),
        row("a1", 1, 1, "A"), // flat
        row("b", 0, 0),
        row("b", 0, 0), // B starts at 0: unsolved; flat
        row("b", 1, 1),
        row("b", 1, 0),
      ],
    })!;
    const [pass, zv] = s.charts as unknown as Chart[];
    expect(pass!.config.data.labels).toEqual(["0", "1"]);
    expect(pass!.config.data.datasets.map((d) => [d.label, d.data])).toEqual([
      ["unsolved at first (p = 0)", [0, 0.5]],
      ["medium (0.5 ≤ p < 1)", [0.5, 1]],
    ]);
    expect(zv!.config.data.datasets[0]!.data).toEqual([0.5, 0.5]);
    expect(curriculumSection({ rows: [row("x", 0, 1)] })).toBeUndefined();
  });
});
