/**
 * A minimal Prometheus registry: counters and gauges with labels, and histograms, rendered in the text
 * exposition format 0.0.4 (`# HELP`, `# TYPE`, one sample per line). Only what `/metrics` needs.
 */

type Labels = Record<string, string>;

function escapeLabel(v: string): string {
  if (!/[\\\n"]/.test(v)) return v; // the usual label value: nothing to escape, no copies
  return v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

function labelText(labels: Labels): string {
  const keys = Object.keys(labels);
  if (keys.length === 0) return "";
  return `{${keys.map((k) => `${k}="${escapeLabel(labels[k]!)}"`).join(",")}}`;
}

function num(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "+Inf";
  if (x === -Infinity) return "-Inf";
  return String(x);
}

interface Metric {
  render(): string;
}

/** A monotonically increasing value per label set. */
export class Counter implements Metric {
  private readonly values = new Map<string, { labels: Labels; value: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: Labels = {}, by = 1): void {
    const key = labelText(labels);
    const v = this.values.get(key);
    if (v) v.value += by;
    else this.values.set(key, { labels, value: by });
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const [key, v] of this.values) lines.push(`${this.name}${key} ${num(v.value)}`);
    return lines.join("\n");
  }
}

/** A value read when `/metrics` is scraped: a gauge, or a counter kept elsewhere (`type: "counter"`). */
export class Gauge implements Metric {
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly read: () => number | Array<{ labels: Labels; value: number }>,
    readonly type: "gauge" | "counter" = "gauge",
  ) {}

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} ${this.type}`];
    const v = this.read();
    if (typeof v === "number") lines.push(`${this.name} ${num(v)}`);
    else for (const s of v) lines.push(`${this.name}${labelText(s.labels)} ${num(s.value)}`);
    return lines.join("\n");
  }
}

/** Cumulative buckets (upper bounds, seconds or any unit), `_sum` and `_count` per label set. */
export class Histogram implements Metric {
  private readonly series = new Map<string, { labels: Labels; counts: Float64Array; sum: number; count: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: readonly number[],
  ) {}

  observe(value: number, labels: Labels = {}): void {
    const key = labelText(labels);
    let s = this.series.get(key);
    if (!s) {
      s = { labels, counts: new Float64Array(this.buckets.length), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]!) s.counts[i]!++;
    s.sum += value;
    s.count++;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const s of this.series.values()) {
      this.buckets.forEach((b, i) =>
        lines.push(`${this.name}_bucket${labelText({ ...s.labels, le: num(b) })} ${s.counts[i]}`),
      );
      lines.push(`${this.name}_bucket${labelText({ ...s.labels, le: "+Inf" })} ${s.count}`);
      lines.push(`${this.name}_sum${labelText(s.labels)} ${num(s.sum)}`);
      lines.push(`${this.name}_count${labelText(s.labels)} ${s.count}`);
    }
    return lines.join("\n");
  }
}

/** Metrics in registration order; `render()` is the `/metrics` body. */
export class Registry {
  private readonly metrics: Metric[] = [];

  add<M extends Metric>(m: M): M {
    this.metrics.push(m);
    return m;
  }

  render(): string {
    return this.metrics.map((m) => m.render()).join("\n") + "\n";
  }
}
