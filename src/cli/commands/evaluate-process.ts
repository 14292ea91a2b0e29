import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { UserError } from "../../core/errors.js";
import type { Rollout } from "../../core/types.js";
import { table } from "../../diagnostics/format.js";
import { createScorer } from "../../engine/scorer.js";
import { mapOrdered } from "../../engine/ordered.js";
import { readLines } from "../../io/jsonl.js";
import { openLineWriter } from "../../io/output.js";
import {
  alignPredictions,
  DEFAULT_THRESHOLDS,
  loadPredictions,
  loadProcessBench,
  processBenchMetrics,
  thresholdSweep,
} from "../../process/processbench.js";
import type { ProcessBenchMetrics, ProcessBenchRecord, SweepRow } from "../../process/processbench.js";
import { loadSpec } from "../../spec/load.js";
import { firstError } from "../../verifiers/process/aggregate.js";
import { UsageError } from "../errors.js";
import { intOption } from "../options.js";

interface Flags {
  data: string;
  predictions?: string;
  scores?: string;
  spec?: string;
  component?: string;
  threshold: number;
  thresholds?: number[];
  writePredictions?: string;
  concurrency?: number;
  json?: boolean;
}

function numberOption(v: string): number {
  const n = Number(v);
  if (v.trim() === "" || !Number.isFinite(n)) throw new InvalidArgumentError("expected a number");
  return n;
}

function numberList(v: string): number[] {
  return v.split(",").map((x) => numberOption(x));
}

/** Step scores per record id from JSONL `{"id", "step_scores": [number | null, …]}`. @throws {UserError} file:line field. */
async function loadScores(file: string): Promise<Map<string, (number | null)[]>> {
  const out = new Map<string, (number | null)[]>();
  for await (const { line, text } of readLines(file)) {
    let r: { id?: unknown; step_scores?: unknown };
    try {
      r = JSON.parse(text) as typeof r;
    } catch (e) {
      throw new UserError(`${file}:${line}: invalid JSON: ${(e as Error).message}`);
    }
    if (typeof r.id !== "string" && typeof r.id !== "number")
      throw new UserError(`${file}:${line} id: expected a string or number`);
    const s = r.step_scores;
    if (!Array.isArray(s) || !s.every((x) => x === null || (typeof x === "number" && Number.isFinite(x))))
      throw new UserError(`${file}:${line} step_scores: expected an array of numbers (null = unscored)`);
    out.set(String(r.id), s as (number | null)[]);
  }
  return out;
}

/** Runs a spec's `process` component over the records (steps given, completion = steps joined by blank lines). */
async function specScores(
  records: readonly ProcessBenchRecord[],
  specFile: string,
  component: string | undefined,
  concurrency: number | undefined,
): Promise<{ name: string; scores: (number | null)[][]; unscorable: number }> {
  const spec = loadSpec(specFile);
  const idx =
    component === undefined
      ? spec.components.findIndex((c) => c.type === "process")
      : spec.components.findIndex((c) => c.name === component);
  if (idx < 0)
    throw new UsageError(
      component === undefined
        ? `${specFile}: no component of type process; name one with --component`
        : `--component ${component}: no such component; known: ${spec.components.map((c) => c.name).join(", ")}`,
    );
  const scorer = createScorer(spec, concurrency === undefined ? {} : { concurrency });
  const scores: (number | null)[][] = [];
  let unscorable = 0;
  async function* rollouts(): AsyncGenerator<{ rollout: Rollout; steps: number }> {
    for (const r of records)
      yield {
        rollout: { id: r.id, group: r.id, prompt: r.problem ?? "", completion: r.steps.join("\n\n"), steps: r.steps },
        steps: r.steps.length,
      };
  }
  try {
    await mapOrdered(
      rollouts(),
      64,
      ({ rollout }) => scorer.score(rollout),
      ({ results }, { steps }) => {
        const s = results[idx]!.details?.step_scores;
        if (Array.isArray(s) && s.length === steps) scores.push(s.map((x) => (typeof x === "number" ? x : null)));
        else {
          unscorable++;
          scores.push(new Array<null>(steps).fill(null)); // no scores: predicts "no error"
        }
      },
    );
  } finally {
    await scorer.close();
  }
  return { name: `${specFile}#${spec.components[idx]!.name}`, scores, unscorable };
}

function fmt(x: number | null): string {
  return x === null ? "-" : x.toFixed(4);
}

function metricLines(m: ProcessBenchMetrics): string[] {
  return [
    `  accuracy on erroneous  ${fmt(m.erroneous.accuracy)}  (${m.erroneous.matched}/${m.erroneous.n})`,
    `  accuracy on correct    ${fmt(m.correct.accuracy)}  (${m.correct.matched}/${m.correct.n})`,
    `  F1                     ${fmt(m.f1)}`,
  ];
}

function best(sweep: readonly SweepRow[]): SweepRow | undefined {
  let b: SweepRow | undefined;
  for (const r of sweep) if (r.metrics.f1 !== null && (b === undefined || r.metrics.f1 > b.metrics.f1!)) b = r;
  return b;
}

/**
 * `rewardkit evaluate process --data <processbench.json> (--predictions <jsonl> | --scores <jsonl> | --spec <spec>)`:
 * ProcessBench's metrics of first-error predictions — from a file of predictions, or from step scores (given, or
 * computed by a spec's `process` component) and a threshold, with a threshold sweep.
 */
