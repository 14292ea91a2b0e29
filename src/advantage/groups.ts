/**
 * Contiguous group segments over a batch, built once and shared by every estimator.
 * `order[offsets[g] .. offsets[g+1])` are the batch positions of group g, in input order.
 */
export interface GroupIndex {
  /** Batch positions sorted by group (stable). Length = batch size. */
  order: Int32Array;
  /** Segment starts into `order`; length = number of groups + 1. */
  offsets: Int32Array;
  /** Number of groups. */
  count: number;
  /** True when `order` is the identity (each group's rollouts are already contiguous, in order): estimators skip the indirection. */
  identity?: boolean;
}

/**
 * Builds a {@link GroupIndex} from a dense group id per rollout (0 … G−1), by counting sort: O(n + G).
 * @param groupIds group id per batch position; every id must be an integer in [0, G).
 * @throws RangeError on a negative or non-integer id.
 */
export function buildGroupIndex(groupIds: ArrayLike<number>): GroupIndex {
  const n = groupIds.length;
  let g = 0;
  for (let i = 0; i < n; i++) {
    const id = groupIds[i]!;
    if (!Number.isInteger(id) || id < 0)
      throw new RangeError(`group id at ${i} must be a non-negative integer, got ${id}`);
    if (id + 1 > g) g = id + 1;
  }
  const offsets = new Int32Array(g + 1);
  for (let i = 0; i < n; i++) offsets[groupIds[i]! + 1]!++;
  for (let k = 0; k < g; k++) offsets[k + 1]! += offsets[k]!;
  const fill = offsets.slice(0, g);
  const order = new Int32Array(n);
  let identity = true;
  for (let i = 0; i < n; i++) {
    const at = fill[groupIds[i]!]!++;
    order[at] = i;
    if (at !== i) identity = false;
  }
  return { order, offsets, count: g, identity };
}

/** Maps string group keys to dense ids in order of first appearance. */
export class GroupIds {
  private readonly ids = new Map<string, number>();
  /** Dense id of `key`, assigning the next id on first sight. */
  idOf(key: string): number {
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(key, id);
    }
    return id;
  }
  get size(): number {
    return this.ids.size;
  }
}

/** Statistics of the non-null (non-NaN) rewards of one group. */
export interface SegmentStats {
  /** Number of non-null values. */
  n: number;
  mean: number;
  /** Sum of squared deviations from the mean (n·population variance). */
  m2: number;
}

/** Mean and squared deviations of `values` at `order[start..end)`, skipping NaN (null rewards). Two-pass for accuracy. */
export function segmentStats(values: Float64Array, order: Int32Array, start: number, end: number): SegmentStats {
  let n = 0;
  let sum = 0;
  for (let k = start; k < end; k++) {
    const v = values[order[k]!]!;
    if (!Number.isNaN(v)) {
      n++;
      sum += v;
    }
  }
  const mean = n > 0 ? sum / n : NaN;
  let m2 = 0;
  for (let k = start; k < end; k++) {
    const v = values[order[k]!]!;
    if (!Number.isNaN(v)) m2 += (v - mean) * (v - mean);
  }
  return { n, mean, m2 };
}

/**
 * Refines `groups` by a second key (strata nested inside groups): one sub-group per (group, stratum) pair present.
 * @param strata dense stratum id per rollout, shape [n].
 * @returns the sub-groups' index and each rollout's sub-group id, shape [n].
 */
export function refineGroups(groups: GroupIndex, strata: Int32Array): { index: GroupIndex; ids: Int32Array } {
  const n = strata.length;
  const ids = new Int32Array(n);
  const seen = new Map<number, number>();
  let S = 1;
  for (let i = 0; i < n; i++) if (strata[i]! + 1 > S) S = strata[i]! + 1;
  for (let g = 0; g < groups.count; g++) {
    for (let k = groups.offsets[g]!; k < groups.offsets[g + 1]!; k++) {
      const i = groups.order[k]!;
      const key = g * S + strata[i]!;
      let id = seen.get(key);
      if (id === undefined) seen.set(key, (id = seen.size));
      ids[i] = id;
    }
  }
  return { index: buildGroupIndex(ids), ids };
}

/**
 * 32-bit FNV-1a (Fowler–Noll–Vo) of a string's UTF-16 code units, as a signed int32: the hash of {@link StringIds}
 * and of `advantage/compute.ts`'s run check. (Shards hash UTF-8 bytes instead: `engine/shard.ts:shardOf`.)
 */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}

const digits = new Uint8Array(20);
/**
 * {@link fnv1a} of `String(k)` for a safe integer `k` (`Number.isSafeInteger`), without making the string: a batch
 * keyed by numeric ids hashes them as the strings they equal (1 and "1" are one group).
 */
export function fnv1aOfInteger(k: number): number {
  let h = 0x811c9dc5;
  if (k < 0) {
    h = Math.imul(h ^ 45 /* - */, 0x01000193);
    k = -k;
  }
  let d = 0;
  do {
    digits[d++] = 48 + (k % 10);
    k = Math.floor(k / 10);
  } while (k > 0);
  while (d > 0) h = Math.imul(h ^ digits[--d]!, 0x01000193);
  return h;
}

/**
 * Dense ids for string keys in order of first appearance, by an open-addressing table over an FNV-1a hash of the
 * key's characters. For a million fresh key strings (a parsed batch's group ids) it is several times faster than a
 * `Map`, whose per-insert cost dominated `advantages()` on string groups.
 */
export class StringIds {
  private readonly keys: string[] = [];
  private hashes: Int32Array;
  private table: Int32Array;
  private mask: number;

  /**
   * @param capacity keys expected (a hint: the table grows past it). Small by default: a one-rollout request of the
   *   server builds one of these per request, and a large table per request cost more than its whole advantage.
   */
  constructor(capacity = 8) {
    let size = 16;
    while (size < 2 * capacity) size *= 2;
    this.hashes = new Int32Array(size >> 1);
    this.table = new Int32Array(size).fill(-1);
    this.mask = size - 1;
  }

  /** Number of distinct keys seen. */
  get size(): number {
    return this.keys.length;
  }

  /** Dense id of `key`, assigning the next id on first sight. */
  idOf(key: string): number {
    const h = fnv1a(key);
    let slot = h & this.mask;
    for (;;) {
      const id = this.table[slot]!;
      if (id < 0) break;
      if (this.hashes[id] === h && this.keys[id] === key) return id;
      slot = (slot + 1) & this.mask;
    }
    const id = this.keys.length;
    this.keys.push(key);
    if (id >= this.hashes.length) {
      const grown = new Int32Array(this.hashes.length * 2);
      grown.set(this.hashes);
      this.hashes = grown;
    }
    this.hashes[id] = h;
    this.table[slot] = id;
    if (2 * this.keys.length > this.mask) this.grow();
    return id;
  }

  private grow(): void {
    this.mask = this.mask * 2 + 1;
    this.table = new Int32Array(this.mask + 1).fill(-1);
    for (let id = 0; id < this.keys.length; id++) {
      let slot = this.hashes[id]! & this.mask;
      while (this.table[slot]! >= 0) slot = (slot + 1) & this.mask;
      this.table[slot] = id;
    }
  }
}
