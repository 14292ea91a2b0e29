import { computeAdvantages } from "../advantage/compute.js";
import { buildGroupIndex, GroupIds } from "../advantage/groups.js";
import { advantageDiagnostics } from "../diagnostics/advantages.js";
import type { AdvantageDiagnostics } from "../diagnostics/advantages.js";
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
 * Collects, rollout by rollout, what the spec's advantage estimator reads — reward, dense group id, the
 * per-component scores (NaN = unscorable; also used by the run's advantage diagnostics), and when the estimator
 * needs them response lengths and stratum ids — then computes the advantages of the whole batch. Only numbers
 * are kept (O(n · components) memory).
 *
 * Multi-component estimators (`gdpo`, `mo_grpo` …) default, inside a spec, to the components that count in the
 * reward (weight ≠ 0) with the spec's weights, so their advantage decomposes the reward the spec defines; the
 * `advantage:` block's own `components` / `weights` override that.
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
    this.scores = spec.components.map(() => []);
    const key = spec.advantage.options.key;
    this.stratumKey = this.needs.has("strata") ? (typeof key === "string" ? key : "stratum") : undefined;
  }

  /** Adds one scored rollout (in batch order). A missing stratum key puts the rollout in stratum `"null"`. */
  add(rollout: Rollout, results: readonly ComponentResult[], reward: number | null): void {
    this.rewards.push(reward ?? NaN);
    this.groupIds.push(this.groups.idOf(rollout.group));
    results.forEach((r, k) => this.scores[k]!.push(r.score ?? NaN));
    if (this.needs.has("lengths")) this.lengths.push(rolloutLength(rollout));
    if (this.stratumKey !== undefined) this.strata.push(this.strataIds.idOf(String(getPath(rollout, this.stratumKey) ?? null)));
  }

  /** Replaces rollout k's verdicts and reward (the group stage rescored it after {@link add}). */
  set(k: number, results: readonly ComponentResult[], reward: number | null): void {
    this.rewards[k] = reward ?? NaN;
    results.forEach((r, c) => {
      this.scores[c]![k] = r.score ?? NaN;
    });
  }

  /** Number of groups seen. */
  get groupCount(): number {
    return this.groups.size;
  }

  /**
   * Advantages of the batch, shape [n] (NaN where undefined), with the inputs they were computed from. No
   * diagnostics: the server's per-request path needs only this.
   */
  advantages(): { rewards: Float64Array; groupIds: Int32Array; components: { names: string[]; scores: Float64Array[] }; advantages: Float64Array } {
    const rewards = Float64Array.from(this.rewards);
    const groupIds = Int32Array.from(this.groupIds);
    const components = { names: this.spec.components.map((c) => c.name), scores: this.scores.map((s) => Float64Array.from(s)) };
    const extra: Omit<AdvantageInput, "rewards" | "groups"> = { components };
    if (this.needs.has("lengths")) extra.lengths = Float64Array.from(this.lengths);
    if (this.stratumKey !== undefined) extra.strata = Int32Array.from(this.strata);
    const { estimator } = this.spec.advantage;
    let options = this.spec.advantage.options;
    if (this.needs.has("components")) {
      const counting = this.spec.components.filter((c) => c.weight !== 0);
      const weights = options.weights as Record<string, number> | undefined;
      options = {
        ...options,
        components: options.components ?? counting.map((c) => c.name),
        weights: weights && Object.keys(weights).length > 0 ? weights : Object.fromEntries(counting.map((c) => [c.name, c.weight])),
      };
    }
    return { rewards, groupIds, components, advantages: computeAdvantages(estimator, options, rewards, groupIds, extra) };
  }

  /** Advantages of the batch, shape [n] (NaN where undefined), and the run's advantage diagnostics (for summaries). */
  compute(): { rewards: Float64Array; groupIds: Int32Array; advantages: Float64Array; diagnostics: AdvantageDiagnostics } {
    const { rewards, groupIds, components, advantages } = this.advantages();
    // Under `onUnscorable: zero` an unscorable component is a 0 in the reward, so for the diagnostics (advantage
    // collapse compares component vectors) it is a 0 too: (null) and (0) are not two outcomes the reward told apart.
    const seen = this.spec.onUnscorable === "zero" ? { names: components.names, scores: components.scores.map((c) => c.map((x) => (x !== x ? 0 : x))) } : components;
    const diagnostics = advantageDiagnostics({ rewards, groups: buildGroupIndex(groupIds), components: seen }, advantages);
    return { rewards, groupIds, advantages, diagnostics };
  }
}

/**
 * The spec's advantages over the groups present in one in-memory batch (a group split across batches is
 * normalized per batch), shape [n] in input order, NaN where the reward is null.
 * @param scores the scorer's verdicts, one per rollout, in the same order.
 */
export function batchAdvantages(spec: CompiledSpec, rollouts: readonly Rollout[], scores: readonly { results: readonly ComponentResult[]; reward: number | null }[]): Float64Array {
  const batch = new AdvantageBatch(spec);
  rollouts.forEach((r, i) => batch.add(r, scores[i]!.results, scores[i]!.reward));
  return batch.advantages().advantages;
}
