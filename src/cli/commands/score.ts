import type { Command } from "commander";
import { formatSummary } from "../../diagnostics/format.js";
import type { Summary } from "../../diagnostics/summary.js";
import { scoreFile } from "../../engine/score-file.js";
import { parseFieldMap } from "../../io/fields.js";
import { OutputSet } from "../../io/output.js";
import { writeFileSync } from "node:fs";
import { formatProblem } from "../../spec/errors.js";
import { isRoutedSpec, loadAnySpec } from "../../spec/routes.js";
import { scoreRoutedFile } from "../../engine/routes-file.js";
import { formatRoutedSummary } from "../../diagnostics/routes.js";
import type { RoutedSummary } from "../../engine/routes-file.js";
import { createProgress } from "../progress.js";
import { UserError } from "../../core/errors.js";
import { whileInterruptible } from "../interrupt.js";
import { collect, countOption, intOption, parseShard } from "../options.js";
import { UsageError } from "../errors.js";
import { partialSummaryText, shardInfo } from "../../engine/partial.js";
import { shardRefusal } from "../../engine/shard.js";
import type { InputFingerprint, RoutedTrace, RunTrace } from "../../engine/trace.js";
import { readStateFile, writeStateFile } from "../state.js";
import type { StateFile } from "../state.js";
import type { ScheduleState } from "../../schedule/runtime.js";
import type { CurriculumState } from "../../curriculum/tracker.js";
import { CurriculumStateError } from "../../curriculum/table.js";
import { readScored, runReportHtml } from "../../report/run.js";
import { writeCreating } from "./probe.js";

interface ScoreOpts {
  spec: string;
  output?: string;
  summary?: string;
  map: string[];
  label?: string;
  labelComponent?: string;
  strict?: boolean;
  concurrency?: number;
  cacheSize?: number;
  quiet?: boolean;
  state?: string;
  maxLineMb?: number;
  report?: string;
  shard?: string;
}

