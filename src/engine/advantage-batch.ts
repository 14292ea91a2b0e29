import type { GroupIndex } from "../advantage/groups.js";
import { advantageDiagnostics } from "../diagnostics/advantages.js";
import type { AdvantageDiagnostics } from "../diagnostics/advantages.js";
import type { ComponentResult, Rollout } from "../core/types.js";
import { getPath } from "../io/fields.js";
import type { CompiledSpec } from "../spec/types.js";
import { planFromSpec, rolloutLength, ScoredRows } from "./scored-rows.js";
import type { AdvantagePlan, ScoredRow } from "./scored-rows.js";

export { rolloutLength } from "./scored-rows.js";

/**
 * Each compiled spec's advantage plan, made once: the server builds an {@link AdvantageBatch} per request, and for a
 * one-rollout request resolving the plan again cost more than the estimator.
 */
const plans = new WeakMap<CompiledSpec, { plan: AdvantagePlan; names: string[] }>();

/**
 * The score job's advantage step (`rewardkit score`, `/v1/score`, `scoreBatch`): feeds each scored rollout — reward,
 * group, the per-component scores, its response length and, for `stratified`, its stratum key — into the one
 * scored-rows collector ({@link ScoredRows}) with the spec's plan, then computes the advantages of the whole batch.
 * The same rows through `rewardkit advantages` or `POST /v1/advantages` give the same advantages.
 *
 * Multi-component estimators (`gdpo`, `mo_grpo` …) default, inside a spec, to the components that count in the
 * reward (weight ≠ 0) with the spec's weights; the `advantage:` block's own `components` / `weights` override that.
 * Under `onUnscorable: zero` an unscorable component is the 0 the reward counted it as.
 */
export class AdvantageBatch {
  private readonly rows: ScoredRows;

  constructor(spec: CompiledSpec) {
    let plan = plans.get(spec);
    if (plan === undefined)
      plans.set(spec, (plan = { plan: planFromSpec(spec), names: spec.components.map((c) => c.name) }));
    this.rows = new ScoredRows(plan.plan, plan.names);
  }

  /**
   * Adds one scored rollout (in batch order). A rollout without the stratum key is in its group's "missing" stratum.
   * @returns the row as the estimator reads it (group, reward, component scores, response length, stratum value).
   */
  add(rollout: Rollout, results: readonly ComponentResult[], reward: number | null): ScoredRow {
    const key = this.rows.plan.stratumKey;
    const row: ScoredRow = {
      group: rollout.group,
      reward,
      components: results.map((r) => r.score),
      length: rolloutLength(rollout),
      ...(key === undefined ? {} : { stratum: getPath(rollout, key) }),
    };
    this.rows.add(row);
    return row;
  }

  /** Adds one row as {@link add} builds it (a replayed trace: `engine/merge.ts`). */
  addRow(row: ScoredRow): void {
    this.rows.add(row);
  }

  /** Replaces rollout k's verdicts and reward (the group stage rescored it after {@link add}). */
  set(k: number, results: readonly ComponentResult[], reward: number | null): void {
    this.rows.set(
      k,
      reward,
      results.map((r) => r.score),
    );
  }

  /** Rollouts added. */
  get size(): number {
    return this.rows.size;
  }

  /** Number of groups seen. */
  get groupCount(): number {
    return this.rows.groupCount;
  }

  /**
   * Advantages of the batch, shape [n] (NaN where undefined), with the inputs they were computed from. No
   * diagnostics: the server's per-request path needs only this.
   * @throws Error from the estimator (e.g. an input it needs is missing).
   */
  advantages(): {
    rewards: Float64Array;
    groupIds: Int32Array;
    components: { names: string[]; scores: Float64Array[] };
    advantages: Float64Array;
    warnings: string[];
  } {
    const r = this.rows.compute();
    return {
      rewards: r.input.rewards,
      groupIds: groupIdsOf(r.input.groups),
      components: r.input.components!,
      advantages: r.advantages,
      warnings: r.warnings,
    };
  }

  /** Advantages of the batch, shape [n] (NaN where undefined), and the run's advantage diagnostics (for summaries). */
  compute(): {
    rewards: Float64Array;
    groupIds: Int32Array;
    advantages: Float64Array;
    diagnostics: AdvantageDiagnostics;
    warnings: string[];
  } {
    const r = this.rows.compute();
    const groupIds = groupIdsOf(r.input.groups);
    // components are already as the reward saw them (unscorable = 0 under `onUnscorable: zero`)
    const diagnostics = advantageDiagnostics(r.input, r.advantages);
    return { rewards: r.input.rewards, groupIds, advantages: r.advantages, diagnostics, warnings: r.warnings };
  }
}

/** Dense group id per rollout, shape [n], from a group index. */
function groupIdsOf(groups: GroupIndex): Int32Array {
  const ids = new Int32Array(groups.order.length);
  for (let g = 0; g < groups.count; g++)
    for (let k = groups.offsets[g]!; k < groups.offsets[g + 1]!; k++) ids[groups.order[k]!] = g;
  return ids;
}

/**
 * The spec's advantages over the groups present in one in-memory batch (a group split across batches is
 * normalized per batch), shape [n] in input order, NaN where the reward is null.
 * @param scores the scorer's verdicts, one per rollout, in the same order.
 */
export function batchAdvantages(
  spec: CompiledSpec,
  rollouts: readonly Rollout[],
  scores: readonly { results: readonly ComponentResult[]; reward: number | null }[],
): Float64Array {
  const batch = new AdvantageBatch(spec);
  rollouts.forEach((r, i) => batch.add(r, scores[i]!.results, scores[i]!.reward));
  return batch.advantages().advantages;
}
