import { nullable } from "../advantage/compute.js";
import { UserError } from "../core/errors.js";
import { applyGroupStages, stagedComponents } from "../compose/group-stage.js";
import type { StagedRollout } from "../compose/group-stage.js";
import type { ComponentResult, Rollout } from "../core/types.js";
import type { CallUsage } from "../client/types.js";
import { diagnosticLength } from "../diagnostics/hacking.js";
import { completionText } from "../core/completion.js";
import type { Summary } from "../diagnostics/summary.js";
import { getPath } from "../io/fields.js";
import { readLines } from "../io/jsonl.js";
import { OutputSet, openLineWriter } from "../io/output.js";
import { preciseMembers } from "../io/precise.js";
import { toRollout } from "../io/rollout.js";
import { Spill } from "../io/spill.js";
import type { Problem } from "../spec/errors.js";
import type { ScheduleState } from "../schedule/runtime.js";
import type { CompiledSpec } from "../spec/types.js";
import { StepAdvantages } from "../process/step-advantages.js";
import { tokenAdvantageFields } from "./token-advantages.js";
import { mapOrdered } from "./ordered.js";
import { RunTally } from "./run-tally.js";
import type { InputFingerprint, RoutedTrace, RunTrace } from "./trace.js";
import { createScorer } from "./scorer.js";
import { CurriculumTracker } from "../curriculum/tracker.js";
import type { CurriculumState } from "../curriculum/tracker.js";
import { scoredGroups } from "../curriculum/groups.js";
import type { ScoredRollout } from "../curriculum/groups.js";
import { InputDigest, ownsGroup, ownsMalformed } from "./shard.js";
import type { Shard } from "./shard.js";

/** Raised in `--strict` mode for the first malformed line. */
export class InputError extends UserError {
  constructor(readonly problem: Problem) {
    super(`${problem.file}:${problem.line} ${problem.path ? problem.path + ": " : ""}${problem.message}`);
    this.name = "InputError";
  }
}

export interface ScoreFileOptions {
  /** Input JSONL path (`.gz` by extension) or `-` for stdin. */
  input: string;
  /**
   * Output JSONL path (folders created; gzip when it ends in `.gz`) or undefined/`-` for stdout. A file is written
   * under a temporary name and renamed into place at the end: a failed run leaves the previous file as it was.
   */
  output?: string;
  /**
   * Where the output file is reserved: given, the caller commits it (with its other outputs, e.g. the summary, in
   * one step) or discards it; without it scoreFile renames the output into place itself before returning.
   */
  outputs?: OutputSet;
  /** Longest input line, bytes (default `MAX_LINE_BYTES`, 256 MiB); longer lines are reported and skipped. */
  maxLineBytes?: number;
  /** `--map` canonical field → source path. */
  map?: Record<string, string>;
  /** Stop at the first malformed line instead of reporting and skipping it. */
  strict?: boolean;
  /** Worker threads. */
  concurrency?: number;
  /**
   * Verdict cache capacity, component verdicts (default 100 000, as `serve`; 0 disables it). The cache is what
   * memory levels off at on a long run: docs/cli.md gives the RSS it bounds.
   */
  cacheSize?: number;
  /** Boolean field to measure agreement against, e.g. `labels.peer_correct`. */
  labelField?: string;
  /** Component compared with the label (default: the first). */
  labelComponent?: string;
  /** Called for each malformed line (file, line, field, reason). */
  onProblem?: (p: Problem) => void;
  /** Called after each scored rollout with the running count. */
  onProgress?: (scored: number) => void;
  /** Performance-schedule state to resume from (the CLI's `--state` file). */
  scheduleState?: ScheduleState;
  /** Receives the performance-schedule state after the last rollout is scored (to save it). */
  onScheduleState?: (state: ScheduleState) => void;
  /** The per-prompt statistics to resume from (the `curriculum` member of a `--state` file). */
  curriculumState?: unknown;
  /** Receives the per-prompt statistics after the run, this run's groups recorded (to save them). */
  onCurriculumState?: (state: CurriculumState) => void;
  /**
   * Score only the groups of this shard (`engine/shard.ts`); lines that are not rollouts are reported and counted by
   * shard 0 alone, so that the shards' counts add up to the unsharded run's.
   */
  shard?: Shard;
  /**
   * Receives the run's trace after the run (the per-rollout values its summary was built from, for `rewardkit
   * merge`), and the fingerprint of the input when `shard` is set.
   */
  onTrace?: (trace: RunTrace | RoutedTrace, input?: InputFingerprint) => void;
}

