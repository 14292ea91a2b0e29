import type { ComponentResult } from "../core/types.js";
import { buildGroupIndex, segmentStats } from "../advantage/groups.js";
import { RunningStats, round6 } from "./stats.js";
import type { LabelAgreement } from "./agreement.js";
import type { AdvantageDiagnostics } from "./advantages.js";
import { ConcentrationCollector } from "./concentration.js";
import type { ComponentConcentration } from "./concentration.js";
import type { CallUsage } from "../client/types.js";
import { HackingCollector } from "./hacking.js";
import type { HackingDiagnostics } from "./hacking.js";
import type { DapoReport } from "../curriculum/dapo.js";

/** Per-component statistics in a summary. */
export interface ComponentSummary {
  type: string;
  weight: number;
  /** Mean score over scorable rollouts (null when none). */
  mean: number | null;
  /** Share of all rollouts whose score ≥ passThreshold. */
  passRate: number;
  /** Share of all rollouts that were unscorable. */
  unscorableRate: number;
  /** Count of each reason code (ok and unscorable). */
  reasons: Record<string, number>;
}

/** The run summary written by `--summary` and printed as a table. */
export interface Summary {
  spec: { name: string; hash: string };
  /** Rollouts scored. */
  count: number;
  /** Input lines skipped as malformed. */
  malformed: number;
  /** Problems with the run as a whole (e.g. a `--map` source found in no record). */
  warnings?: string[];
  /**
   * `filter: dapo` over the run's groups (curriculum/dapo.ts `DapoReport`): groups kept and dropped, and the
   * prompts the trainer must still sample (`need`, `sample`) to fill a batch of `batch_size`.
   */
  filter?: DapoReport;
  reward: { mean: number | null; std: number | null; min: number | null; max: number | null; nullCount: number };
  components: Record<string, ComponentSummary>;
  groups: {
    count: number;
    /** Groups with one non-null reward (advantage 0 by rule). */
    singletons: number;
    /** Share of groups with ≥ 2 non-null rewards whose rewards are all equal (no learning signal under GRPO). */
    zeroVarianceFraction: number | null;
  };
  /** The estimator, how many advantages are null, and the run's advantage diagnostics (ESS, zero share, collapse, correlations). */
  advantage: { estimator: string; nullCount: number; diagnostics?: AdvantageDiagnostics };
  label?: LabelAgreement;
  /**
   * pass^k (tau-bench; Yao et al. 2024): mean over groups of C(c, k) / C(n, k), the chance that k rollouts drawn from
   * a group all pass, for k = 1 … the largest group size (groups smaller than k are left out of that k). A rollout
   * passes when every counting component (weight ≠ 0; all components if none counts) passes its threshold.
   */
  passHatK?: Record<string, number>;
  /** Posterior-concentration check per `likelihood` component (RLCPR); absent without one. */
  concentration?: Record<string, ComponentConcentration>;
  /** Model-call accounting per judge / reward-model component (calls, retries, cache hits, tokens, cost); absent without one. */
  judges?: Record<string, CallUsage>;
  /** Reward-hacking diagnostics: reward–length correlation, component dominance, and both per step (docs/probe.md). */
  hacking?: HackingDiagnostics;
  elapsedSeconds: number;
  rolloutsPerSecond: number;
}

/** The summary's `reward` block: mean, std, min and max of the non-null rewards (6 decimals; null when none). */
export function rewardStats(r: RunningStats, nullCount: number): Summary["reward"] {
  return {
    mean: r.n > 0 ? round6(r.mean) : null,
    std: r.n > 0 ? round6(r.std) : null,
    min: r.n > 0 ? round6(r.min) : null,
    max: r.n > 0 ? round6(r.max) : null,
    nullCount,
  };
}

/** What a summary reads of a compiled spec (a `CompiledSpec` is one). */
export interface SummarySpec {
  name: string;
  hash: string;
  components: ReadonlyArray<{
    name: string;
    type: string;
    weight: number;
    passThreshold: number;
    options: Record<string, unknown>;
  }>;
  advantage: { estimator: { name: string } };
}

/** Accumulates a summary while rollouts stream by; only counters and running moments are kept. */
export class SummaryBuilder {
  private count = 0;
  private readonly reward = new RunningStats();
  private nullRewards = 0;
  private readonly comp: Array<{ stats: RunningStats; pass: number; unscorable: number; reasons: Map<string, number> }>;
  private readonly concentration: ConcentrationCollector;
  private readonly passed: boolean[] = [];
  private readonly hacking: HackingCollector;

  constructor(private readonly spec: SummarySpec) {
    this.comp = spec.components.map(() => ({ stats: new RunningStats(), pass: 0, unscorable: 0, reasons: new Map() }));
    this.concentration = new ConcentrationCollector(spec);
    this.hacking = new HackingCollector(spec.components.map((c) => c.name));
  }

