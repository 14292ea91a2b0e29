import { buildGroupIndex, segmentStats, StringIds } from "../advantage/groups.js";
import type { RoutedSummary } from "../diagnostics/routes.js";
import { RunningStats, round6 } from "../diagnostics/stats.js";
import { passHatKOf, rewardStats, SummaryBuilder } from "../diagnostics/summary.js";
import type { Summary } from "../diagnostics/summary.js";
import type { RoutedSpec } from "../spec/routes.js";
import type { CompiledSpec } from "../spec/types.js";
import { nothingScored } from "./run-tally.js";
import type { Shard } from "./shard.js";

/**
 * The overall summary of a routed run, built from its rollouts in input order and the routes' own summaries. One
 * class for `engine/routes-file.ts` (while it writes the merged output) and `engine/merge.ts` (replaying shards), so
 * both give the same figures.
 */
export class RoutedTally {
  private readonly rewards: number[] = [];
  private readonly advantages: number[] = [];
  private readonly gids: number[] = [];
  private readonly ids = new StringIds();
  private readonly reward = new RunningStats();
  private nullRewards = 0;
  private readonly passed: boolean[] = [];
  private readonly routeNulls: number[];
  private readonly passRules: ((components: unknown) => boolean)[];

  /** @param keys the routed spec's route keys, in its order (route index k = position here). */
  constructor(
    private readonly routed: RoutedSpec,
    private readonly keys: readonly string[],
  ) {
    this.routeNulls = keys.map(() => 0);
    this.passRules = keys.map((key) => passRule(routed.routes.get(key)!));
  }

  /** Does a scored line's `components` pass by route k's rule (pass^k)? */
  passes(k: number, components: unknown): boolean {
    return this.passRules[k]!(components);
  }

  /** Adds one routed rollout (input order): its route index, group, reward, advantage written (null: none), pass. */
  add(k: number, group: string, reward: number | null, advantage: number | null, passed: boolean): void {
    if (reward === null) this.nullRewards++;
    else this.reward.push(reward);
    this.rewards.push(reward ?? NaN);
    this.advantages.push(advantage ?? NaN);
    if (advantage === null) this.routeNulls[k]!++;
    this.gids.push(this.ids.idOf(group));
    this.passed.push(passed);
  }

  /**
   * The routed summary: overall figures (components keyed `<route>/<component>`, pass^k over every group, a rollout
   * passing by its own route's rule) and `routes.<key>`, each route's summary (their `advantage` replaced by what
   * was written when the routed spec has its own batch-wide estimator).
   * @param summaries route key → that route's summary; modified in place (advantage, see above).
   * @param warnings the split-group warning and the batch-wide estimator's, in that order.
   */
  finish(a: {
    summaries: Record<string, Summary>;
    malformed: number;
    unrouted: { count: number; values: Record<string, number> };
    warnings: string[];
    elapsedSeconds: number;
    inputName: string;
    /** The shard this run scored, if any. */
    shard?: Shard;
  }): RoutedSummary {
    const { routed, keys } = this;
    const { summaries } = a;
    const rewardArr = Float64Array.from(this.rewards);
    const gi = buildGroupIndex(Int32Array.from(this.gids));
    let singletons = 0;
    let multi = 0;
    let zeroVar = 0;
    for (let g = 0; g < gi.count; g++) {
      const { n, m2 } = segmentStats(rewardArr, gi.order, gi.offsets[g]!, gi.offsets[g + 1]!);
      if (n === 1) singletons++;
      else if (n >= 2) {
        multi++;
        if (m2 === 0) zeroVar++;
      }
    }
    // batch-wide advantages: each route's summary tells what was written, not its own block's per-route figures
    if (routed.advantage)
      keys.forEach(
        (key, k) =>
          (summaries[key]!.advantage = {
            estimator: `${routed.advantage!.estimator.name} (batch-wide)`,
            nullCount: this.routeNulls[k]!,
          }),
      );
    const components: Summary["components"] = {};
    const warnings: string[] = [];
    const judges: NonNullable<Summary["judges"]> = {};
    for (const key of keys) {
      const s = summaries[key]!;
      for (const [name, c] of Object.entries(s.components)) components[`${key}/${name}`] = c;
      for (const w of s.warnings ?? []) if (!/the input has no records/.test(w)) warnings.push(`route ${key}: ${w}`);
      for (const [name, u] of Object.entries(s.judges ?? {})) judges[`${key}/${name}`] = u;
    }
    warnings.push(...a.warnings);
    const { unrouted } = a;
    if (unrouted.count > 0) {
      const vs = Object.entries(unrouted.values).map(([v, n]) => `${JSON.stringify(v)} (${n})`);
      warnings.push(
        `${unrouted.count} rollouts had no route (${routed.by}: ${vs.slice(0, 8).join(", ")}${vs.length > 8 ? " …" : ""}) and were skipped; add a route or a default route`,
      );
    }
    const passHatK = passHatKOf(gi, this.passed);
    const elapsed = a.elapsedSeconds;
    const count = this.rewards.length;
    const estimators = [
      ...new Set(keys.filter((k) => summaries[k]!.count > 0).map((k) => summaries[k]!.advantage.estimator)),
    ];
    const reward = this.reward;
    const summary: RoutedSummary = {
      spec: { name: routed.name, hash: routed.hash },
      count,
      malformed: a.malformed,
      ...(warnings.length > 0 ? { warnings } : {}),
      reward: rewardStats(reward, this.nullRewards),
      components,
      groups: { count: gi.count, singletons, zeroVarianceFraction: multi > 0 ? round6(zeroVar / multi) : null },
      advantage: {
        estimator: routed.advantage
          ? `${routed.advantage.estimator.name} (batch-wide, over every route)`
          : `per route: ${estimators.join(", ") || "none"}`,
        nullCount: this.advantages.reduce((m, x) => m + (Number.isNaN(x) ? 1 : 0), 0),
      },
      ...(passHatK ? { passHatK } : {}),
      ...(Object.keys(judges).length > 0 ? { judges } : {}),
      elapsedSeconds: round6(elapsed)!,
      rolloutsPerSecond: elapsed > 0 ? Math.round(count / elapsed) : 0,
      routes: summaries,
      unrouted,
    };
    if (count === 0 && a.malformed === 0) summary.warnings = [...warnings, nothingScored(a.inputName, a.shard)];
    return summary;
  }
}

/** An empty summary of a route no rollout reached (count 0), so every route is listed. */
export function emptySummary(spec: CompiledSpec): Summary {
  const none = new Float64Array(0);
  return new SummaryBuilder(spec).finish({
    rewards: none,
    groupIds: new Int32Array(0),
    advantages: none,
    malformed: 0,
    elapsedSeconds: 0,
  });
}

/**
 * The pass rule of the summaries' pass^k for one route's scored lines: every component that counts (weight ≠ 0; all
 * when none counts) scores at least its passThreshold (the spec's values: a scheduled threshold at its step-0 value).
 */
function passRule(spec: CompiledSpec): (components: unknown) => boolean {
  const counting = spec.components.some((c) => c.weight !== 0);
  const rule = spec.components
    .filter((c) => !counting || c.weight !== 0)
    .map((c) => ({ name: c.name, threshold: c.passThreshold }));
  return (components) => {
    const rec = (components ?? {}) as Record<string, { score?: unknown } | undefined>;
    return rule.every(({ name, threshold }) => {
      const s = rec[name]?.score;
      return typeof s === "number" && s >= threshold;
    });
  };
}
