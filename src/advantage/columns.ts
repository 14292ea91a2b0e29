import { GroupIds } from "./groups.js";

/** Reads a component score from `{score}` objects or bare numbers; NaN when absent, null or not finite. */
export function componentScore(v: unknown): number {
  const s = v !== null && typeof v === "object" ? (v as { score?: unknown }).score : v;
  return typeof s === "number" && Number.isFinite(s) ? s : NaN;
}

/**
 * Columns of already-scored rollouts (`group`, `reward`, `components` as `rewardkit score` writes them) for the
 * estimators: rewards and dense group ids, and one score column per component name seen (NaN where a rollout
 * lacks that component or it was unscorable). Used by `rewardkit advantages` and the server's `/v1/advantages`.
 */
export class ScoredColumns {
  readonly rewards: number[] = [];
  readonly groupIds: number[] = [];
  readonly groups = new GroupIds();
  private readonly names = new Map<string, number>();
  private readonly cols: number[][] = [];

  /**
   * Adds one rollout; returns its position in the batch.
   * @param reward a finite number, or null.
   * @param components `{name: {score} | number}`; anything else is ignored.
   */
  add(group: string, reward: number | null, components: unknown): number {
    const k = this.rewards.length;
    this.rewards.push(reward ?? NaN);
    this.groupIds.push(this.groups.idOf(group));
    if (components !== null && typeof components === "object" && !Array.isArray(components)) {
      for (const [name, v] of Object.entries(components)) {
        let j = this.names.get(name);
        if (j === undefined) {
          j = this.names.size;
          this.names.set(name, j);
          this.cols.push([]);
        }
        this.cols[j]![k] = componentScore(v);
      }
    }
    return k;
  }

  get size(): number {
    return this.rewards.length;
  }

  /** Component names and score columns, each shape [n]. */
  components(): { names: string[]; scores: Float64Array[] } {
    const n = this.rewards.length;
    return { names: [...this.names.keys()], scores: this.cols.map((c) => Float64Array.from({ length: n }, (_, i) => c[i] ?? NaN)) };
  }
}

/** A reward as the estimators read it: a finite number or null; `undefined` when it is neither. */
export function readReward(v: unknown): number | null | undefined {
  if (v === null) return null;
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}
