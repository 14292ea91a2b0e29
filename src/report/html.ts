import { chartJsSource, scriptSafe } from "./assets.js";

/** A Chart.js chart: its configuration (type, data, options) as JSON, rendered by the inlined library. */
export interface ChartSpec {
  title: string;
  /** A Chart.js configuration: `{type, data, options}` (plain JSON; no functions). */
  config: Record<string, unknown>;
  /** A line under the chart: how to read it. */
  note?: string;
  /** Canvas height, px (default 260). */
  height?: number;
}

/** A section of a report: a heading, HTML (already escaped by the caller) and charts. */
export interface Section {
  id: string;
  title: string;
  html?: string;
  charts?: ChartSpec[];
}

/** HTML-escapes text for element content and attribute values. */
export function esc(s: unknown): string {
  return String(s).replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

/** A number for the page: integers as is, others with up to 6 decimals (the summary's precision); null as "–". */
export function fmt(x: number | null | undefined, digits = 6): string {
  if (x === null || x === undefined || Number.isNaN(x)) return "–";
  if (Number.isInteger(x)) return String(x);
  return String(Number(x.toFixed(digits)));
}

/** A share in [0, 1] as a percentage with one decimal. */
export function pct(x: number | null | undefined): string {
  return x === null || x === undefined ? "–" : `${(x * 100).toFixed(1)}%`;
}

/** A table: header cells and rows of cells (cells are escaped here). */
export function tableHtml(head: readonly string[], rows: ReadonlyArray<ReadonlyArray<unknown>>, cls = ""): string {
  return `<table class="${cls}"><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join("")}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`).join("")}</tbody></table>`;
}

/** The colours of the charts (Okabe–Ito, readable by colour-blind viewers). */
export const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"];

const CSS = `
:root{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2433;background:#f6f7f9}
body{margin:0;padding:24px 32px;max-width:1200px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #d8dce3;padding-bottom:4px}
.sub{color:#5a6372;font-size:13px}.kpis{display:flex;flex-wrap:wrap;gap:12px;margin:16px 0}
.kpi{background:#fff;border:1px solid #d8dce3;border-radius:6px;padding:10px 14px;min-width:120px}
.kpi b{display:block;font-size:20px}.kpi span{font-size:12px;color:#5a6372}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(520px,1fr));gap:16px}
.card{background:#fff;border:1px solid #d8dce3;border-radius:6px;padding:12px}
.card h3{font-size:14px;margin:0 0 8px}.note{font-size:12px;color:#5a6372;margin-top:6px}
table{border-collapse:collapse;font-size:12.5px;background:#fff;margin:8px 0;width:100%}
th,td{border:1px solid #d8dce3;padding:4px 8px;text-align:left;vertical-align:top}th{background:#eef0f4}
td{max-width:520px;overflow-wrap:anywhere;white-space:pre-wrap}.bad{color:#b00020;font-weight:600}.good{color:#00704a}
`;

/**
 * A self-contained HTML page: styles, the Chart.js bundle, the chart configurations (JSON) and the code that draws
 * them are all inline, so the file opens offline and loads nothing from the network or another file.
 */
export function renderPage(title: string, subtitle: string, sections: readonly Section[]): string {
  const charts: Array<{ id: string } & ChartSpec> = [];
  const body = sections
    .map((s) => {
      const cards = (s.charts ?? [])
        .map((c) => {
          const id = `chart-${charts.length}`;
          charts.push({ id, ...c });
          return `<div class="card"><h3>${esc(c.title)}</h3><div style="position:relative;height:${c.height ?? 260}px"><canvas id="${id}" role="img" aria-label="${esc(c.title)}"></canvas></div>${c.note ? `<div class="note">${esc(c.note)}</div>` : ""}</div>`;
        })
        .join("");
      return `<section id="${esc(s.id)}"><h2>${esc(s.title)}</h2>${s.html ?? ""}${cards ? `<div class="grid">${cards}</div>` : ""}</section>`;
    })
    .join("\n");
  const data = JSON.stringify(charts.map((c) => ({ id: c.id, config: c.config }))).replace(/</g, "\\u003c");
  const init = `(function(){var specs=JSON.parse(document.getElementById("rk-charts").textContent);
Chart.defaults.animation=false;Chart.defaults.responsive=true;Chart.defaults.maintainAspectRatio=false;
specs.forEach(function(s){new Chart(document.getElementById(s.id),s.config);});})();`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title><style>${CSS}</style></head>
<body><h1>${esc(title)}</h1><div class="sub">${esc(subtitle)}</div>
${body}
<script type="application/json" id="rk-charts">${data}</script>
<script>${scriptSafe(chartJsSource())}</script>
<script>${scriptSafe(init)}</script>
</body></html>
`;
}
