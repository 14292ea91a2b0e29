import { nullable } from "../advantage/compute.js";
import type { CallUsage } from "../client/types.js";
import { passes } from "../compose/reward.js";
import type { ComponentResult, Rollout } from "../core/types.js";
import type { ReasonCode } from "../core/reasons.js";
import { UserError } from "../core/errors.js";
import { AgreementBuilder, labelBool } from "../diagnostics/agreement.js";
import type { AdvantageDiagnostics } from "../diagnostics/advantages.js";
import { SummaryBuilder } from "../diagnostics/summary.js";
import type { Summary } from "../diagnostics/summary.js";
import { getPath } from "../io/fields.js";
import type { CompiledSpec } from "../spec/types.js";
import { AdvantageBatch } from "./advantage-batch.js";
import type { Shard } from "./shard.js";
import type { RunTrace, TracedResult, TracedRollout } from "./trace.js";

/** The `details` keys the summary builders read (concentration: `diagnostics/concentration.ts`). */
const SUMMARY_DETAILS = ["traceLength", "unpenalizedScore", "filteredScore"] as const;

/**
 * Everything a run's summary is built from, in one place: the summary, label-agreement and advantage collectors, the
 * malformed / record / `--map` counters, and the warnings. `engine/score-file.ts` feeds it while it scores; with a
 * trace it also keeps, per rollout, the few values those collectors read ({@link TracedRollout}), so that
 * `engine/merge.ts` can replay the rollouts of every shard, in input order, through this same class and get the
 * summary of the unsharded run bit for bit (same sums in the same order).
 */

/** How the run reads labels and fields (the `score` flags that shape its summary). */
export interface TallyOptions {
  /** The input's name in warnings (`<stdin>` for stdin). */
  inputName: string;
  map?: Record<string, string>;
  labelField?: string;
  labelComponent?: string;
  /** Keep a {@link TracedRollout} per rollout. */
  trace?: boolean;
  /** The shard this run scores, if any (an empty shard is not an empty input). */
  shard?: Shard;
}

/** The advantages of a batch with what the summary needs of them. */
export interface ComputedAdvantages {
  rewards: Float64Array;
  groupIds: Int32Array;
  advantages: Float64Array;
  diagnostics: AdvantageDiagnostics;
  warnings: string[];
}

/** See the module comment. Rows are added in batch order; {@link addScored} may come later (after group stages). */
export class RunTally {
  readonly batch: AdvantageBatch;
  readonly labelIdx: number;
  private readonly summary: SummaryBuilder;
  private readonly agreement: AgreementBuilder | undefined;
  private readonly mapped: [string, string][];
  malformed = 0;
  records = 0;
  private readonly mapMisses = new Map<string, number>();
  private readonly traced: TracedRollout[] | undefined;
  private computed: ComputedAdvantages | undefined;

  /** @throws {UserError} when `labelComponent` names no component of the spec. */
  constructor(
    private readonly spec: CompiledSpec,
    private readonly o: TallyOptions,
  ) {
    this.labelIdx = o.labelComponent === undefined ? 0 : spec.components.findIndex((c) => c.name === o.labelComponent);
    if (this.labelIdx < 0)
      throw new UserError(
        `--label-component ${o.labelComponent}: no such component; known: ${spec.components.map((c) => c.name).join(", ")}`,
      );
    this.agreement = o.labelField
      ? new AgreementBuilder(o.labelField, spec.components[this.labelIdx]!.name)
      : undefined;
    this.summary = new SummaryBuilder(spec);
    this.batch = new AdvantageBatch(spec);
    this.mapped = Object.entries(o.map ?? {});
    if (o.trace) this.traced = [];
  }

  /** Counts one parsed input record, and the `--map` sources it lacks. */
  countRecord(record: unknown): void {
    this.records++;
    for (const [name, path] of this.mapped)
      if (getPath(record, path) === undefined) this.mapMisses.set(name, (this.mapMisses.get(name) ?? 0) + 1);
  }

  /** Adds counts of records without each `--map` source (a replay: the shards' counts). */
  addMapMisses(misses: Record<string, number>): void {
    for (const [name, n] of Object.entries(misses)) this.mapMisses.set(name, (this.mapMisses.get(name) ?? 0) + n);
  }

  /** Adds a scored rollout to the advantage batch (pass one; `line` is its input line). @returns its row index. */
  addRow(rollout: Rollout, results: readonly ComponentResult[], reward: number | null, line: number): number {
    const row = this.batch.add(rollout, results, reward);
    this.traced?.push({
      line,
      group: row.group,
      reward,
      advantage: null,
      results: [],
      length: 0,
      step: 0,
      responseLength: nullable(row.length ?? NaN),
      ...(row.stratum !== undefined ? { stratum: row.stratum } : {}),
    });
    return this.batch.size - 1;
  }

  /** Replaces row k's verdicts and reward (a group stage rescored it). */
  setRow(k: number, results: readonly ComponentResult[], reward: number | null): void {
    this.batch.set(k, results, reward);
  }

