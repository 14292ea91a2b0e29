import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildGroupIndex, segmentStats, StringIds } from "../advantage/groups.js";
import { UserError } from "../core/errors.js";
import { RunningStats, round6 } from "../diagnostics/stats.js";
import { passHatKOf, SummaryBuilder } from "../diagnostics/summary.js";
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
import { InputError, scoreFile } from "./score-file.js";
import type { ScoreFileOptions } from "./score-file.js";

export type { RoutedSummary } from "../diagnostics/routes.js";
import type { RoutedSummary } from "../diagnostics/routes.js";

/** An empty summary of a route no rollout reached (count 0), so every route is listed. */
function emptySummary(spec: CompiledSpec): Summary {
  const none = new Float64Array(0);
  return new SummaryBuilder(spec).finish({
    rewards: none,
    groupIds: new Int32Array(0),
    advantages: none,
    malformed: 0,
    elapsedSeconds: 0,
  });
}

/** The routing field's value as the `unrouted.values` key. */
function shownValue(v: unknown): string {
  return typeof v === "string" ? v : v === undefined ? "<missing>" : JSON.stringify(v);
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
  const report = (p: Problem): void => {
    if (o.strict) throw new InputError(p);
    malformed++;
    o.onProblem?.(p);
  };
  try {
    // ---- pass 1: split by route
    const writers: (LineWriter | undefined)[] = keys.map(() => undefined);
    const lineOf: number[][] = keys.map(() => []); // per route: input line of each local line
    const order: number[] = []; // route index per routed record, in input order
    const groups: string[] = [];
    const routeOf: (string | null)[] = [];
    const lines = readLines(o.input, {
      onProblem: (line, message) => report({ file: inputName, line, path: "", message }),
      ...(o.maxLineBytes !== undefined ? { maxLineBytes: o.maxLineBytes } : {}),
    });
    for await (const { line, text } of lines) {
      let record: unknown;
      try {
        record = JSON.parse(text);
      } catch (e) {
        report({ file: inputName, line, path: "", message: `invalid JSON: ${(e as Error).message}` });
        continue;
      }
      const r = toRollout(record, line, map);
      if ("problem" in r) {
        report({ file: inputName, line, path: r.problem.field, message: r.problem.message });
        continue;
      }
      const value = getPath(r.rollout, routed.by);
      const c = chooseRoute(routed, value);
      if (!("key" in c)) {
        unrouted.count++;
        const v = shownValue(value);
        unrouted.values[v] = (unrouted.values[v] ?? 0) + 1;
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
    }
    for (const w of writers) await w?.close();

    // ---- pass 2: each route alone
    const summaries: Record<string, Summary> = {};
    const skipped: Set<number>[] = keys.map(() => new Set());
    let done = 0;
    for (let k = 0; k < keys.length; k++) {
      const spec = routed.routes.get(keys[k]!)!;
      if (!writers[k]) {
        summaries[keys[k]!] = emptySummary(spec);
        continue;
      }
      const labelOk = o.labelComponent === undefined || spec.components.some((c) => c.name === o.labelComponent);
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
          ...(o.labelField !== undefined && labelOk
            ? {
                labelField: o.labelField,
                ...(o.labelComponent !== undefined ? { labelComponent: o.labelComponent } : {}),
              }
            : {}),
          onProblem: (p) => {
            if (p.line !== undefined) skipped[k]!.add(p.line);
            malformed++;
            o.onProblem?.(remap(p));
          },
          onProgress: (n) => o.onProgress?.(done + n),
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
    if (routed.advantage) {
      const rows: ScoredRow[] = [];
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
    const rewards: number[] = [];
    const advantages: number[] = [];
    const gids: number[] = [];
    const ids = new StringIds();
    const reward = new RunningStats();
    let nullRewards = 0;
    const passed: boolean[] = [];
    const passRules = keys.map((key) => passRule(routed.routes.get(key)!));
    const routeNulls = keys.map(() => 0);
    try {
      let j = 0;
      await merge(async (text, out, k, i) => {
        const nullAdv = split.has(groups[i]!);
        if (wide || nullAdv) {
          out.advantage = nullAdv ? null : nullable(wide![j]!);
          text = JSON.stringify(out);
        }
        j++;
        if (!("route" in out)) text = `${text.slice(0, -1)},"route":${JSON.stringify(keys[k])}}`;
        const rw = typeof out.reward === "number" ? out.reward : null;
        if (rw === null) nullRewards++;
        else reward.push(rw);
        rewards.push(rw ?? NaN);
        advantages.push(typeof out.advantage === "number" ? out.advantage : NaN);
        if (typeof out.advantage !== "number") routeNulls[k]!++;
        gids.push(ids.idOf(groups[i]!));
        passed.push(passRules[k]!(out.components));
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
    const rewardArr = Float64Array.from(rewards);
    const gi = buildGroupIndex(Int32Array.from(gids));
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
            nullCount: routeNulls[k]!,
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
    const sw = splitWarning(split);
    if (sw) warnings.push(sw);
    warnings.push(...advantageWarnings);
    if (unrouted.count > 0) {
      const vs = Object.entries(unrouted.values).map(([v, n]) => `${JSON.stringify(v)} (${n})`);
      warnings.push(
        `${unrouted.count} rollouts had no route (${routed.by}: ${vs.slice(0, 8).join(", ")}${vs.length > 8 ? " …" : ""}) and were skipped; add a route or a default route`,
      );
    }
    const passHatK = passHatKOf(gi, passed);
    const elapsed = (performance.now() - t0) / 1000;
    const count = rewards.length;
    const estimators = [
      ...new Set(keys.filter((k) => summaries[k]!.count > 0).map((k) => summaries[k]!.advantage.estimator)),
    ];
    const summary: RoutedSummary = {
      spec: { name: routed.name, hash: routed.hash },
      count,
      malformed,
      ...(warnings.length > 0 ? { warnings } : {}),
      reward: {
        mean: reward.n > 0 ? round6(reward.mean) : null,
        std: reward.n > 0 ? round6(reward.std) : null,
        min: reward.n > 0 ? round6(reward.min) : null,
        max: reward.n > 0 ? round6(reward.max) : null,
        nullCount: nullRewards,
      },
      components,
      groups: { count: gi.count, singletons, zeroVarianceFraction: multi > 0 ? round6(zeroVar / multi) : null },
      advantage: {
        estimator: routed.advantage
          ? `${routed.advantage.estimator.name} (batch-wide, over every route)`
          : `per route: ${estimators.join(", ") || "none"}`,
        nullCount: advantages.reduce((m, a) => m + (Number.isNaN(a) ? 1 : 0), 0),
      },
      ...(passHatK ? { passHatK } : {}),
      ...(Object.keys(judges).length > 0 ? { judges } : {}),
      elapsedSeconds: round6(elapsed)!,
      rolloutsPerSecond: elapsed > 0 ? Math.round(count / elapsed) : 0,
      routes: summaries,
      unrouted,
    };
    if (count === 0 && malformed === 0)
      summary.warnings = [...warnings, `${inputName}: the input has no records: nothing was scored`];
    return summary;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    unregisterTemp(dir);
  }
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
