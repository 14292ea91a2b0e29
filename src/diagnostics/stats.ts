/** Streaming mean and variance (Welford 1962), skipping nothing: feed only real numbers. */
export class RunningStats {
  n = 0;
  mean = 0;
  private m2 = 0;
  min = Infinity;
  max = -Infinity;

  push(x: number): void {
    this.n++;
    const d = x - this.mean;
    this.mean += d / this.n;
    this.m2 += d * (x - this.mean);
    if (x < this.min) this.min = x;
    if (x > this.max) this.max = x;
  }

  /** Population standard deviation (n in the denominator); 0 for n < 2. */
  get std(): number {
    return this.n < 2 ? 0 : Math.sqrt(this.m2 / this.n);
  }
}

/** Rounds for display and JSON summaries (6 significant decimals), keeping null. */
export function round6(x: number | null): number | null {
  return x === null || !Number.isFinite(x) ? x : Math.round(x * 1e6) / 1e6;
}