  /**
   * Adds row k to the summary and the label agreement, with its final verdicts and reward.
   * @param thresholds each component's passThreshold at the rollout's step, when some are scheduled.
   * @param meta the rollout's hacking-diagnostics length and step.
   * @param label the raw label value, the rollout's id and reference (with `--label`).
   */
  addScored(
    k: number,
    results: readonly ComponentResult[],
    reward: number | null,
    thresholds: readonly number[] | undefined,
    meta: { length: number; step: number },
    label?: { value: unknown; id: string; reference: unknown },
  ): void {
    this.summary.add(results, reward, thresholds, meta);
    let example = false;
    const l = label ? labelBool(label.value) : undefined;
    if (this.agreement && label) {
      const r = results[this.labelIdx]!;
      const passed = passes(this.spec, results, this.labelIdx, thresholds);
      this.agreement.add(label.value, passed, {
        id: label.id,
        score: r.score,
        ...(r.reason ? { reason: r.reason } : {}),
        extracted: r.details?.extracted,
        reference: label.reference,
      });
      example = l !== undefined && l !== passed;
    }
    const t = this.traced?.[k];
    if (!t) return;
    t.reward = reward;
    t.results = results.map((r, i) => traceResult(r, example && i === this.labelIdx));
    if (thresholds) t.thresholds = [...thresholds];
    t.length = meta.length;
    t.step = meta.step;
    if (this.agreement && label) {
      t.label = { value: l ?? null, ...(example ? { id: label.id, reference: label.reference } : {}) };
    }
  }

  /** Replays one traced rollout (as the next row): the advantage batch, the summary and the label agreement. */
  replay(t: TracedRollout): void {
    const k = this.batch.size;
    this.batch.addRow({
      group: t.group,
      reward: t.reward,
      components: t.results.map((r) => r.score),
      length: t.responseLength ?? NaN,
      ...(t.stratum !== undefined ? { stratum: t.stratum } : {}),
    });
    const results: ComponentResult[] = t.results.map((r) => ({
      score: r.score,
      status: r.score === null ? "unscorable" : "ok",
      ...(r.reason !== undefined ? { reason: r.reason as ReasonCode } : {}),
      ...(r.details !== undefined ? { details: r.details } : {}),
    }));
    this.addScored(
      k,
      results,
      t.reward,
      t.thresholds,
      { length: t.length, step: t.step },
      t.label ? { value: t.label.value, id: t.label.id ?? "", reference: t.label.reference } : undefined,
    );
  }

  /** Computes the batch's advantages (once; the rows must all be in). */
  advantages(): ComputedAdvantages {
    this.computed ??= this.batch.compute();
    return this.computed;
  }

  /** The summary (after {@link addScored} for every row): figures, warnings, label agreement, judges. */
  finish(elapsedSeconds: number, judges: Record<string, CallUsage>): Summary {
    const { rewards, groupIds, advantages, diagnostics, warnings: advantageWarnings } = this.advantages();
    const label = this.agreement?.finish();
    const warnings = [
      ...advantageWarnings,
      ...this.mapped
        .filter(([name]) => this.records > 0 && this.mapMisses.get(name) === this.records)
        .map(([name, path]) => `--map ${name}=${path}: no input record has "${path}"`),
    ];
    // like a --map typo: a label path that no rollout has would measure nothing, so say so
    if (label && label.n === 0 && label.missingLabel > 0)
      warnings.push(`--label ${this.o.labelField}: no rollout has a boolean "${this.o.labelField}"`);
    if (this.records === 0 && this.malformed === 0) warnings.push(nothingScored(this.o.inputName, this.o.shard));
    return this.summary.finish({
      rewards,
      groupIds,
      advantages,
      advantageDiagnostics: diagnostics,
      malformed: this.malformed,
      elapsedSeconds,
      ...(label ? { label } : {}),
      warnings,
      judges,
    });
  }

  /** The run's trace (with `trace: true`, after {@link advantages}); undefined otherwise. */
  trace(judges: Record<string, CallUsage>): RunTrace | undefined {
    if (!this.traced) return undefined;
    const adv = this.advantages().advantages;
    this.traced.forEach((t, k) => (t.advantage = nullable(adv[k]!)));
    return {
      kind: "plain",
      rollouts: this.traced,
      records: this.records,
      malformed: this.malformed,
      mapMisses: Object.fromEntries(this.mapMisses),
      judges,
    };
  }
}

/** The warning of a run that scored nothing: an empty input, or a shard that none of the input's groups fall in. */
export function nothingScored(inputName: string, shard: Shard | undefined): string {
  return shard
    ? `${inputName}: no group of the input falls in shard ${shard.index}/${shard.count}: nothing was scored here`
    : `${inputName}: the input has no records: nothing was scored`;
}

/** The part of a result the summary reads; `extracted` too when the result is a label disagreement's example. */
function traceResult(r: ComponentResult, withExtracted: boolean): TracedResult {
  const t: TracedResult = { score: r.score };
  if (r.reason) t.reason = r.reason;
  const d = r.details;
  if (d) {
    const kept: Record<string, unknown> = {};
    for (const key of SUMMARY_DETAILS) if (d[key] !== undefined) kept[key] = d[key];
    if (withExtracted && d.extracted !== undefined) kept.extracted = d.extracted;
    if (Object.keys(kept).length > 0) t.details = kept;
  }
  return t;
}
