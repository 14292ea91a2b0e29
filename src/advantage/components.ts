import { z } from "zod";
import { requireInputs } from "./common.js";
import type { GroupStats } from "./group-stats.js";
import type { AdvantageInput } from "./types.js";

/** Component options shared by the multi-component estimators. */
export const componentOptions = {
  /** Components to use, in order (default: every component in the input). */
  components: z.array(z.string().min(1)).optional(),
  /** Weight per component name (default 1 each). */
  weights: z.record(z.string(), z.number().finite()).default({}),
};

/** The selected component columns of a multi-component estimator, ready for per-group statistics. */
export interface ComponentColumns {
  names: string[];
  /**
   * Score columns, shape [n] each: NaN where the component is unscorable and wherever the rollout's reward is null
   * (such a rollout enters no statistic). The input's own arrays when no reward is null (no copy).
   */
  scores: Float64Array[];
  weights: number[];
  /** Rollouts with a non-null reward. */
  scored: number;
}

/**
 * Picks components (all, or the listed `names` in that order) and their weights (default 1) and masks them by the
 * null rewards.
 * @throws Error naming the known components on an unknown name in `names` or `weights`, or when the input has no components.
 */
export function componentColumns(
  estimator: string,
  input: AdvantageInput,
  names: readonly string[] | undefined,
  weights: Record<string, number>,
): ComponentColumns {
  requireInputs(estimator, input, ["components"]);
  const c = input.components!;
  const known = new Map(c.names.map((n, k) => [n, k]));
  for (const n of [...(names ?? []), ...Object.keys(weights)]) {
    if (!known.has(n)) throw new Error(`unknown component "${n}"; known: ${c.names.join(", ") || "none"}`);
  }
  const picked = names && names.length > 0 ? [...names] : [...c.names];
  let scores = picked.map((n) => c.scores[known.get(n)!]!);
  const { rewards } = input;
  const n = rewards.length;
  let scored = 0;
  for (let i = 0; i < n; i++) if (rewards[i] === rewards[i]) scored++;
  if (scored < n) {
    scores = scores.map((s) => {
      const out = s.slice();
      for (let i = 0; i < n; i++) if (rewards[i] !== rewards[i]) out[i] = NaN;
      return out;
    });
  }
  return { names: picked, scores, weights: picked.map((p) => weights[p] ?? 1), scored };
}

/** Non-null scores per component, summed over the groups of its statistics. */
export function nonNullCounts(stats: readonly GroupStats[]): number[] {
  return stats.map((st) => {
    let total = 0;
    for (let g = 0; g < st.n.length; g++) total += st.n[g]!;
    return total;
  });
}

/**
 * 1 for a rollout whose reward is a number but whose every selected component is unscorable: it carries no
 * signal, so it takes no part in batch statistics and gets advantage 0 (TRL's `unscorable_mask`,
 * `grpo_trainer.py`). Undefined when there is no such rollout — decided first from `counts` (non-null scores per
 * component, from the group statistics): no row scan when nothing is unscorable.
 */
export function unscorableRows(
  input: AdvantageInput,
  cols: ComponentColumns,
  counts: readonly number[],
): Uint8Array | undefined {
  if (counts.every((c) => c >= cols.scored)) return undefined;
  const { rewards } = input;
  const skip = new Uint8Array(rewards.length);
  let any = false;
  for (let i = 0; i < rewards.length; i++) {
    if (rewards[i] !== rewards[i]) continue;
    let all = true;
    for (const s of cols.scores) if (s[i] === s[i]) all = false;
    if (all) {
      skip[i] = 1;
      any = true;
    }
  }
  return any ? skip : undefined;
}

/**
 * The starting advantages of a multi-component estimator, shape [n]: NaN where the reward is null (those rollouts
 * get no advantage), 0 elsewhere (each component then adds its term). `scored`: the count of non-null rewards
 * when known (equal to n: no scan). `buffer` (length n): written and returned instead of a fresh array (`out=`).
 */
export function zerosUnlessNull(rewards: Float64Array, scored?: number, buffer?: Float64Array): Float64Array {
  const out =
    buffer !== undefined && buffer.length === rewards.length ? buffer.fill(0) : new Float64Array(rewards.length);
  if (scored === rewards.length) return out; // no null reward (counted by componentColumns)
  for (let i = 0; i < rewards.length; i++) if (rewards[i] !== rewards[i]) out[i] = NaN;
  return out;
}