/**
 * Gathers the run's rollouts into groups, applies `filter: dapo` (the dropped groups' advantages become null, as
 * verl drops them from the batch) and records the groups in the curriculum's statistics and replay buffer.
 * @returns the filter's report, when the spec has one.
 */
async function recordCurriculum(
  spec: CompiledSpec,
  curriculum: CurriculumTracker,
  rows: ReadonlyArray<Omit<ScoredRollout, "advantage">>,
  adv: Float64Array,
): Promise<Summary["filter"]> {
  const groups = scoredGroups(
    spec.components.map((c) => c.name),
    rows.map((r, k) => ({ ...r, advantage: adv[k]! })),
  );
  const filter = curriculum.filter(groups);
  if (filter) {
    const dropped = new Set(filter.report.dropped_groups);
    rows.forEach((r, k) => {
      if (dropped.has(r.group)) adv[k] = NaN;
    });
  }
  await curriculum.record(groups, filter?.keep);
  return filter?.report;
}

/** A rollout's length and step for the summary's hacking diagnostics. */
function metaOf(rollout: Rollout): { length: number; step: number } {
  return {
    length: diagnosticLength(rollout.completion_tokens, completionText(rollout.completion).length),
    step: rollout.step ?? 0,
  };
}

/** Serializes component results for output (drops undefined fields). */
export function componentsRecord(
  spec: CompiledSpec,
  results: readonly ComponentResult[],
): Record<string, ComponentResult> {
  const out: Record<string, ComponentResult> = {};
  spec.components.forEach((c, i) => {
    out[c.name] = results[i]!;
  });
  return out;
}

/** The JSON text `,"token_advantages":[…]` appended to a scored row when the spec has `advantage.tokens`. */
function tokenSuffix(spec: CompiledSpec, advantage: number, row: string): string {
  if (!spec.advantage.tokens) return "";
  const { components } = JSON.parse(row) as { components: Record<string, ComponentResult> };
  const f = tokenAdvantageFields(
    spec,
    advantage,
    spec.components.map((c) => components[c.name]!),
  )!;
  return `,${JSON.stringify(f).slice(1, -1)}`;
}

/**
 * The main job: streams rollouts from a JSONL file, scores every component, aggregates the reward,
 * computes group advantages and writes `input record + reward + components + advantage` per line, in
 * input order. Two passes over a temporary spill file keep memory bounded (only numbers per rollout are
 * held). Malformed lines are reported through `onProblem`, counted and skipped (or fatal with `strict`).
 *
 * Specs with group-stage components (`cosine-length`, `group-length`, likelihood's collapse penalty and std filter)
 * also hold, per rollout, the stages' small members and the per-rollout scores; after the last rollout the stages
 * run over each whole group of the file, and pass two writes the staged verdicts and rewards (summary and label
 * agreement are then counted in pass two).
 * @returns the run summary.
 * @throws {InputError} in strict mode; the input stream's error when the file cannot be read.
 */
