import { describe, expect, it } from "vitest";
import { ReplayBuffer, replayScore } from "./replay.js";

const grp = (group: string, rewards: number[], adv: number[]) => ({
  group,
  prompt_id: group,
  step: 0,
  rollouts: rewards.map((r, i) => ({ id: `${group}-${i}`, reward: r, advantage: adv[i]! })),
});

describe("replay", () => {
  it("score = std(n−1) · Σ|A|; signal = advantages not all equal", () => {
    const s = replayScore(grp("a", [1, 0], [Math.SQRT1_2, -Math.SQRT1_2]).rollouts);
    expect(s.signal).toBe(true);
    expect(s.score).toBeCloseTo(1, 12);
    expect(replayScore(grp("b", [1, 1], [0, 0]).rollouts)).toEqual({ signal: false, score: 0 });
  });

  it("keep: recent holds the K most recent groups with signal, newest first", () => {
    const b = new ReplayBuffer({ size: 2, keep: "recent" });
    expect(b.offer(grp("a", [1, 0], [1, -1]))).toBe(true);
    expect(b.offer(grp("flat", [1, 1], [0, 0]))).toBe(false);
    b.offer(grp("b", [1, 0], [1, -1]));
    b.offer(grp("c", [1, 0], [1, -1]));
    expect(b.take().map((x) => x.group)).toEqual(["c", "b"]);
    expect(b.take(1).map((x) => x.group)).toEqual(["c"]);
  });

  it("keep: score is TRL's min-heap: enters only above the lowest score, the lowest (then smallest id) goes", () => {
    const b = new ReplayBuffer({ size: 2, keep: "score" });
    b.offer(grp("a", [1, 0], [1, -1])); // std √½ · 2 = 1.414
    b.offer(grp("b", [2, 0], [1, -1])); // std √2 · 2 = 2.83
    expect(b.offer(grp("c", [1, 0], [1, -1]))).toBe(false); // equal to the lowest: not strictly above
    expect(b.offer(grp("d", [3, 0], [1, -1]))).toBe(true); // replaces a
    expect(b.take().map((x) => x.group)).toEqual(["d", "b"]);
    const r = new ReplayBuffer({ size: 2, keep: "score" });
    r.restore(b.snapshot());
    expect(r.take()).toEqual(b.take());
  });
});
