import type { ReplayOptions } from "./options.js";

/** One rollout of a buffered group. */
export interface ReplayRollout {
  id: string;
  reward: number | null;
  advantage: number | null;
  completion?: unknown;
}

/** A buffered group (snake_case: it goes out as JSON). */
export interface ReplayGroup {
  group: string;
  prompt_id: string;
  step: number;
  /** σ · Σ|A|: the group's reward std (n − 1) times the sum of its absolute advantages (TRL's buffer score). */
  score: number;
  prompt?: unknown;
  rollouts: ReplayRollout[];
}

/** Unbiased std (n − 1) of the non-null values; 0 with fewer than two. */
function std1(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) * (b - m), 0) / (xs.length - 1));
}

/**
 * A group's replay score and whether it carries signal: advantages (non-null) not all equal. Score =
 * std_{n−1}(rewards) · Σ|A_i|, TRL's `(group_advantages.abs() * group_std_rewards).sum(-1)`.
 * Example: rewards [1, 0], advantages [0.7071, −0.7071] → std 0.7071, score 0.7071 · 1.4142 = 1.
 */
export function replayScore(rollouts: readonly ReplayRollout[]): { signal: boolean; score: number } {
  const adv = rollouts.map((r) => r.advantage).filter((a): a is number => a !== null && !Number.isNaN(a));
  const rewards = rollouts.map((r) => r.reward).filter((r): r is number => r !== null && !Number.isNaN(r));
  const signal = adv.length >= 2 && Math.min(...adv) !== Math.max(...adv);
  return { signal, score: std1(rewards) * adv.reduce((a, b) => a + Math.abs(b), 0) };
}

/**
 * The replay buffer of `replay: {size: K, keep}`: groups that still carry signal (non-zero advantage variance),
 * handed back on request to refill a batch whose groups were flat.
 * - `keep: recent`: the K most recent groups with signal (a ring: the oldest goes first).
 * - `keep: score`: the K groups with the highest {@link replayScore}, TRL's `ReplayBuffer` (a min-heap: a group
 *   enters a full buffer only when its score is strictly above the lowest, which it replaces; among equal lowest
 *   scores the smallest group id goes, as heapq's tuple order does with string data).
 * TRL then samples groups at random with probability ∝ score; {@link take} hands back the best first (newest first
 * for `recent`), deterministically: draw from them on the trainer's side (docs/curriculum.md).
 */
export class ReplayBuffer {
  private groups: ReplayGroup[] = [];

  constructor(readonly options: ReplayOptions) {}

  get size(): number {
    return this.groups.length;
  }

  /** Offers a scored group. @returns whether it entered the buffer. */
  offer(g: Omit<ReplayGroup, "score">): boolean {
    const { signal, score } = replayScore(g.rollouts);
    if (!signal) return false;
    const entry: ReplayGroup = { ...g, score };
    const K = this.options.size;
    if (this.options.keep === "recent") {
      this.groups.push(entry);
      if (this.groups.length > K) this.groups.splice(0, this.groups.length - K);
      return true;
    }
    if (this.groups.length < K) {
      this.groups.push(entry);
      return true;
    }
    let low = 0;
    for (let i = 1; i < this.groups.length; i++) {
      const a = this.groups[i]!;
      const b = this.groups[low]!;
      if (a.score < b.score || (a.score === b.score && a.group < b.group)) low = i;
    }
    if (!(score > this.groups[low]!.score)) return false;
    this.groups[low] = entry;
    return true;
  }

  /** Up to `n` groups (default all): highest score first (`score`), newest first (`recent`). */
  take(n = this.groups.length): ReplayGroup[] {
    const order =
      this.options.keep === "recent"
        ? [...this.groups].reverse()
        : [...this.groups].sort((a, b) => b.score - a.score || (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
    return order.slice(0, Math.max(0, n));
  }

  /** Buffered groups in insertion order, for the state file. */
  snapshot(): ReplayGroup[] {
    return this.groups.map((g) => ({ ...g }));
  }

  /** Loads groups saved by {@link snapshot} (the state was validated by the caller). */
  restore(groups: readonly ReplayGroup[]): void {
    this.groups = groups.slice(-this.options.size).map((g) => ({ ...g }));
  }
}