export async function scoreFile(spec: CompiledSpec, o: ScoreFileOptions): Promise<Summary> {
  const t0 = performance.now();
  const map = o.map ?? {};
  const inputName = o.input === "-" ? "<stdin>" : o.input;
  // summary, label agreement, advantages and the counters behind the warnings (a --map source that no record has
  // is almost always a typo: it says so instead of scoring everything unscorable)
  const tally = new RunTally(spec, {
    inputName,
    map,
    ...(o.labelField !== undefined ? { labelField: o.labelField } : {}),
    ...(o.labelComponent !== undefined ? { labelComponent: o.labelComponent } : {}),
    trace: o.onTrace !== undefined,
    ...(o.shard ? { shard: o.shard } : {}),
  });
  const labelled = o.labelField !== undefined;
  const steps = StepAdvantages.forSpec(spec); // step_advantages, when the spec has a `process` component
  const digest = o.shard ? new InputDigest() : undefined;
  // numeric ids and groups beyond 2^53 keep their digits (as strings): read from the line's text where a `--map`
  // source is a plain top-level name too
  const preciseKeys = [
    ...new Set([
      "id",
      "group",
      ...["id", "group"].map((k) => map[k]).filter((p): p is string => p !== undefined && !p.includes(".")),
    ]),
  ];

  // with a shard, a line that is not a rollout belongs to shard 0 (MALFORMED_SHARD): the others skip it silently
  const malformedHere = ownsMalformed(o.shard);
  const report = (line: number, path: string, message: string): void => {
    if (!malformedHere) return;
    const p: Problem = { file: inputName, line, path, message };
    if (o.strict) throw new InputError(p);
    tally.malformed++;
    o.onProblem?.(p);
  };

  async function* rollouts(): AsyncGenerator<{ rollout: Rollout; record: Record<string, unknown>; line: number }> {
    const lines = readLines(o.input, {
      onProblem: (line, message) => report(line, "", message),
      ...(o.maxLineBytes !== undefined ? { maxLineBytes: o.maxLineBytes } : {}),
    });
    for await (const { line, text } of lines) {
      digest?.update(line, text);
      let record: unknown;
      try {
        record = preciseMembers(JSON.parse(text), text, preciseKeys);
      } catch (e) {
        report(line, "", `invalid JSON: ${(e as Error).message}`);
        continue;
      }
      const r = toRollout(record, line, map);
      if ("problem" in r) {
        if (malformedHere) tally.countRecord(record);
        report(line, r.problem.field, r.problem.message);
      } else if (ownsGroup(o.shard, r.rollout.group)) {
        tally.countRecord(record);
        yield { rollout: r.rollout, record: record as Record<string, unknown>, line };
      }
    }
  }

  const staged = stagedComponents(spec);
  // group stages: per rollout, what the stages and the reward need (scores, members), kept until the file ends
  const held: Array<
    StagedRollout & {
      label?: { value: unknown; id: string; reference: unknown };
      meta: { length: number; step: number };
    }
  > = [];
  const spill = new Spill();
  let judges: Record<string, CallUsage> = {};
  // per-prompt statistics, `filter: dapo` and `replay:` read each rollout's numbers once the advantages are known
  const curriculum =
    o.onCurriculumState || o.curriculumState !== undefined || spec.filter || spec.replay
      ? new CurriculumTracker(spec)
      : undefined;
  if (curriculum && o.curriculumState !== undefined) curriculum.restore(o.curriculumState);
  const curRows: Array<Omit<ScoredRollout, "advantage">> = [];
  try {
    const scorer = createScorer(spec, {
      ...(o.concurrency !== undefined ? { concurrency: o.concurrency } : {}),
      ...(o.cacheSize !== undefined ? { cacheSize: o.cacheSize } : {}),
    });
    try {
      if (o.scheduleState) scorer.restore(o.scheduleState);
      await mapOrdered(
        rollouts(),
        Math.max(64, 16 * (o.concurrency ?? 4)),
        ({ rollout }) => scorer.score(rollout),
        async ({ results, reward, members }, { rollout, record, line }) => {
          // scheduled thresholds: a pass is judged by the value in force at the rollout's step
          const values = scorer.valuesAt(rollout.step ?? 0);
          const thresholds = values?.thresholds;
          const k = tally.addRow(rollout, results, reward, line);
          if (curriculum)
            curRows.push({
              id: rollout.id,
              group: rollout.group,
              ...(rollout.prompt_id !== undefined ? { promptId: rollout.prompt_id } : {}),
              step: rollout.step ?? 0,
              reward,
              scores: results.map((r) => r.score),
            });
          steps?.add(rollout, results);
          const label = labelled
            ? { value: getPath(record, o.labelField!), id: rollout.id, reference: rollout.reference }
            : undefined;
          if (staged.length > 0) {
            const h: (typeof held)[number] = {
              group: rollout.group,
              results: results.map((r) => ({ score: r.score, status: r.status })), // the reward reads scores only
              members: members ?? [],
              reward,
              ...(values ? { values } : {}),
              meta: metaOf(rollout),
            };
            if (label) h.label = label;
            held.push(h);
          } else tally.addScored(k, results, reward, thresholds, metaOf(rollout), label);
          const out: Record<string, unknown> = { ...record };
          if (!("id" in out)) out.id = rollout.id;
          if (!("group" in out)) out.group = rollout.group;
          out.reward = reward;
          out.components = componentsRecord(spec, results);
          delete out.advantage; // appended in pass two
          if (steps || spec.advantage.tokens)
            for (const f of ["step_advantages", "token_advantages", "token_advantages_error"]) delete out[f]; // likewise
          await spill.write(JSON.stringify(out));
          o.onProgress?.(tally.batch.size);
        },
      );
      o.onScheduleState?.(scorer.snapshot());
      judges = scorer.usage();
    } finally {
      await scorer.close();
    }
    if (staged.length > 0) {
      applyGroupStages(spec, staged, held);
      held.forEach((h, k) => tally.setRow(k, h.results, h.reward));
      if (curriculum)
        held.forEach((h, k) => Object.assign(curRows[k]!, { reward: h.reward, scores: h.results.map((r) => r.score) }));
    }
    const { groupIds: groupArr, advantages: adv } = tally.advantages();
    const filtered = curriculum ? await recordCurriculum(spec, curriculum, curRows, adv) : undefined;
    if (curriculum) o.onCurriculumState?.(curriculum.snapshot());
    const toFile = o.output !== undefined && o.output !== "-";
    const outputs = o.outputs ?? new OutputSet();
    const writer = toFile
      ? openLineWriter(outputs.reserve(o.output!), { gzip: o.output!.endsWith(".gz") })
      : openLineWriter(undefined);
    try {
      let k = 0;
      steps?.compute(groupArr, adv);
      for await (let { text } of spill.read()) {
        if (staged.length > 0) {
          // pass two of a staged spec: the staged verdicts and reward replace the group-of-one ones
          const h = held[k]!;
          const out = JSON.parse(text) as Record<string, unknown> & { components: Record<string, ComponentResult> };
          for (const i of staged) out.components[spec.components[i]!.name] = h.results[i]!;
          out.reward = h.reward;
          const results = spec.components.map((c) => out.components[c.name]!);
          tally.addScored(k, results, h.reward, h.values?.thresholds, h.meta, h.label);
          text = JSON.stringify(out);
        }
        await writer.write(
          `${text.slice(0, -1)},"advantage":${JSON.stringify(nullable(adv[k]!))}${steps ? steps.jsonSuffix(k) : ""}${tokenSuffix(spec, adv[k]!, text)}}`,
        );
        k++;
      }
      await writer.close();
    } catch (e) {
      writer.destroy();
      if (!o.outputs) outputs.discard();
      throw e;
    }
    if (!o.outputs) outputs.commit();
    const summary = tally.finish((performance.now() - t0) / 1000, judges);
    if (filtered) summary.filter = filtered;
    const trace = tally.trace(judges);
    if (trace) o.onTrace!(trace, digest ? { lines: digest.lines, digest: digest.digest() } : undefined);
    return summary;
  } finally {
    spill.dispose();
  }
}
