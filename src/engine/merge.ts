import { nullable } from "../advantage/compute.js";
import type { CallUsage } from "../client/types.js";
import { emptyUsage } from "../client/types.js";
import { UserError } from "../core/errors.js";
import type { RoutedSummary } from "../diagnostics/routes.js";
import type { Summary } from "../diagnostics/summary.js";
import { isRoutedSpec } from "../spec/routes.js";
import type { RoutedSpec } from "../spec/routes.js";
import type { CompiledSpec } from "../spec/types.js";
import type { PartialFile, ShardInfo } from "./partial.js";
import { routeLabelOptions } from "./routes-file.js";
import { emptySummary, RoutedTally } from "./routed-tally.js";
import { batchStratumKey, batchWideAdvantages, splitGroups, splitWarning } from "./routes.js";
import { RunTally } from "./run-tally.js";
import type { RoutedTrace, RunTrace } from "./trace.js";

/**
 * `rewardkit merge`: the shards' partial summaries (`engine/partial.ts`) back into the summary one unsharded run
 * gives. The rollouts of every shard are replayed in input order (by line) through the builders the score job uses
 * (`RunTally`, `RoutedTally`), so every sum runs in the same order and every figure comes out identical — means,
 * stds, advantage diagnostics, pass^k, label agreement and its examples, concentration, hacking diagnostics, the
 * routes' summaries and the warnings. Advantages are recomputed over the whole batch and must equal what each shard
 * wrote (they do for estimators without batch statistics); otherwise the merge is refused.
 *
 * Not exact: `elapsedSeconds` (the shards' sum: time spent scoring) and `rolloutsPerSecond` (from it), and judges'
 * usage (summed; each shard had its own cache, so cache hits can differ from one run's).
 */

/** A partial's field that all partials of a run share, for the "differs" message. */
function same(parts: readonly PartialFile[], what: string, get: (s: ShardInfo) => unknown, hint: string): void {
  const first = JSON.stringify(get(parts[0]!.shard));
  for (const p of parts.slice(1)) {
    const v = JSON.stringify(get(p.shard));
    if (v !== first)
      throw new UserError(
        `${p.file}: ${what} is ${v}, ${parts[0]!.file} has ${first}: partials of one run only (${hint})`,
      );
  }
}

/**
 * Checks that the partials are the N shards of one run: same format, shard count, spec hash, input (digest and
 * line count) and summary-shaping flags; every index 0 … N−1 exactly once.
 * @throws {UserError} naming the file(s): a differing field, a duplicate index, the missing indexes.
 */
export function checkPartials(parts: readonly PartialFile[]): void {
  if (parts.length === 0) throw new UserError("merge: no partial summaries given");
  same(parts, "shard.count", (s) => s.count, "score every shard with the same --shard i/N");
  same(parts, "shard.spec_hash", (s) => s.spec_hash, "score every shard with the same spec");
  same(
    parts,
    "the input (shard.input_digest)",
    (s) => `${s.input_digest} (${s.input_lines} lines)`,
    "score every shard on the same input file",
  );
  same(
    parts,
    "shard.options",
    (s) => s.options,
    "score every shard with the same --map, --label, --label-component, --max-line-mb",
  );
  const n = parts[0]!.shard.count;
  const byIndex = new Map<number, string>();
  for (const p of parts) {
    const seen = byIndex.get(p.shard.index);
    if (seen !== undefined) throw new UserError(`${seen} and ${p.file} are both shard ${p.shard.index}/${n}`);
    byIndex.set(p.shard.index, p.file);
  }
  const missing = [...Array(n).keys()].filter((i) => !byIndex.has(i));
  if (missing.length > 0)
    throw new UserError(
      `shard${missing.length > 1 ? "s" : ""} ${missing.join(", ")} of ${n} ${missing.length > 1 ? "are" : "is"} missing (given: ${[
        ...byIndex,
      ]
        .sort((a, b) => a[0] - b[0])
        .map(([i, f]) => `${i} ${f}`)
        .join(", ")})`,
    );
}

/** Sums usage per judge, keys in order of first appearance (shard order). */
function sumJudges(all: readonly Record<string, CallUsage>[]): Record<string, CallUsage> {
  const out: Record<string, CallUsage> = {};
  for (const j of all)
    for (const [name, u] of Object.entries(j)) {
      const t = (out[name] ??= emptyUsage());
      for (const k of Object.keys(t) as (keyof CallUsage)[]) t[k] += u[k];
    }
  return out;
}

