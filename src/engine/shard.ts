import { createHash } from "node:crypto";
import type { Hash } from "node:crypto";
import { isRoutedSpec } from "../spec/routes.js";
import type { RoutedSpec } from "../spec/routes.js";
import type { CompiledSpec } from "../spec/types.js";

/**
 * Offline sharding (`rewardkit score --shard i/N`): which input lines a shard scores. A shard takes whole groups,
 * chosen by a stable hash of the group id alone, so the choice is the same on every run, on every machine, whatever
 * the line order and whichever other shards run; advantages are per group, so a shard writes exactly the rows an
 * unsharded run writes for its groups. `engine/merge.ts` puts the shards' partial summaries back together.
 */

/** Shard `index` of `count` (0 ≤ index < count). */
export interface Shard {
  index: number;
  count: number;
}

/** The shard that reports and counts every line that is not a rollout (unreadable, invalid JSON, no group …). */
export const MALFORMED_SHARD = 0;

/**
 * The shard of a group: FNV-1a (32-bit) of the group id's UTF-8 bytes, modulo `count`. The group id is the string
 * `toRollout` gives (`io/rollout.ts`): the `group` field as text (after `--map`), or the prompt's hash when a record
 * has no group, so rollouts without a group are sharded with the other rollouts of their prompt.
 *
 * Reproducible anywhere, e.g. in Python:
 * `h = 0x811C9DC5; for b in group.encode(): h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF; shard = h % count`.
 * Example: `shardOf("math-0", 4)` = 2.
 * @param count shards, an integer ≥ 1.
 * @returns an integer in [0, count).
 */
export function shardOf(group: string, count: number): number {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(group, "utf8")) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h % count;
}

/** Does `shard` score the rollouts of `group`? Without a shard, every group. */
export function ownsGroup(shard: Shard | undefined, group: string): boolean {
  return shard === undefined || shardOf(group, shard.count) === shard.index;
}

/** Does `shard` report and count the lines that are not rollouts ({@link MALFORMED_SHARD})? Without a shard, yes. */
export function ownsMalformed(shard: Shard | undefined): boolean {
  return shard === undefined || shard.index === MALFORMED_SHARD;
}

/**
 * Why a spec cannot be split into shards that merge into exactly the unsharded run, or `undefined` when it can:
 * a performance schedule learns from the results of earlier steps (each shard would learn from its own groups only),
 * and an estimator with batch statistics (whitening, a batch std …) normalizes over every group of the batch.
 * Estimators that do not declare `batchStatistics` (plugins) pass here; `rewardkit merge` checks their advantages.
 */
export function shardRefusal(spec: CompiledSpec | RoutedSpec): string | undefined {
  const batchWide = (a: CompiledSpec["advantage"], who: string): string | undefined => {
    const why = a.estimator.batchStatistics?.(a.options);
    return why === undefined
      ? undefined
      : `${who}advantage estimator ${a.estimator.name}: ${why}, so a shard's advantages would differ from the whole run's (score unsharded, or shard with an estimator without batch statistics, e.g. grpo)`;
  };
  const specs: [string, CompiledSpec][] = isRoutedSpec(spec)
    ? [...spec.routes].map(([k, s]) => [`route ${k}: `, s])
    : [["", spec]];
  for (const [where, s] of specs) {
    const perf = s.schedules.find((x) => x.tracks !== undefined);
    if (perf)
      return `${where}${perf.path} has a performance schedule, which learns from the results of every group as the run goes: independent shards would each learn from their own groups only (score it unsharded)`;
    const why = batchWide(s.advantage, where);
    if (why !== undefined) return why;
  }
  return isRoutedSpec(spec) && spec.advantage ? batchWide(spec.advantage, "the routed spec's ") : undefined;
}

/**
 * A fingerprint of the input every shard reads (SHA-256 of each readable line's number and text), so that `merge`
 * can refuse partial summaries of different inputs even when their paths differ or match by chance.
 */
export class InputDigest {
  private readonly hash: Hash = createHash("sha256");
  /** Lines seen. */
  lines = 0;

  /** Adds one line (1-based number, text without its line break). */
  update(line: number, text: string): void {
    this.lines++;
    this.hash.update(`${line}\n${text}\n`);
  }

  /** `sha256:<hex>`; call once, after the last line. */
  digest(): string {
    return `sha256:${this.hash.digest("hex")}`;
  }
}
