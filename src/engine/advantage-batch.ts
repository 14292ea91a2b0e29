import { computeAdvantages } from "../advantage/compute.js";
import { GroupIds } from "../advantage/groups.js";
import type { AdvantageInput } from "../advantage/types.js";
import { completionText } from "../core/completion.js";
import type { ComponentResult, Rollout } from "../core/types.js";
import { getPath } from "../io/fields.js";
import type { CompiledSpec } from "../spec/types.js";

/**
 * Response length of a rollout for length-aware estimators (`opo`, token whitening): the sampler's
 * `completion_tokens` when present, else the approximation ceil(characters / 4) used by `overlong` too.
 */
export function rolloutLength(rollout: Rollout): number {
  const n = rollout.completion_tokens;
  if (typeof n === "number" && Number.isFinite(n) && n >= 0) return n;
  return Math.ceil(completionText(rollout.completion).length / 4);
}

/**
 * Collects, rollout by rollout, what the spec's advantage estimator reads — reward, dense group id, and when
 * the estimator needs them the per-component scores (NaN = unscorable), response lengths and stratum ids —
 * then computes the advantages of the whole batch. Only numbers are kept (O(n · components) memory).
 */
export class AdvantageBatch {
  readonly rewards: number[] = [];
  readonly groupIds: number[] = [];
  private readonly groups = new GroupIds();
  private readonly scores: number[][];
  private readonly lengths: number[] = [];
  private readonly strata: number[] = [];
  private readonly strataIds = new GroupIds();
  private readonly needs: ReadonlySet<string>;
  private readonly stratumKey: string | undefined;

  constructor(private readonly spec: CompiledSpec) {
    this.needs = new Set(spec.advantage.estimator.needs ?? []);
    this.scores = this.needs.has("components") ? spec.components.map(() => []) : [];
    const key = spec.advantage.options.key;
    this.stratumKey = this.needs.has("strata") ? (typeof key === "string" ? key : "stratum") : undefined;
  }

  /** Adds one scored rollout (in batch order). A missing stratum key puts the rollout in stratum `"null"`. */
  add(rollout: Rollout, results: readonly ComponentResult[], reward: number | null): void {
    this.rewards.push(reward ?? NaN);
    this.groupIds.push(this.groups.idOf(rollout.group));
    if (this.scores.length > 0) results.forEach((r, k) => this.scores[k]!.push(r.score ?? NaN));
    if (this.needs.has("lengths")) this.lengths.push(rolloutLength(rollout));
    if (this.stratumKey !== undefined) this.strata.push(this.strataIds.idOf(String(getPath(rollout, this.stratumKey) ?? null)));
  }

  /** Number of groups seen. */
  get groupCount(): number {
    return this.groups.size;
  }

  /** Advantages of the batch, shape [n], NaN where undefined. */
  compute(): { rewards: Float64Array; groupIds: Int32Array; advantages: Float64Array } {
    const rewards = Float64Array.from(this.rewards);
    const groupIds = Int32Array.from(this.groupIds);
    const extra: Omit<AdvantageInput, "rewards" | "groups"> = {};
    if (this.scores.length > 0) extra.components = { names: this.spec.components.map((c) => c.name), scores: this.scores.map((s) => Float64Array.from(s)) };
    if (this.needs.has("lengths")) extra.lengths = Float64Array.from(this.lengths);
    if (this.stratumKey !== undefined) extra.strata = Int32Array.from(this.strata);
    const { estimator, options } = this.spec.advantage;
    return { rewards, groupIds, advantages: computeAdvantages(estimator, options, rewards, groupIds, extra) };
  }
}
