/**
 * A bounded cache with approximately least-recently-used eviction, O(1) per operation.
 *
 * Two generations of `Map`s: new and refreshed entries go into `hot`; when `hot` holds half the capacity it
 * becomes `cold` and the old `cold` is dropped whole; a hit in `cold` is promoted back into `hot`. So at most
 * `capacity` entries are held, and an entry survives as long as it is used at least once per half-capacity
 * insertions. (Evicting the oldest key of a single `Map` one at a time — `map.delete(map.keys().next().value)` —
 * degrades to tens of microseconds per insert in V8 once the map is full: the iterator walks the deleted slots.)
 * Counts hits and misses for summaries and `/metrics`.
 */
export class BoundedCache<V> {
  private hot = new Map<string, V>();
  private cold = new Map<string, V>();
  private readonly half: number;
  hits = 0;
  misses = 0;

  /** @param capacity maximum entries held (0 disables the cache). */
  constructor(readonly capacity: number) {
    this.half = Math.max(1, Math.floor(capacity / 2));
  }

  /** The cached value (refreshing it), or `undefined`. */
  get(key: string): V | undefined {
    let v = this.hot.get(key);
    if (v === undefined) {
      v = this.cold.get(key);
      if (v === undefined) {
        this.misses++;
        return undefined;
      }
      this.cold.delete(key);
      this.put(key, v);
    }
    this.hits++;
    return v;
  }

  /** Stores a value. */
  set(key: string, value: V): void {
    if (this.capacity <= 0) return;
    this.cold.delete(key);
    this.put(key, value);
  }

  private put(key: string, value: V): void {
    this.hot.set(key, value);
    if (this.hot.size >= this.half) {
      this.cold = this.hot;
      this.hot = new Map();
    }
  }

  /** Entries held (≤ capacity). */
  get size(): number {
    return this.hot.size + this.cold.size;
  }

  /** The values held (any order). */
  values(): V[] {
    return [...this.hot.values(), ...this.cold.values()];
  }

  /** Drops every entry (counters are kept). */
  clear(): void {
    this.hot.clear();
    this.cold.clear();
  }
}
