import { buildGroupIndex, fnv1a, fnv1aOfInteger, StringIds } from "./groups.js";
import type { GroupIndex } from "./groups.js";
import { presetOptions } from "./presets.js";
import { estimatorNames, getEstimator } from "./registry.js";
import type { AdvantageInput, EstimatorDefinition } from "./types.js";

/**
 * Runs an estimator over a batch given per-rollout rewards and dense group ids.
 * @param rewards shape [n], NaN for null rewards.
 * @param groupIds shape [n], dense ids in [0, G).
 * @returns advantages, shape [n], NaN where undefined (null reward).
 */
export function computeAdvantages(
  estimator: EstimatorDefinition<unknown>,
  options: unknown,
  rewards: Float64Array,
  groupIds: ArrayLike<number>,
  extra: Omit<AdvantageInput, "rewards" | "groups"> = {},
): Float64Array {
  return estimator.compute({ rewards, groups: buildGroupIndex(groupIds), ...extra }, options);
}

/** NaN → null for JSON output. */
export function nullable(x: number): number | null {
  return Number.isNaN(x) ? null : x;
}

/** Options of {@link advantages}. */
export interface AdvantagesOptions {
  /** Estimator name (default `grpo`). */
  estimator?: string;
  /** A peer preset for the estimator (`verl`, `trl`, `openrlhf`, `nemo`, `open-instruct` …). */
  preset?: string;
  /** Estimator options; they override the preset's. */
  options?: Record<string, unknown>;
}

/** A batch for {@link advantages}: plain arrays accepted, `null` = null reward. */
export interface AdvantagesBatch {
  /** Reward per rollout, shape [n] (a Float64Array with NaN for null is used without a copy). */
  rewards: ArrayLike<number | null>;
  /** Group key per rollout (prompt id), shape [n]. */
  groups: ArrayLike<string | number>;
  /** Component scores by name, each shape [n] (null = unscorable). */
  components?: Record<string, ArrayLike<number | null>>;
  /** Response length per rollout, shape [n]. */
  lengths?: ArrayLike<number>;
  /** Stratum key per rollout, shape [n] (for `stratified`). */
  strata?: ArrayLike<string | number>;
}

/**
 * Conversion buffers of {@link advantages}, one per input column (rewards, lengths, each component by position),
 * kept between calls and grown to the largest batch seen. A trainer calls `advantages()` once per step on batches
 * of about one size: a fresh 8 MB typed array per column costs its page faults every call (more than the copy
 * itself), a kept one only the copy. Estimators only read their input and never return it, so a buffer is free
 * again when `advantages()` returns; the result is always a fresh array.
 */
const scratch: Float64Array[] = [];

/**
 * Float64Array of `xs` with null/undefined → NaN, in conversion buffer `slot`; a Float64Array is used as is
 * (estimators never write their input).
 */
function toF64(xs: ArrayLike<number | null>, slot: number): Float64Array {
  if (xs instanceof Float64Array) return xs;
  const n = xs.length;
  let buf = scratch[slot];
  if (buf === undefined || buf.length < n) buf = scratch[slot] = new Float64Array(n);
  const out = buf.length === n ? buf : buf.subarray(0, n);
  for (let i = 0; i < n; i++) {
    const v = xs[i];
    out[i] = v === null || v === undefined ? NaN : v;
  }
  return out;
}

/**
 * Group index from keys (compared as strings: 1 and "1" are one group), dense ids in order of first appearance.
 * A run of equal keys costs one comparison per rollout, not a hash lookup. When every group's rollouts are
 * contiguous (the usual batch), the index is the runs themselves: one pass finds where runs start, a second hashes
 * one key per run into a table sized for that count to prove that no key starts two runs. Otherwise a key comes
 * back after another one and the general index is built ({@link buildGroupIndex}, a counting sort).
 */
export function groupIndexOf(keys: ArrayLike<string | number>): GroupIndex {
  const n = keys.length;
  // run starts in a typed array kept between calls (a fresh 4 MB one per million-rollout call cost its page faults),
  // not a growing JS array: the JS heap garbage of a million-rollout call makes the collector walk the caller's arrays
  if (startsScratch.length < n + 1) startsScratch = new Int32Array(Math.max(n + 1, 2 * startsScratch.length));
  const starts = startsScratch;
  let count = 0;
  let prev: string | number | undefined;
  for (let i = 0; i < n; i++) {
    const k = keys[i]!;
    if (k === prev) continue;
    starts[count++] = i;
    prev = k;
  }
  if (!distinctRuns(keys, starts, count)) return buildGroupIndex(denseIds(keys));
  starts[count] = n;
  return { order: identityOrder(n), offsets: starts.slice(0, count + 1), count, identity: true };
}