/** Items of every partial, each with its file, in input-line order; two on one line (overlapping shards) are an error. */
function byLine<T extends { line: number }>(
  lists: readonly { file: string; items: readonly T[] }[],
): { item: T; file: string }[] {
  const all = lists.flatMap(({ file, items }) => items.map((item) => ({ item, file })));
  all.sort((a, b) => a.item.line - b.item.line);
  for (let i = 1; i < all.length; i++)
    if (all[i]!.item.line === all[i - 1]!.item.line)
      throw new UserError(
        `${all[i - 1]!.file} and ${all[i]!.file} both scored input line ${all[i]!.item.line}: the shards overlap`,
      );
  return all;
}

/** The advantage a shard wrote differs from the whole batch's: the estimator used statistics beyond the group. */
function advantageMismatch(file: string, line: number, estimator: string, wrote: number | null, whole: number | null) {
  return new UserError(
    `${file}: the advantage written for input line ${line} (${wrote}) differs from the whole batch's (${whole}): estimator ${estimator} uses statistics of other groups, so shards cannot reproduce one run; score it unsharded`,
  );
}

interface PlainMerge {
  summary: Summary;
  /** The recomputed advantage per input line. */
  advantages: Map<number, number | null>;
}

/** Replays the plain traces of every shard (one spec) into one summary; see the module comment. */
function mergeRuns(
  spec: CompiledSpec,
  traces: readonly { file: string; trace: RunTrace }[],
  o: { inputName: string; map: Record<string, string>; labelField?: string; labelComponent?: string },
  elapsedSeconds: number,
): PlainMerge {
  const tally = new RunTally(spec, o);
  const rollouts = byLine(traces.map(({ file, trace }) => ({ file, items: trace.rollouts })));
  for (const { trace } of traces) {
    tally.records += trace.records;
    tally.malformed += trace.malformed;
    tally.addMapMisses(trace.mapMisses);
  }
  for (const { item } of rollouts) tally.replay(item);
  const adv = tally.advantages().advantages;
  const advantages = new Map<number, number | null>();
  rollouts.forEach(({ item: r, file }, k) => {
    const whole = nullable(adv[k]!);
    // ===, not Object.is: a shard's -0 was written (JSON) as 0
    if (whole !== r.advantage) throw advantageMismatch(file, r.line, spec.advantage.estimator.name, r.advantage, whole);
    advantages.set(r.line, whole);
  });
  const summary = tally.finish(elapsedSeconds, sumJudges(traces.map((t) => t.trace.judges)));
  return { summary, advantages };
}

/**
 * Merges the partial summaries of the N shards of one run into the summary of the unsharded run.
 * @param parts every shard's partial, checked with {@link checkPartials} (any order).
 * @param spec the run's spec, compiled (its hash must be the partials' `spec_hash`).
 * @throws {UserError} on a spec of another hash, a spec of the other kind (plain/routed) than the partials, shards
 *   that overlap, or advantages that the whole batch does not reproduce (an estimator with batch statistics).
 */
export function mergePartials(parts: readonly PartialFile[], spec: CompiledSpec | RoutedSpec): Summary | RoutedSummary {
  checkPartials(parts);
  const shard = parts[0]!.shard;
  if (spec.hash !== shard.spec_hash)
    throw new UserError(
      `spec ${spec.name} has hash ${spec.hash}, the partials were scored with ${shard.spec_hash} (${shard.spec}): merge with the spec they were scored with`,
    );
  const sorted = [...parts].sort((a, b) => a.shard.index - b.shard.index);
  const o = shard.options;
  const opts = {
    inputName: shard.input === "-" ? "<stdin>" : shard.input,
    map: o.map,
    ...(o.label !== null ? { labelField: o.label } : {}),
    ...(o.labelComponent !== null ? { labelComponent: o.labelComponent } : {}),
  };
  const elapsed = sorted.reduce((s, p) => s + p.elapsedSeconds, 0);
  if (!isRoutedSpec(spec)) {
    const plain = sorted.map((p) => {
      if (p.trace.kind !== "plain")
        throw new UserError(`${p.file}: a routed run's partial, but ${shard.spec} is not routed`);
      return { file: p.file, trace: p.trace };
    });
    return mergeRuns(spec, plain, opts, elapsed).summary;
  }
  const routed = sorted.map((p) => {
    if (p.trace.kind !== "routed") throw new UserError(`${p.file}: a plain run's partial, but ${shard.spec} is routed`);
    return { file: p.file, trace: p.trace };
  });
  return mergeRouted(spec, routed, opts, elapsed, sorted);
}