export function registerEvaluateProcess(evaluate: Command): void {
  evaluate
    .command("process")
    .description("ProcessBench metrics (accuracy on erroneous / correct solutions, F1) of first-error predictions")
    .requiredOption("--data <file>", "ProcessBench data: JSON array (.json, .json.gz) or JSONL of {id, steps, label}")
    .option("--predictions <file>", 'JSONL of {"id", "prediction"}: the 0-based first wrong step, -1 for none')
    .option("--scores <file>", 'JSONL of {"id", "step_scores"}: predict the first step scored below --threshold')
    .option("--spec <file>", "score the steps with this spec's process component (see --component)")
    .option(
      "--component <name>",
      "with --spec: the component whose step scores predict (default: the first process component)",
    )
    .option("--threshold <t>", "with --scores/--spec: a step is wrong when its score is below t", numberOption, 0.5)
    .option(
      "--thresholds <list>",
      "with --scores/--spec: thresholds of the sweep, comma-separated (default 0.05,0.10,…,0.95)",
      numberList,
    )
    .option("--write-predictions <file>", "with --scores/--spec: write the predictions at --threshold as JSONL")
    .option("--concurrency <n>", "with --spec: worker threads", intOption)
    .option("--json", "print one JSON object")
    .action(async (o: Flags) => {
      const sources = [o.predictions, o.scores, o.spec].filter((x) => x !== undefined).length;
      if (sources !== 1) throw new UsageError("give exactly one of --predictions, --scores, --spec");
      const records = await loadProcessBench(o.data);
      if (records.length === 0) throw new UserError(`${o.data}: no records`);
      const labels = records.map((r) => r.label);
      let predictions: number[];
      let source: string;
      let sweep: SweepRow[] | undefined;
      let unscored: number | undefined;
      if (o.predictions !== undefined) {
        predictions = alignPredictions(records, await loadPredictions(o.predictions), o.predictions);
        source = o.predictions;
      } else {
        let scores: (number | null)[][];
        if (o.scores !== undefined) {
          const given = await loadScores(o.scores);
          const missing = records.filter((r) => !given.has(r.id));
          if (missing.length > 0)
            throw new UserError(
              `${o.scores}: ${missing.length} of ${records.length} records have no step_scores (first: id "${missing[0]!.id}")`,
            );
          scores = records.map((r) => {
            const s = given.get(r.id)!;
            if (s.length !== r.steps.length)
              throw new UserError(`${o.scores}: id "${r.id}": ${s.length} step_scores for ${r.steps.length} steps`);
            return s;
          });
          source = o.scores;
        } else {
          const r = await specScores(records, o.spec!, o.component, o.concurrency);
          scores = r.scores;
          source = r.name;
          unscored = r.unscorable;
        }
        predictions = scores.map((s) => firstError(s, o.threshold));
        sweep = thresholdSweep(labels, scores, o.thresholds ?? DEFAULT_THRESHOLDS);
        if (o.writePredictions !== undefined) {
          const w = openLineWriter(o.writePredictions);
          for (let i = 0; i < records.length; i++)
            await w.write(JSON.stringify({ id: records[i]!.id, prediction: predictions[i] }));
          await w.close();
        }
      }
      const m = processBenchMetrics(labels, predictions);
      const top = sweep ? best(sweep) : undefined;
      if (o.json) {
        const out: Record<string, unknown> = {
          data: o.data,
          source,
          n: m.n,
          f1: m.f1,
          erroneous: m.erroneous,
          correct: m.correct,
        };
        if (sweep) {
          out.threshold = o.threshold;
          if (unscored !== undefined) out.unscorable_records = unscored;
          out.sweep = sweep.map((r) => ({
            threshold: r.threshold,
            erroneous_accuracy: r.metrics.erroneous.accuracy,
            correct_accuracy: r.metrics.correct.accuracy,
            f1: r.metrics.f1,
          }));
          if (top) out.best = { threshold: top.threshold, f1: top.metrics.f1 };
        }
        process.stdout.write(JSON.stringify(out) + "\n");
        return;
      }
      const lines = [
        `ProcessBench ${o.data}: ${m.n} records, ${m.erroneous.n} with an error, ${m.correct.n} all correct`,
      ];
      lines.push(
        `predictions: ${source}${sweep ? ` (first step with score < ${o.threshold})` : ""}${unscored ? `; ${unscored} records unscorable (predicted -1)` : ""}`,
      );
      lines.push(...metricLines(m));
      if (sweep) {
        lines.push("threshold sweep (prediction = first step with score < t):");
        const rows = [["  t", "erroneous", "correct", "F1"]];
        for (const r of sweep)
          rows.push([
            `  ${r.threshold}`,
            fmt(r.metrics.erroneous.accuracy),
            fmt(r.metrics.correct.accuracy),
            fmt(r.metrics.f1),
          ]);
        lines.push(table(rows));
        if (top)
          lines.push(
            `best: t = ${top.threshold}, F1 ${fmt(top.metrics.f1)} (chosen on this data: report it on a held-out split)`,
          );
      }
      process.stdout.write(lines.join("\n") + "\n");
    });
}
