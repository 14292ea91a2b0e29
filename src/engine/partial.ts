import { readFileSync } from "node:fs";
import { z } from "zod";
import { UserError } from "../core/errors.js";
import { formatPath } from "../core/problem.js";
import type { Summary } from "../diagnostics/summary.js";
import { validate } from "../spec/issues.js";
import type { InputFingerprint, RoutedTrace, RunTrace } from "./trace.js";

/**
 * The partial summary a shard writes (`rewardkit score --shard i/N --summary s_i.json`): the summary of the shard's
 * own rollouts, as an unsharded run writes it, plus
 * - `shard`: which shard of which run (`format`, `index`, `count`, the spec and its hash, the input and its
 *   fingerprint, the flags that shape a summary), so that `rewardkit merge` can refuse partials that do not belong
 *   together;
 * - `partial`: the run's trace (`engine/trace.ts`), one rollout per line, which `merge` replays.
 */

/** The `format` of a partial summary this version writes and reads. */
export const PARTIAL_FORMAT = "rewardkit-partial-summary/1";

/** The flags of `score` that shape a summary; every shard of a run must have the same. */
export interface ShardOptions {
  map: Record<string, string>;
  label: string | null;
  labelComponent: string | null;
  maxLineBytes: number;
}

/** The `shard` block of a partial summary. */
export interface ShardInfo {
  format: typeof PARTIAL_FORMAT;
  /** 0 ≤ index < count. */
  index: number;
  count: number;
  /** The spec file as given to `score`, and its hash. */
  spec: string;
  spec_hash: string;
  /** The input as given to `score` (`-`: stdin), its readable lines and their digest (`sha256:…`). */
  input: string;
  input_lines: number;
  input_digest: string;
  options: ShardOptions;
}

/** A partial summary read back: its file, the shard block, the trace, and the shard's own timings. */
export interface PartialFile {
  file: string;
  shard: ShardInfo;
  trace: RunTrace | RoutedTrace;
  /** The shard's `elapsedSeconds`, and each route's (routed runs). */
  elapsedSeconds: number;
  routeSeconds: Record<string, number>;
}

/** The `shard` block of a shard's partial summary. */
export function shardInfo(a: {
  index: number;
  count: number;
  spec: string;
  specHash: string;
  input: string;
  fingerprint: InputFingerprint;
  options: ShardOptions;
}): ShardInfo {
  return {
    format: PARTIAL_FORMAT,
    index: a.index,
    count: a.count,
    spec: a.spec,
    spec_hash: a.specHash,
    input: a.input,
    input_lines: a.fingerprint.lines,
    input_digest: a.fingerprint.digest,
    options: a.options,
  };
}

/** An array of traced rollouts, one per line (a partial of a million rollouts stays readable with `less`). */
function rolloutLines(xs: readonly unknown[]): string {
  return xs.length === 0 ? "[]" : `[\n${xs.map((x) => JSON.stringify(x)).join(",\n")}\n]`;
}

function traceText(t: RunTrace | RoutedTrace): string {
  if (t.kind === "plain") {
    const { rollouts, ...rest } = t;
    return `${JSON.stringify(rest).slice(0, -1)},"rollouts":${rolloutLines(rollouts)}}`;
  }
  const { routes, rollouts, ...rest } = t;
  const routesText = Object.entries(routes)
    .map(([k, r]) => `${JSON.stringify(k)}:${r ? traceText(r) : "null"}`)
    .join(",\n");
  return `${JSON.stringify(rest).slice(0, -1)},"routes":{${routesText}},"rollouts":${rolloutLines(rollouts)}}`;
}

/**
 * The text of a partial summary: the shard's summary and `shard` block pretty-printed, then `partial` (the trace),
 * one rollout per line.
 */
export function partialSummaryText(summary: Summary, shard: ShardInfo, trace: RunTrace | RoutedTrace): string {
  const head = JSON.stringify({ ...summary, shard }, null, 2); // ends with "\n}"
  return `${head.slice(0, -2)},\n  "partial": ${traceText(trace)}\n}\n`;
}

// ---- reading

const result = z.object({
  score: z.number().nullable(),
  reason: z.string().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});
