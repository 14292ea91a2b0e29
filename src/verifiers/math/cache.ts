/**
 * A bounded insertion-ordered cache (a `Map`; when full, the oldest entry is dropped).
 * Keys are `normalized gold + "\u0000" + normalized prediction` (plus an options fingerprint).
 */
export class BoundedCache<V> {
  private readonly map = new Map<string, V>();

  /** @param capacity maximum entries (0 disables caching). */
  constructor(private readonly capacity: number) {}

  /** The cached value, or `undefined`. */
  get(key: string): V | undefined {
    return this.map.get(key);
  }

  /** Stores a value, evicting the oldest entry when full. */
  set(key: string, value: V): void {
    if (this.capacity <= 0) return;
    if (!this.map.has(key) && this.map.size >= this.capacity) {
      const oldest = this.map.keys().next();
      if (!oldest.done) this.map.delete(oldest.value);
    }
    this.map.set(key, value);
  }

  /** Number of entries. */
  get size(): number {
    return this.map.size;
  }

  /** Drops every entry. */
  clear(): void {
    this.map.clear();
  }
}