/** `rewardkit score <file|-> --spec <spec>`: the main job. */
export function registerScore(program: Command): void {
  program
    .command("score")
    .description("score rollouts from a JSONL file (or - for stdin) with a reward spec")
    .argument("<input>", "rollouts JSONL (.gz by extension), or - for stdin")
    .requiredOption("-s, --spec <spec>", "reward spec (YAML or JSON)")
    .option("-o, --output <file>", "scored JSONL (default: stdout; gzip when it ends in .gz); folders are created")
    .option("--summary <file>", "write the summary as JSON (folders are created)")
    .option("--map <field=source>", "read a rollout field from another name or dotted path (repeatable)", collect, [])
    .option("--label <field>", "boolean field (dotted path) to measure agreement against, e.g. labels.correct")
    .option("--label-component <name>", "component compared with --label (default: the first)")
    .option("--strict", "stop at the first malformed line (default: report, count and skip it)")
    .option("--concurrency <n>", "worker threads for slow verifiers (default: CPU count)", intOption)
    .option(
      "--cache-size <n>",
      "verdict cache capacity (component verdicts; default 100000, 0 disables it): what memory levels off at on a long run",
      countOption,
    )
    .option(
      "--state <file>",
      "performance-schedule state and per-prompt statistics (for rewardkit curriculum): resumed from the file when it exists, saved to it at the end",
    )
    .option("--max-line-mb <n>", "longest input line, MiB; longer lines are reported and skipped", intOption, 256)
    .option("--report <file>", "also write a self-contained HTML report of the run (needs -o <file>)")
    .option(
      "--shard <i/N>",
      "score only shard i of N (whole groups, by a hash of the group id); --summary then writes a partial summary for rewardkit merge",
    )
    .option("-q, --quiet", "no progress bar, no summary table")
    .action(async (input: string, o: ScoreOpts) => {
      if (o.report && (o.output === undefined || o.output === "-"))
        throw new UserError("--report needs -o <file>: the report reads the scored rollouts back");
      const shard = o.shard !== undefined ? parseShard(o.shard) : undefined;
      const spec = loadAnySpec(o.spec);
      if (shard) {
        // a performance schedule learns from the results of every group in step order: a shard sees its own only
        if (
          o.state !== undefined &&
          (isRoutedSpec(spec) ? [...spec.routes.values()] : [spec]).some((s) =>
            s.schedules.some((x) => x.tracks !== undefined),
          )
        )
          throw new UsageError(
            "--state cannot be used with --shard: the spec's performance schedules learn from the results of every group as the run goes, and independent shards would each learn from their own groups only (score it unsharded to use --state)",
          );
        const why = shardRefusal(spec);
        if (why !== undefined) throw new UsageError(`--shard: ${why}`);
      }
      let problems = 0;
      let trace: { trace: RunTrace | RoutedTrace; input?: InputFingerprint } | undefined;
      const scheduleState = o.state !== undefined ? readStateFile(o.state) : undefined;
      const progress = createProgress("scoring", !o.quiet);
      // -o, --summary and --state are written under temporary names and renamed together at the very end: an
      // interrupted or failed run leaves all three as they were
      const outputs = new OutputSet();
      const kept = [
        o.output && o.output !== "-" ? `-o ${o.output}` : "",
        o.summary ? `--summary ${o.summary}` : "",
        o.state ? `--state ${o.state}` : "",
      ].filter(Boolean);
      const left = kept.length > 0 ? `${kept.join(", ")} left as they were` : "nothing written to files";
      let summary: Summary;
      try {
        summary = await whileInterruptible(
          async (finished) => {
            const run = (opts: Parameters<typeof scoreFile>[1]): Promise<Summary> =>
              isRoutedSpec(spec) ? scoreRoutedFile(spec, opts) : scoreFile(spec, opts);
            let saved: StateFile | undefined;
            const s = await run({
              ...(scheduleState ? { scheduleState } : {}),
              ...(scheduleState?.curriculum !== undefined ? { curriculumState: scheduleState.curriculum } : {}),
              input,
              ...(o.output !== undefined ? { output: o.output } : {}),
              outputs,
              map: parseFieldMap(o.map),
              strict: o.strict ?? false,
              maxLineBytes: (o.maxLineMb ?? 256) * 1024 * 1024,
              ...(o.concurrency !== undefined ? { concurrency: o.concurrency } : {}),
              ...(o.cacheSize !== undefined ? { cacheSize: o.cacheSize } : {}),
              ...(o.label !== undefined ? { labelField: o.label } : {}),
              ...(o.labelComponent !== undefined ? { labelComponent: o.labelComponent } : {}),
              onProblem: (p) => {
                if (problems++ < 20) process.stderr.write(`skipped ${formatProblem(p)}\n`);
              },
              onProgress: (n) => progress.update(n),
              ...(shard ? { shard } : {}),
              // the per-rollout trace is kept only when a partial summary is written from it
              ...(shard && o.summary
                ? { onTrace: (t, input) => (trace = { trace: t, ...(input ? { input } : {}) }) }
                : {}),
              ...(o.state !== undefined
                ? {
                    onScheduleState: (st: ScheduleState) => (saved = { ...saved, ...st }),
                    onCurriculumState: (c: CurriculumState) => (saved = { ...saved!, curriculum: c }),
                  }
                : {}),
            });
            if (o.state !== undefined && saved) writeStateFile(outputs.reserve(o.state), saved);
            // a shard may hold no rollout while another holds them all: `merge` checks the whole input instead
            if (s.count === 0 && s.malformed > 0 && !shard)
              throw new UserError(
                `${input}: no rollout could be scored: all ${s.malformed} lines were malformed (see above)`,
              );
            if (shard && o.summary && !trace?.input) throw new Error("the shard's trace is missing (internal error)");
            if (o.summary)
              writeFileSync(
                outputs.reserve(o.summary),
                shard && trace?.input
                  ? partialSummaryText(
                      s,
                      shardInfo({
                        ...shard,
                        spec: o.spec,
                        specHash: spec.hash,
                        input,
                        fingerprint: trace.input,
                        options: {
                          map: parseFieldMap(o.map),
                          label: o.label ?? null,
                          labelComponent: o.labelComponent ?? null,
                          maxLineBytes: (o.maxLineMb ?? 256) * 1024 * 1024,
                        },
                      }),
                      trace.trace,
                    )
                  : JSON.stringify(s, null, 2) + "\n",
              );
            outputs.commit();
            finished();
            return s;
          },
          () => {
            progress.stop();
            return left;
          },
        );
      } catch (e) {
        outputs.discard();
        if (e instanceof CurriculumStateError) throw new UsageError(`--state ${o.state}: ${e.message}`);
        if (kept.length > 0) process.stderr.write(`rewardkit: the run failed: ${left}\n`);
        throw e;
      } finally {
        progress.stop(); // also on an error: a running bar's timer would keep the process alive on a terminal
      }
      if (problems > 20) process.stderr.write(`… ${problems - 20} more malformed lines skipped\n`);
      if (!o.quiet) {
        // The table goes to stdout only when stdout does not carry the scored JSONL.
        const toStdout = o.output !== undefined && o.output !== "-";
        (toStdout ? process.stdout : process.stderr).write(
          ("routes" in summary ? formatRoutedSummary(summary as RoutedSummary) : formatSummary(summary)) + "\n",
        );
      }
      for (const w of summary.warnings ?? []) process.stderr.write(`warning: ${w}\n`);
      if (o.report) writeCreating(o.report, runReportHtml(await readScored(o.output!), summary));
    });
}
