/**
 * Maps an async source through `fn` with at most `window` calls in flight, delivering results to `sink`
 * in source order. Memory is bounded by the window; the source is pulled only as results drain.
 * @param window maximum number of items in flight (≥ 1).
 */
export async function mapOrdered<T, R>(
  source: AsyncIterable<T>,
  window: number,
  fn: (item: T) => Promise<R>,
  sink: (result: R, item: T) => Promise<void> | void,
): Promise<void> {
  const inflight: Array<{ item: T; result: Promise<R> }> = [];
  for await (const item of source) {
    const result = fn(item);
    result.catch(() => undefined); // a rejection surfaces when its turn comes, not as an unhandled rejection
    inflight.push({ item, result });
    if (inflight.length >= window) {
      const head = inflight.shift()!;
      await sink(await head.result, head.item);
    }
  }
  while (inflight.length > 0) {
    const head = inflight.shift()!;
    await sink(await head.result, head.item);
  }
}