const line = z.number().int().positive();
const traced = z.object({
  line,
  group: z.string(),
  reward: z.number().nullable(),
  advantage: z.number().nullable(),
  results: z.array(result),
  thresholds: z.array(z.number()).optional(),
  length: z.number(),
  step: z.number(),
  responseLength: z.number().nullable(),
  stratum: z.unknown().optional(),
  label: z
    .object({ value: z.boolean().nullable(), id: z.string().optional(), reference: z.unknown().optional() })
    .optional(),
});
const count = z.number().int().nonnegative();
const usage = z.object({
  calls: z.number(),
  retries: z.number(),
  failures: z.number(),
  timeouts: z.number(),
  cacheHits: z.number(),
  promptTokens: z.number(),
  completionTokens: z.number(),
  cost: z.number(),
});
const runTrace = z.object({
  kind: z.literal("plain"),
  rollouts: z.array(traced),
  records: count,
  malformed: count,
  mapMisses: z.record(z.string(), count),
  judges: z.record(z.string(), usage),
});
const routedTrace = z.object({
  kind: z.literal("routed"),
  routes: z.record(z.string(), runTrace.nullable()),
  rollouts: z.array(
    z.object({
      line,
      route: z.string(),
      group: z.string(),
      reward: z.number().nullable(),
      advantage: z.number().nullable(),
      passed: z.boolean(),
      responseLength: z.number().nullable().optional(),
      stratum: z.unknown().optional(),
    }),
  ),
  malformed: count,
  unrouted: z.object({
    count,
    values: z.record(z.string(), count),
    firstLine: z.record(z.string(), line),
  }),
});
const shardBlock = z.object({
  format: z.literal(PARTIAL_FORMAT),
  index: count,
  count: z.number().int().positive(),
  spec: z.string(),
  spec_hash: z.string(),
  input: z.string(),
  input_lines: count,
  input_digest: z.string(),
  options: z.object({
    map: z.record(z.string(), z.string()),
    label: z.string().nullable(),
    labelComponent: z.string().nullable(),
    maxLineBytes: z.number(),
  }),
});
const partialFile = z.object({
  elapsedSeconds: z.number().optional(),
  routes: z.record(z.string(), z.object({ elapsedSeconds: z.number().optional() }).loose()).optional(),
  shard: shardBlock,
  partial: z.discriminatedUnion("kind", [runTrace, routedTrace]),
});

/**
 * Reads a partial summary written by `rewardkit score --shard i/N --summary <file>`.
 * @throws {UserError} naming the file (and the field) when it cannot be read, is not JSON, is not a partial summary
 *   (an unsharded summary has no `shard` block), was written by another format version, or is malformed.
 */
export function readPartial(file: string): PartialFile {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code !== undefined) throw new UserError(`${file}: ${err.message}`);
    throw new UserError(`${file}: not JSON (${err.message})`);
  }
  if (data === null || typeof data !== "object" || Array.isArray(data))
    throw new UserError(`${file}: not a partial summary (expected a JSON object)`);
  const o = data as Record<string, unknown>;
  if (!("shard" in o) || !("partial" in o))
    throw new UserError(
      `${file}: not a partial summary (no "shard" and "partial" blocks): write one per shard with rewardkit score --shard i/N --summary <file>`,
    );
  const format = (o.shard as { format?: unknown } | null)?.format;
  if (format !== PARTIAL_FORMAT)
    throw new UserError(
      `${file}: shard.format is ${JSON.stringify(format)}, this rewardkit reads ${JSON.stringify(PARTIAL_FORMAT)} (score the shards and merge with one version)`,
    );
  const r = validate(partialFile, data, [], "field");
  if ("issues" in r) {
    const shown = r.issues.slice(0, 3).map((i) => `${formatPath(i.path)}: ${i.message}`);
    throw new UserError(
      `${file}: not a valid partial summary: ${shown.join("; ")}${r.issues.length > 3 ? ` (and ${r.issues.length - 3} more)` : ""}`,
    );
  }
  const d = r.data;
  if (d.shard.index >= d.shard.count)
    throw new UserError(`${file}: shard.index ${d.shard.index} is not below shard.count ${d.shard.count}`);
  return {
    file,
    shard: d.shard,
    trace: d.partial,
    elapsedSeconds: d.elapsedSeconds ?? 0,
    routeSeconds: Object.fromEntries(Object.entries(d.routes ?? {}).map(([k, s]) => [k, s.elapsedSeconds ?? 0])),
  };
}