  /**
   * Adds one scored rollout.
   * @param thresholds each component's passThreshold at the rollout's step when some are scheduled (else the
   *   spec's fixed values): a pass is judged by the threshold in force for that rollout.
   * @param meta the rollout's length (tokens: `diagnosticLength` in hacking.ts) and step, for the hacking diagnostics.
   */
  add(
    results: readonly ComponentResult[],
    reward: number | null,
    thresholds?: readonly number[],
    meta?: { length: number; step: number },
  ): void {
    this.count++;
    if (meta) this.hacking.add(results, reward, meta.length, meta.step);
    if (reward === null) this.nullRewards++;
    else this.reward.push(reward);
    const counting = this.spec.components.some((c) => c.weight !== 0);
    this.passed.push(
      results.every(
        (r, i) =>
          (counting && this.spec.components[i]!.weight === 0) ||
          (r.score !== null && r.score >= (thresholds ? thresholds[i]! : this.spec.components[i]!.passThreshold)),
      ),
    );
    results.forEach((r, i) => {
      const c = this.comp[i]!;
      if (r.score !== null) {
        c.stats.push(r.score);
        if (r.score >= (thresholds ? thresholds[i]! : this.spec.components[i]!.passThreshold)) c.pass++;
      } else c.unscorable++;
      if (r.reason) c.reasons.set(r.reason, (c.reasons.get(r.reason) ?? 0) + 1);
    });
    if (this.concentration.active) this.concentration.add(results);
  }

  /**
   * Finishes the summary.
   * @param rewards reward per rollout in batch order (NaN = null), shape [n].
   * @param groupIds dense group id per rollout, shape [n].
   * @param advantages advantage per rollout (NaN = null), shape [n].
   */
  finish(args: {
    rewards: Float64Array;
    groupIds: Int32Array;
    advantages: Float64Array;
    malformed: number;
    elapsedSeconds: number;
    label?: LabelAgreement;
    advantageDiagnostics?: AdvantageDiagnostics;
    warnings?: string[];
    judges?: Record<string, CallUsage>;
  }): Summary {
    const gi = buildGroupIndex(args.groupIds);
    let singletons = 0;
    let multi = 0;
    let zeroVar = 0;
    for (let g = 0; g < gi.count; g++) {
      const { n, m2 } = segmentStats(args.rewards, gi.order, gi.offsets[g]!, gi.offsets[g + 1]!);
      if (n === 1) singletons++;
      else if (n >= 2) {
        multi++;
        if (m2 === 0) zeroVar++;
      }
    }
    const components: Record<string, ComponentSummary> = {};
    this.spec.components.forEach((c, i) => {
      const s = this.comp[i]!;
      components[c.name] = {
        type: c.type,
        weight: c.weight,
        mean: s.stats.n > 0 ? round6(s.stats.mean) : null,
        passRate: this.count > 0 ? round6(s.pass / this.count)! : 0,
        unscorableRate: this.count > 0 ? round6(s.unscorable / this.count)! : 0,
        reasons: Object.fromEntries([...s.reasons.entries()].sort((a, b) => b[1] - a[1])),
      };
    });
    const r = this.reward;
    const summary: Summary = {
      spec: { name: this.spec.name, hash: this.spec.hash },
      count: this.count,
      malformed: args.malformed,
      reward: rewardStats(r, this.nullRewards),
      components,
      groups: { count: gi.count, singletons, zeroVarianceFraction: multi > 0 ? round6(zeroVar / multi) : null },
      advantage: {
        estimator: this.spec.advantage.estimator.name,
        nullCount: args.advantages.reduce((k, a) => k + (Number.isNaN(a) ? 1 : 0), 0),
        ...(args.advantageDiagnostics ? { diagnostics: args.advantageDiagnostics } : {}),
      },
      elapsedSeconds: round6(args.elapsedSeconds)!,
      rolloutsPerSecond: args.elapsedSeconds > 0 ? Math.round(this.count / args.elapsedSeconds) : 0,
    };
    const passHatK = passHatKOf(gi, this.passed);
    if (passHatK) summary.passHatK = passHatK;
    if (args.label) summary.label = args.label;
    if (args.warnings && args.warnings.length > 0) summary.warnings = args.warnings;
    const concentration = this.concentration.finish(args.groupIds);
    if (concentration) summary.concentration = concentration;
    if (args.judges && Object.keys(args.judges).length > 0) summary.judges = args.judges;
    const hacking = this.hacking.finish();
    if (hacking.n > 0) summary.hacking = hacking;
    return summary;
  }
}

function choose(n: number, k: number): number {
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

/** pass^k per k over the groups of `gi`; `undefined` when no group has 2 or more rollouts. */
export function passHatKOf(
  gi: ReturnType<typeof buildGroupIndex>,
  passed: readonly boolean[],
): Record<string, number> | undefined {
  const sizes: Array<{ n: number; c: number }> = [];
  let maxN = 0;
  for (let g = 0; g < gi.count; g++) {
    let n = 0;
    let c = 0;
    for (let j = gi.offsets[g]!; j < gi.offsets[g + 1]!; j++) {
      n++;
      if (passed[gi.order[j]!]) c++;
    }
    sizes.push({ n, c });
    maxN = Math.max(maxN, n);
  }
  if (maxN < 2 || passed.length !== gi.order.length) return undefined;
  const out: Record<string, number> = {};
  for (let k = 1; k <= Math.min(maxN, 16); k++) {
    let sum = 0;
    let m = 0;
    for (const { n, c } of sizes) {
      if (n < k) continue;
      sum += choose(c, k) / choose(n, k);
      m++;
    }
    if (m > 0) out[String(k)] = round6(sum / m)!;
  }
  return out;
}
