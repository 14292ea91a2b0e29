import type { ChartSpec } from "./html.js";
import { PALETTE } from "./html.js";

/**
 * Histogram of numbers: one bar per distinct value when there are at most `maxDistinct` of them (rewards are often
 * 0/1), else `bins` equal-width bins over [min, max]. Non-finite values are left out.
 */
export function histogram(
  values: readonly number[],
  bins = 20,
  maxDistinct = 12,
): { labels: string[]; counts: number[] } {
  const xs = values.filter((v) => Number.isFinite(v));
  if (xs.length === 0) return { labels: [], counts: [] };
  const distinct = [...new Set(xs)].sort((a, b) => a - b);
  if (distinct.length <= maxDistinct) {
    const at = new Map(distinct.map((v, i) => [v, i]));
    const counts = distinct.map(() => 0);
    for (const x of xs) counts[at.get(x)!]!++;
    return { labels: distinct.map((v) => String(Number(v.toPrecision(4)))), counts };
  }
  let lo = Infinity;
  let hi = -Infinity;
  for (const x of xs) {
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  const w = (hi - lo) / bins;
  const counts = new Array<number>(bins).fill(0);
  for (const x of xs) counts[Math.min(bins - 1, Math.floor((x - lo) / w))]!++;
  const labels = counts.map(
    (_, i) => `${Number((lo + i * w).toPrecision(3))}…${Number((lo + (i + 1) * w).toPrecision(3))}`,
  );
  return { labels, counts };
}

const axes = (x: string, y: string, extra: Record<string, unknown> = {}) => ({
  scales: { x: { title: { display: true, text: x } }, y: { title: { display: true, text: y }, ...extra } },
});

/** A bar chart of one or more series over the same labels. */
export function barChart(
  title: string,
  labels: readonly string[],
  series: ReadonlyArray<{ label: string; data: ReadonlyArray<number | null> }>,
  o: { x?: string; y?: string; note?: string; horizontal?: boolean; max?: number } = {},
): ChartSpec {
  return {
    title,
    ...(o.note ? { note: o.note } : {}),
    config: {
      type: "bar",
      data: {
        labels,
        datasets: series.map((s, i) => ({
          label: s.label,
          data: s.data,
          backgroundColor: PALETTE[i % PALETTE.length],
        })),
      },
      options: {
        ...(o.horizontal ? { indexAxis: "y" } : {}),
        plugins: { legend: { display: series.length > 1 } },
        ...axes(o.x ?? "", o.y ?? "", o.max !== undefined ? { max: o.max, min: 0 } : {}),
      },
    },
  };
}

/** A histogram chart of numbers. */
export function histogramChart(title: string, values: readonly number[], x: string, note?: string): ChartSpec {
  const h = histogram(values);
  return barChart(title, h.labels, [{ label: "rollouts", data: h.counts }], {
    x,
    y: "rollouts",
    ...(note ? { note } : {}),
  });
}

/** A line chart of series over x labels (steps). */
export function lineChart(
  title: string,
  labels: ReadonlyArray<string | number>,
  series: ReadonlyArray<{ label: string; data: ReadonlyArray<number | null> }>,
  o: { x?: string; y?: string; note?: string } = {},
): ChartSpec {
  return {
    title,
    ...(o.note ? { note: o.note } : {}),
    config: {
      type: "line",
      data: {
        labels: labels.map(String),
        datasets: series.map((s, i) => ({
          label: s.label,
          data: s.data,
          borderColor: PALETTE[i % PALETTE.length],
          backgroundColor: PALETTE[i % PALETTE.length],
          spanGaps: true,
          pointRadius: 2,
        })),
      },
      options: axes(o.x ?? "step", o.y ?? ""),
    },
  };
}

/** A scatter plot of (x, y) points. */
export function scatterChart(
  title: string,
  points: ReadonlyArray<{ x: number; y: number }>,
  o: { x: string; y: string; note?: string },
): ChartSpec {
  return {
    title,
    ...(o.note ? { note: o.note } : {}),
    config: {
      type: "scatter",
      data: {
        datasets: [{ label: "rollouts", data: points, backgroundColor: "rgba(0,114,178,0.45)", pointRadius: 2.5 }],
      },
      options: { plugins: { legend: { display: false } }, ...axes(o.x, o.y) },
    },
  };
}

/** A doughnut of parts of a whole. */
export function doughnutChart(
  title: string,
  labels: readonly string[],
  data: readonly number[],
  note?: string,
): ChartSpec {
  return {
    title,
    ...(note ? { note } : {}),
    config: {
      type: "doughnut",
      data: { labels, datasets: [{ data, backgroundColor: labels.map((_, i) => PALETTE[i % PALETTE.length]) }] },
      options: { plugins: { legend: { position: "right" } } },
    },
  };
}

/** At most `n` items, evenly strided (deterministic), for scatter plots of large runs. */
export function stride<T>(xs: readonly T[], n: number): T[] {
  if (xs.length <= n) return [...xs];
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(xs[Math.floor((i * xs.length) / n)]!);
  return out;
}
