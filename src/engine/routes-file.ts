import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UserError } from "../core/errors.js";
import type { Summary } from "../diagnostics/summary.js";
import { getPath } from "../io/fields.js";
import { readLines } from "../io/jsonl.js";
import { OutputSet, openLineWriter } from "../io/output.js";
import type { LineWriter } from "../io/output.js";
import { toRollout } from "../io/rollout.js";
import { registerTemp, unregisterTemp } from "../io/temp.js";
import type { Problem } from "../spec/errors.js";
import { chooseRoute } from "../spec/routes.js";
import type { RoutedSpec } from "../spec/routes.js";
import type { CompiledSpec } from "../spec/types.js";
import { batchStratumKey, batchWideAdvantages, splitGroups, splitWarning } from "./routes.js";
import { responseLength } from "./scored-rows.js";
import type { ScoredRow } from "./scored-rows.js";
import { nullable } from "../advantage/compute.js";
import { preciseMembers } from "../io/precise.js";
import { emptySummary, RoutedTally } from "./routed-tally.js";
import { InputError, scoreFile } from "./score-file.js";
import type { ScoreFileOptions } from "./score-file.js";
import { InputDigest, ownsGroup, ownsMalformed } from "./shard.js";
import type { RoutedRollout, RoutedTrace, RunTrace } from "./trace.js";

export type { RoutedSummary } from "../diagnostics/routes.js";
import type { RoutedSummary } from "../diagnostics/routes.js";

/** The routing field's value as the `unrouted.values` key. */
function shownValue(v: unknown): string {
  return typeof v === "string" ? v : v === undefined ? "<missing>" : JSON.stringify(v);
}

/**
 * `--label` and `--label-component` for one route: given to the routes that have the label component (all routes
 * without `--label-component`), none to the others.
 */
export function routeLabelOptions(
  spec: CompiledSpec,
  o: { labelField?: string; labelComponent?: string },
): { labelField?: string; labelComponent?: string } {
  const labelOk = o.labelComponent === undefined || spec.components.some((c) => c.name === o.labelComponent);
  return o.labelField !== undefined && labelOk
    ? { labelField: o.labelField, ...(o.labelComponent !== undefined ? { labelComponent: o.labelComponent } : {}) }
    : {};
}

/**
 * `rewardkit score` with a routed spec. Three passes, memory bounded by numbers per rollout:
 * 1. the input is read once; each valid record goes, as its original text, to its route's temporary file (its line
 *    number kept); a record whose value has no route (and no default route) is reported through `onProblem` like a
 *    malformed line, naming the value, and skipped; malformed lines are reported with their own line numbers;
 * 2. each route's file is scored by {@link scoreFile} with the route's sub-spec (so a rollout is scored, staged and
 *    given its advantage exactly as that sub-spec alone would: same components, aggregate, schedules, group stages,
 *    advantage estimator over the route's rollouts); problems come back with the input's file and line;
 * 3. the routes' outputs are merged back into input order, each line with `"route": <key>` added (unless the record
 *    has a `route` field already); rollouts of a group that spans routes get `advantage: null` (and a warning).
 *
 * The summary has the overall figures (components keyed `<route>/<component>`; pass^k over every group, a rollout
 * passing by its own route's rule) and `routes.<key>`, a full summary per route. `--state` (performance schedules) is
 * per spec, so it is not
 * taken with routes.
 *
 * With `o.shard`, pass one keeps the shard's groups only (lines that are not rollouts: shard 0, see
 * `engine/shard.ts`); with `o.onTrace`, the routes' traces (their lines mapped back to the input's) and the overall
 * rollouts are handed over for `rewardkit merge`.
 * @throws {InputError} in strict mode (the first malformed or unrouted line); {@link UserError} for `--state`.
 */