function mergeRouted(
  routed: RoutedSpec,
  parts: readonly { file: string; trace: RoutedTrace }[],
  o: { inputName: string; map: Record<string, string>; labelField?: string; labelComponent?: string },
  elapsed: number,
  files: readonly PartialFile[],
): RoutedSummary {
  const keys = [...routed.routes.keys()];
  for (const { file, trace } of parts) {
    const extra = Object.keys(trace.routes).filter((k) => !routed.routes.has(k));
    if (extra.length > 0) throw new UserError(`${file}: route ${extra[0]} is not in the spec's routes`);
  }
  // each route: its shards' traces replayed as one run of its sub-spec
  const summaries: Record<string, Summary> = {};
  const routeAdvantage = new Map<number, number | null>();
  for (const key of keys) {
    const spec = routed.routes.get(key)!;
    const traces = parts.flatMap(({ file, trace }) => (trace.routes[key] ? [{ file, trace: trace.routes[key] }] : []));
    if (traces.length === 0) {
      summaries[key] = emptySummary(spec);
      continue;
    }
    const seconds = files.reduce((s, p) => s + (p.routeSeconds[key] ?? 0), 0);
    const m = mergeRuns(
      spec,
      traces,
      { inputName: `route ${key}`, map: o.map, ...routeLabelOptions(spec, o) },
      seconds,
    );
    summaries[key] = m.summary;
    for (const [line, a] of m.advantages) routeAdvantage.set(line, a);
  }
  // the overall figures, from every routed rollout in input order
  const placed = byLine(parts.map(({ file, trace }) => ({ file, items: trace.rollouts })));
  const rows = placed.map((p) => p.item);
  const split = splitGroups(
    rows.map((r) => r.group),
    rows.map((r) => r.route),
  );
  const warnings: string[] = [];
  const sw = splitWarning(split);
  if (sw) warnings.push(sw);
  let wide: Float64Array | undefined;
  if (routed.advantage) {
    const stratumKey = batchStratumKey(routed);
    const b = batchWideAdvantages(
      routed,
      rows.map((r) => ({
        group: r.group,
        reward: r.reward,
        length: r.responseLength ?? NaN,
        ...(stratumKey !== undefined && r.stratum !== undefined ? { stratum: r.stratum } : {}),
      })),
    );
    wide = b.advantages;
    warnings.push(...b.warnings);
  }
  const tally = new RoutedTally(routed, keys);
  for (const { item: r, file } of placed)
    if (!routed.routes.has(r.route)) throw new UserError(`${file}: route ${r.route} is not in the spec's routes`);
  placed.forEach(({ item: r, file }, j) => {
    const whole = split.has(r.group) ? null : wide ? nullable(wide[j]!) : (routeAdvantage.get(r.line) ?? null);
    // ===, not Object.is: a shard's -0 was written (JSON) as 0
    if (whole !== r.advantage)
      throw advantageMismatch(
        file,
        r.line,
        routed.advantage ? routed.advantage.estimator.name : `of route ${r.route}`,
        r.advantage,
        whole,
      );
    tally.add(keys.indexOf(r.route), r.group, r.reward, whole, r.passed);
  });
  // unrouted values in the order one run meets them (first input line)
  const unrouted = { count: 0, values: {} as Record<string, number> };
  const first = new Map<string, number>();
  for (const { trace } of parts) {
    unrouted.count += trace.unrouted.count;
    for (const [v, line] of Object.entries(trace.unrouted.firstLine))
      first.set(v, Math.min(first.get(v) ?? line, line));
  }
  for (const [v] of [...first].sort((a, b) => a[1] - b[1]))
    unrouted.values[v] = parts.reduce((s, { trace }) => s + (trace.unrouted.values[v] ?? 0), 0);
  return tally.finish({
    summaries,
    malformed: parts.reduce((s, { trace }) => s + trace.malformed, 0),
    unrouted,
    warnings,
    elapsedSeconds: elapsed,
    inputName: o.inputName,
  });
}
