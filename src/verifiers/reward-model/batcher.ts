/**
 * Micro-batching for reward-model requests: items arriving within `waitMs` of each other (up to `size`, and sharing
 * a batch key) go out as one request. Each item resolves with its own result. Only the items being gathered are
 * held; a flushed batch leaves nothing behind.
 */
export class MicroBatcher<I, R> {
  private readonly open = new Map<string, { items: I[]; resolvers: Array<(r: R) => void>; timer: NodeJS.Timeout }>();

  constructor(
    private readonly size: (items: readonly I[]) => number,
    private readonly waitMs: number,
    private readonly run: (items: I[]) => Promise<R[]>,
  ) {}

  add(item: I, key = ""): Promise<R> {
    return new Promise<R>((resolve) => {
      let b = this.open.get(key);
      if (!b) {
        b = { items: [], resolvers: [], timer: setTimeout(() => this.flush(key), this.waitMs) };
        this.open.set(key, b);
      }
      b.items.push(item);
      b.resolvers.push(resolve);
      if (b.items.length >= this.size(b.items)) this.flush(key);
    });
  }

  private flush(key: string): void {
    const b = this.open.get(key);
    if (!b) return;
    this.open.delete(key);
    clearTimeout(b.timer);
    void this.run(b.items).then((rs) => b.resolvers.forEach((r, k) => r(rs[k]!)));
  }
}