export async function scoreRoutedFile(routed: RoutedSpec, o: ScoreFileOptions): Promise<RoutedSummary> {
  const t0 = performance.now();
  if (o.scheduleState || o.onScheduleState)
    throw new UserError(
      "--state: performance-schedule state is kept per spec; a routed spec does not take it (score each route's spec on its own to use it)",
    );
  const inputName = o.input === "-" ? "<stdin>" : o.input;
  const map = o.map ?? {};
  const keys = [...routed.routes.keys()];
  const dir = mkdtempSync(join(tmpdir(), "rewardkit-routes-"));
  registerTemp(dir);
  let malformed = 0;
  const unrouted = { count: 0, values: {} as Record<string, number> };
  const firstLine: Record<string, number> = {}; // per unrouted value, for merge to order the values as one run does
  const report = (p: Problem): void => {
    if (o.strict) throw new InputError(p);
    malformed++;
    o.onProblem?.(p);
  };
  // with a shard, a line that is not a rollout is shard 0's (MALFORMED_SHARD): the others skip it silently
  const malformedHere = ownsMalformed(o.shard);
  const reportMalformed = (p: Problem): void => {
    if (malformedHere) report(p);
  };
  const digest = o.shard ? new InputDigest() : undefined;
  const tracing = o.onTrace !== undefined;
  try {
    // ---- pass 1: split by route
    const writers: (LineWriter | undefined)[] = keys.map(() => undefined);
    const lineOf: number[][] = keys.map(() => []); // per route: input line of each local line
    const order: number[] = []; // route index per routed record, in input order
    const groups: string[] = [];
    const routeOf: (string | null)[] = [];
    const inputLines: number[] = []; // input line per routed record
    const lines = readLines(o.input, {
      onProblem: (line, message) => reportMalformed({ file: inputName, line, path: "", message }),
      ...(o.maxLineBytes !== undefined ? { maxLineBytes: o.maxLineBytes } : {}),
    });
    for await (const { line, text } of lines) {
      digest?.update(line, text);
      let record: unknown;
      try {
        record = JSON.parse(text);
      } catch (e) {
        reportMalformed({ file: inputName, line, path: "", message: `invalid JSON: ${(e as Error).message}` });
        continue;
      }
      const r = toRollout(record, line, map);
      if ("problem" in r) {
        reportMalformed({ file: inputName, line, path: r.problem.field, message: r.problem.message });
        continue;
      }
      if (!ownsGroup(o.shard, r.rollout.group)) continue;
      const value = getPath(r.rollout, routed.by);
      const c = chooseRoute(routed, value);
      if (!("key" in c)) {
        unrouted.count++;
        const v = shownValue(value);
        unrouted.values[v] = (unrouted.values[v] ?? 0) + 1;
        firstLine[v] ??= line;
        report({ file: inputName, line, path: c.field, message: c.message });
        continue;
      }
      const k = keys.indexOf(c.key);
      writers[k] ??= openLineWriter(join(dir, `route-${k}.jsonl`));
      await writers[k].write(text);
      lineOf[k]!.push(line);
      order.push(k);
      groups.push(r.rollout.group);
      routeOf.push(c.key);
      inputLines.push(line);
    }
    for (const w of writers) await w?.close();

    // ---- pass 2: each route alone
    const summaries: Record<string, Summary> = {};
    const traces: Record<string, RunTrace | null> = {};
    const skipped: Set<number>[] = keys.map(() => new Set());
    let done = 0;
    for (let k = 0; k < keys.length; k++) {
      const spec = routed.routes.get(keys[k]!)!;
      traces[keys[k]!] = null;
      if (!writers[k]) {
        summaries[keys[k]!] = emptySummary(spec);
        continue;
      }
      const remap = (p: Problem): Problem => ({
        ...p,
        file: inputName,
        line: p.line !== undefined ? (lineOf[k]![p.line - 1] ?? p.line) : p.line!,
      });
      try {
        const s = await scoreFile(spec, {
          input: join(dir, `route-${k}.jsonl`),
          output: join(dir, `scored-${k}.jsonl`),
          map,
          strict: o.strict ?? false,
          ...(o.maxLineBytes !== undefined ? { maxLineBytes: o.maxLineBytes } : {}),
          ...(o.concurrency !== undefined ? { concurrency: o.concurrency } : {}),
          ...(o.cacheSize !== undefined ? { cacheSize: o.cacheSize } : {}),
          ...routeLabelOptions(spec, o),
          onProblem: (p) => {
            if (p.line !== undefined) skipped[k]!.add(p.line);
            malformed++;
            o.onProblem?.(remap(p));
          },
          onProgress: (n) => o.onProgress?.(done + n),
          ...(tracing
            ? {
                onTrace: (t: RunTrace | RoutedTrace) => {
                  const trace = t as RunTrace; // a route's sub-spec is plain
                  for (const r of trace.rollouts) r.line = lineOf[k]![r.line - 1] ?? r.line;
                  traces[keys[k]!] = trace;
                },
              }
            : {}),
        });
        done += s.count;
        summaries[keys[k]!] = s;
      } catch (e) {
        if (e instanceof InputError) throw new InputError(remap(e.problem));
        throw e;
      }
    }

    // ---- pass 3: merge in input order (batch-wide advantages: a first merge collects the rows, a second writes)
    const split = splitGroups(groups, routeOf);
    const stratumKey = batchStratumKey(routed);
    /** Walks the routes' scored lines in input order: `each(text, parsed record, route index, input index)`. */
    const merge = async (
      each: (text: string, out: Record<string, unknown>, k: number, i: number) => Promise<void> | void,
    ): Promise<void> => {
      const readers = keys.map((_, k) =>
        writers[k]
          ? readLines(join(dir, `scored-${k}.jsonl`), { maxLineBytes: Number.MAX_SAFE_INTEGER })[Symbol.asyncIterator]()
          : undefined,
      );
      const local = keys.map(() => 0);
      for (let i = 0; i < order.length; i++) {
        const k = order[i]!;
        const localLine = ++local[k]!;
        if (skipped[k]!.has(localLine)) continue; // reported by the route's scoreFile
        const next = await readers[k]!.next();
        if (next.done) throw new Error(`route ${keys[k]}: its scored output ended early (internal error)`);
        await each(
          next.value.text,
          preciseMembers(JSON.parse(next.value.text), next.value.text, ["id", "group"]) as Record<string, unknown>,
          k,
          i,
        );
      }
    };
    let wide: Float64Array | undefined;
    const advantageWarnings: string[] = [];
    const rows: ScoredRow[] = [];
    if (routed.advantage) {
      await merge((_text, out, _k, i) => {
        rows.push({
          group: groups[i]!,
          reward: typeof out.reward === "number" ? out.reward : null,
          length: responseLength(
            getPath(out, map.completion_tokens ?? "completion_tokens"),
            getPath(out, map.completion ?? "completion"),
          ),
          ...(stratumKey !== undefined ? { stratum: getPath(out, stratumKey) } : {}),
        });
      });
      const b = batchWideAdvantages(routed, rows);
      wide = b.advantages;
      advantageWarnings.push(...b.warnings);
    }
    const toFile = o.output !== undefined && o.output !== "-";
    const outputs = o.outputs ?? new OutputSet();
    const writer = toFile
      ? openLineWriter(outputs.reserve(o.output!), { gzip: o.output!.endsWith(".gz") })
      : openLineWriter(undefined);
    const tally = new RoutedTally(routed, keys);
    const overall: RoutedRollout[] = [];
    try {
      let j = 0;
      await merge(async (text, out, k, i) => {
        const nullAdv = split.has(groups[i]!);
        if (wide || nullAdv) {
          out.advantage = nullAdv ? null : nullable(wide![j]!);
          text = JSON.stringify(out);
        }
        if (!("route" in out)) text = `${text.slice(0, -1)},"route":${JSON.stringify(keys[k])}}`;
        const rw = typeof out.reward === "number" ? out.reward : null;
        const adv = typeof out.advantage === "number" ? out.advantage : null;
        const passed = tally.passes(k, out.components);
        tally.add(k, groups[i]!, rw, adv, passed);
        if (tracing) {
          const row = rows[j];
          overall.push({
            line: inputLines[i]!,
            route: keys[k]!,
            group: groups[i]!,
            reward: rw,
            advantage: adv,
            passed,
            ...(row ? { responseLength: nullable(row.length ?? NaN) } : {}),
            ...(row && row.stratum !== undefined ? { stratum: row.stratum } : {}),
          });
        }
        j++;
        await writer.write(text);
      });
      await writer.close();
    } catch (e) {
      writer.destroy();
      if (!o.outputs) outputs.discard();
      throw e;
    }
    if (!o.outputs) outputs.commit();

    // ---- the overall summary
    const sw = splitWarning(split);
    const summary = tally.finish({
      summaries,
      malformed,
      unrouted,
      warnings: [...(sw ? [sw] : []), ...advantageWarnings],
      elapsedSeconds: (performance.now() - t0) / 1000,
      inputName,
      ...(o.shard ? { shard: o.shard } : {}),
    });
    o.onTrace?.(
      { kind: "routed", routes: traces, rollouts: overall, malformed, unrouted: { ...unrouted, firstLine } },
      digest ? { lines: digest.lines, digest: digest.digest() } : undefined,
    );
    return summary;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    unregisterTemp(dir);
  }
}
