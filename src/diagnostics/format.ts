import type { Summary } from "./summary.js";
import { formatAdvantageDiagnostics } from "./advantages.js";
import { formatConcentration } from "./concentration.js";

function pct(x: number | null): string {
  return x === null ? "-" : `${(x * 100).toFixed(1)}%`;
}
function num(x: number | null): string {
  return x === null ? "-" : x.toFixed(4);
}

/** Lays out rows as an aligned text table (first row is the header). */
export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? "").length)));
  return rows
    .map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("  "))
    .join("\n");
}

/** Human-readable summary: totals, a per-component table, groups, and label agreement when present. */
export function formatSummary(s: Summary): string {
  const lines: string[] = [];
  lines.push(
    `spec ${s.spec.name} (${s.spec.hash}): ${s.count} rollouts scored, ${s.malformed} malformed lines skipped, ${s.rolloutsPerSecond} rollouts/s`,
  );
  lines.push(
    `reward: mean ${num(s.reward.mean)}  std ${num(s.reward.std)}  min ${num(s.reward.min)}  max ${num(s.reward.max)}  null ${s.reward.nullCount}`,
  );
  const rows = [["component", "type", "weight", "mean", "pass", "unscorable", "reasons"]];
  for (const [name, c] of Object.entries(s.components)) {
    const reasons = Object.entries(c.reasons)
      .map(([k, v]) => `${k}:${v}`)
      .join(" ");
    rows.push([name, c.type, String(c.weight), num(c.mean), pct(c.passRate), pct(c.unscorableRate), reasons]);
  }
  lines.push(table(rows));
  lines.push(
    `groups: ${s.groups.count}  singletons ${s.groups.singletons}  zero-variance ${pct(s.groups.zeroVarianceFraction)}  advantage: ${s.advantage.estimator} (null ${s.advantage.nullCount})`,
  );
  if (s.advantage.diagnostics) lines.push(`advantages: ${formatAdvantageDiagnostics(s.advantage.diagnostics)}`);
  if (s.hacking) {
    const h = s.hacking;
    const r = (x: number | null | undefined) => (x === null || x === undefined ? "-" : x.toFixed(3));
    const comps = Object.keys(h.dominance);
    lines.push(
      `hacking: r(length, reward) ${r(h.lengthCorrelation.reward)}  dominance ${comps.map((c) => `${c} ${r(h.dominance[c])}`).join(", ")}${h.bySteps ? `  (per step in the summary: ${h.bySteps.length} steps)` : ""}`,
    );
  }
  if (s.concentration) lines.push(...formatConcentration(s.concentration));
  if (s.filter) {
    const f = s.filter;
    lines.push(
      `filter dapo${f.metric ? ` on ${f.metric}` : ""}: kept ${f.kept}/${f.groups} groups, dropped ${f.dropped}; need ${f.need} more prompts for a batch of ${f.batch_size} (sample ~${f.sample ?? "?"})`,
    );
  }
  for (const [name, j] of Object.entries(s.judges ?? {})) {
    lines.push(
      `judge ${name}: ${j.calls} calls  ${j.retries} retries  ${j.failures} failed  ${j.timeouts} timeouts  ${j.cacheHits} cache hits  tokens ${j.promptTokens} in / ${j.completionTokens} out  cost ${j.cost}`,
    );
  }
  if (s.label) {
    const l = s.label;
    lines.push(
      `label ${l.field} vs ${l.component}: agreement ${l.agree}/${l.n} = ${pct(l.agreement)}  false positives ${l.falsePositives}  false negatives ${l.falseNegatives}  (unscorable ${l.unscorable}, missing label ${l.missingLabel})`,
    );
    for (const [kind, list] of [
      ["false positive", l.examples.falsePositives],
      ["false negative", l.examples.falseNegatives],
    ] as const) {
      for (const e of list) {
        lines.push(
          `  ${kind}: ${e.id} score=${e.score ?? "null"}${e.reason ? ` (${e.reason})` : ""} extracted=${JSON.stringify(e.extracted ?? null)} reference=${JSON.stringify(e.reference ?? null)}`,
        );
      }
    }
  }
  return lines.join("\n");
}
