/**
 * A bounded least-recently-used map. `get` refreshes an entry; `set` evicts the oldest entry past
 * `capacity`. Counts hits and misses for `/metrics` and summaries.
 */
export class LruCache<V> {
  private readonly map = new Map<string, V>();
  hits = 0;
  misses = 0;

  constructor(readonly capacity: number) {}

  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.map.delete(key);
    this.map.set(key, v);
    return v;
  }

  set(key: string, value: V): void {
    if (this.capacity <= 0) return;
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value!);
  }

  get size(): number {
    return this.map.size;
  }
}