/**
 * Whether the keys at `starts[0..count)` are distinct as strings: FNV-1a hashes in an open-addressing table of at
 * least twice `count` slots (sized once: no regrowth), strings compared only when hashes are equal.
 */
function distinctRuns(keys: ArrayLike<string | number>, starts: Int32Array, count: number): boolean {
  let size = 16;
  while (size < 2 * count) size *= 2;
  const mask = size - 1;
  const table = new Int32Array(size); // run + 1; 0 = empty
  const hashes = new Int32Array(count);
  for (let g = 0; g < count; g++) {
    const k = keys[starts[g]!]!;
    const h = typeof k === "number" && Number.isSafeInteger(k) ? fnv1aOfInteger(k) : fnv1a(String(k));
    hashes[g] = h;
    let slot = h & mask;
    for (;;) {
      const e = table[slot]!;
      if (e === 0) {
        table[slot] = g + 1;
        break;
      }
      if (hashes[e - 1] === h && String(keys[starts[e - 1]!]!) === String(k)) return false;
      slot = (slot + 1) & mask;
    }
  }
  return true;
}

/** Group starts of {@link groupIndexOf}, grown to the largest batch seen; the index gets a copy of its part. */
let startsScratch = new Int32Array(0);

let identity = new Int32Array(0);
/** [0, 1, …, n − 1], shared (estimators never write a GroupIndex): contiguous batches cost no order array. */
function identityOrder(n: number): Int32Array {
  if (identity.length < n) {
    identity = new Int32Array(Math.max(n, 2 * identity.length));
    for (let i = 0; i < identity.length; i++) identity[i] = i;
  }
  return identity.subarray(0, n);
}

/** Dense ids of `keys` (compared as strings), in order of first appearance; a run of equal keys costs one comparison. */
function denseIds(keys: ArrayLike<string | number>): Int32Array {
  const ids = new StringIds(Math.min(keys.length, 1024));
  const out = new Int32Array(keys.length);
  let prev: string | number | undefined;
  let id = -1;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (k !== prev) {
      id = ids.idOf(typeof k === "string" ? k : String(k));
      prev = k;
    }
    out[i] = id;
  }
  return out;
}

/**
 * Library entry point: advantages for a batch, by estimator name, preset and options.
 * @example advantages({ rewards: [1, 0, 0, 1], groups: ["p", "p", "p", "p"] }, { estimator: "grpo", preset: "verl" })
 * @returns advantages, shape [n] (NaN where the reward is null or the rollout was filtered out).
 * @throws Error on an unknown estimator or preset, invalid options, or a missing input the estimator needs.
 */
export function advantages(batch: AdvantagesBatch, o: AdvantagesOptions = {}): Float64Array {
  const name = o.estimator ?? "grpo";
  const est = getEstimator(name);
  if (!est) throw new Error(`unknown estimator "${name}"; known: ${estimatorNames().join(", ")}`);
  const raw = { ...(o.preset ? presetOptions(est.name, o.preset) : {}), ...(o.options ?? {}) };
  const parsed = est.options.safeParse(raw);
  if (!parsed.success)
    throw new Error(
      `estimator ${est.name} options: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  const n = batch.rewards.length;
  for (const [what, xs] of [
    ["groups", batch.groups],
    ["lengths", batch.lengths],
    ["strata", batch.strata],
    ...Object.entries(batch.components ?? {}),
  ] as const) {
    if (xs && xs.length !== n) throw new RangeError(`${what}: length ${xs.length}, expected ${n}`);
  }
  const input: AdvantageInput = { rewards: toF64(batch.rewards, 0), groups: groupIndexOf(batch.groups) };
  // convert only what the estimator reads (a caller may hand every column to every estimator)
  const reads = new Set([...(est.needs ?? []), ...(est.uses ?? [])]);
  if (batch.components && reads.has("components"))
    input.components = {
      names: Object.keys(batch.components),
      scores: Object.values(batch.components).map((c, k) => toF64(c, 2 + k)),
    };
  if (batch.lengths) input.lengths = toF64(batch.lengths, 1);
  if (batch.strata && reads.has("strata")) input.strata = denseIds(batch.strata);
  return est.compute(input, parsed.data);
}
