import { completionText } from "../core/completion.js";
import type { Rollout } from "../core/types.js";
import { UserError } from "../core/errors.js";
import { HackingCollector, diagnosticLength } from "../diagnostics/hacking.js";
import type { HackingDiagnostics } from "../diagnostics/hacking.js";
import { RunningStats, round6 } from "../diagnostics/stats.js";
import type { Summary } from "../diagnostics/summary.js";
import { readLines } from "../io/jsonl.js";
import type { ProbeReport } from "../probe/run.js";
import { barChart, doughnutChart, histogramChart, lineChart, scatterChart, stride } from "./charts.js";
import type { Section } from "./html.js";
import { esc, fmt, pct, renderPage, tableHtml } from "./html.js";
import { probeSections } from "./probe.js";
import { curriculumSection } from "./curriculum.js";

/** The numbers of one scored rollout the run report needs. */
export interface RunRow {
  id: string;
  group: string;
  /** The rollout's `prompt_id`, when it has one. */
  promptId?: string;
  step: number;
  reward: number | null;
  advantage: number | null;
  /** Tokens (`completion_tokens`), else ceil(characters / 4). */
  length: number;
  /** Component scores in `components` order (null = unscorable). */
  scores: Array<number | null>;
  /** Component reason codes in `components` order. */
  reasons: Array<string | undefined>;
}

/** A scored run: component names (first-seen order) and one row per scored rollout. */
export interface RunData {
  source: string;
  components: string[];
  rows: RunRow[];
  /** Lines that were not scored rollouts (no `reward` or `components`, invalid JSON). */
  skipped: number;
}

type Scored = {
  id?: unknown;
  group?: unknown;
  prompt_id?: unknown;
  step?: unknown;
  reward?: unknown;
  advantage?: unknown;
  completion?: unknown;
  completion_tokens?: unknown;
  components?: Record<string, { score?: unknown; reason?: unknown }>;
};

/**
 * Reads a scored JSONL file (`rewardkit score -o`) for a report: per line its reward, advantage, component scores and
 * reasons, step, group and length. Lines without `components` are counted in `skipped`.
 * @throws {UserError} when no line is a scored rollout.
 */
export async function readScored(file: string): Promise<RunData> {
  const components: string[] = [];
  const index = new Map<string, number>();
  const raw: Array<{
    row: Omit<RunRow, "scores" | "reasons">;
    comps: Record<string, { score?: unknown; reason?: unknown }>;
  }> = [];
  let skipped = 0;
  for await (const { line, text } of readLines(file, { onProblem: () => skipped++ })) {
    let r: Scored;
    try {
      r = JSON.parse(text) as Scored;
    } catch {
      skipped++;
      continue;
    }
    if (!r || typeof r !== "object" || !r.components || typeof r.components !== "object") {
      skipped++;
      continue;
    }
    for (const name of Object.keys(r.components)) {
      if (!index.has(name)) {
        index.set(name, components.length);
        components.push(name);
      }
    }
    const chars = r.completion === undefined ? 0 : completionText(r.completion as Rollout["completion"]).length;
    raw.push({
      row: {
        id: typeof r.id === "string" || typeof r.id === "number" ? String(r.id) : `line-${line}`,
        group: typeof r.group === "string" || typeof r.group === "number" ? String(r.group) : `line-${line}`,
        ...(typeof r.prompt_id === "string" || typeof r.prompt_id === "number"
          ? { promptId: String(r.prompt_id) }
          : {}),
        step: typeof r.step === "number" && Number.isFinite(r.step) ? r.step : 0,
        reward: typeof r.reward === "number" ? r.reward : null,
        advantage: typeof r.advantage === "number" ? r.advantage : null,
        length: diagnosticLength(r.completion_tokens, chars),
      },
      comps: r.components,
    });
  }
  if (raw.length === 0)
    throw new UserError(`${file}: no scored rollouts (lines with "components"); score it first with rewardkit score`);
  const rows = raw.map(({ row, comps }) => ({
    ...row,
    scores: components.map((n) => (typeof comps[n]?.score === "number" ? comps[n].score : null)),
    reasons: components.map((n) => (typeof comps[n]?.reason === "string" ? comps[n].reason : undefined)),
  }));
  return { source: file, components, rows, skipped };
}

/** The figures a run report shows as text, from the summary when there is one, else from the rows. */
interface Figures {
  count: number;
  reward: { mean: number | null; std: number | null; min: number | null; max: number | null; nullCount: number };
  components: Array<{ name: string; mean: number | null; passRate: number; unscorableRate: number; threshold: string }>;
  groups: { count: number; singletons: number; zeroVariance: number; multi: number; zeroVarianceNames: string[] };
  hacking: HackingDiagnostics;
}

function figures(d: RunData, summary?: Summary): Figures {
  const rs = new RunningStats();
  let nulls = 0;
  for (const r of d.rows) {
    if (r.reward === null) nulls++;
    else rs.push(r.reward);
  }
  const byGroup = new Map<string, number[]>();
  for (const r of d.rows) {
    if (r.reward === null) continue;
    const g = byGroup.get(r.group);
    if (g) g.push(r.reward);
    else byGroup.set(r.group, [r.reward]);
  }
  const allGroups = new Set(d.rows.map((r) => r.group));
  let singletons = 0;
  let multi = 0;
  let zero = 0;
  const zeroVarianceNames: string[] = [];
  for (const [name, g] of byGroup) {
    if (g.length === 1) singletons++;
    else {
      multi++;
      if (g.every((x) => x === g[0])) {
        zero++;
        if (zeroVarianceNames.length < 8) zeroVarianceNames.push(name);
      }
    }
  }
  const hc = new HackingCollector(d.components);
  for (const r of d.rows)
    hc.add(
      r.scores.map((s) => ({ score: s, status: s === null ? "unscorable" : "ok" })),
      r.reward,
      r.length,
      r.step,
    );
  const n = d.rows.length;
  return {
    count: summary?.count ?? n,
    reward: summary?.reward ?? {
      mean: rs.n > 0 ? round6(rs.mean) : null,
      std: rs.n > 0 ? round6(rs.std) : null,
      min: rs.n > 0 ? round6(rs.min) : null,
      max: rs.n > 0 ? round6(rs.max) : null,
      nullCount: nulls,
    },
    components: d.components.map((name, i) => {
      const s = summary?.components[name];
      if (s)
        return {
          name,
          mean: s.mean,
          passRate: s.passRate,
          unscorableRate: s.unscorableRate,
          threshold: "the spec's passThreshold",
        };
      const xs = d.rows.map((r) => r.scores[i]!).filter((x): x is number => x !== null);
      return {
        name,
        mean: xs.length > 0 ? round6(xs.reduce((a, b) => a + b, 0) / xs.length) : null,
        passRate: n > 0 ? round6(xs.filter((x) => x >= 1).length / n)! : 0,
        unscorableRate: n > 0 ? round6((n - xs.length) / n)! : 0,
        threshold: "score ≥ 1 (no summary given)",
      };
    }),
    groups: {
      count: summary?.groups.count ?? allGroups.size,
      singletons,
      zeroVariance: zero,
      multi,
      zeroVarianceNames,
    },
    hacking: summary?.hacking ?? hc.finish(),
  };
}

function kpi(label: string, value: string): string {
  return `<div class="kpi"><b>${esc(value)}</b><span>${esc(label)}</span></div>`;
}

/** The sections of a run report (see {@link runReportHtml}). */
export function runSections(d: RunData, summary?: Summary): Section[] {
  const f = figures(d, summary);
  const sections: Section[] = [];
  const zvShare = f.groups.multi > 0 ? f.groups.zeroVariance / f.groups.multi : null;
  sections.push({
    id: "summary",
    title: "Summary",
    html:
      `<div class="kpis">${kpi("rollouts (count)", String(f.count))}${kpi("reward mean", fmt(f.reward.mean))}${kpi("reward std", fmt(f.reward.std))}${kpi("reward min … max", `${fmt(f.reward.min)} … ${fmt(f.reward.max)}`)}${kpi("null rewards", String(f.reward.nullCount))}${kpi("groups", String(f.groups.count))}${kpi("zero-variance groups", pct(zvShare))}</div>` +
      `<p>count ${f.count} rollouts; reward mean ${fmt(f.reward.mean)}, std ${fmt(f.reward.std)}.</p>` +
      tableHtml(
        ["component", "mean", "pass rate", "unscorable", "pass means"],
        f.components.map((c) => [c.name, fmt(c.mean), pct(c.passRate), pct(c.unscorableRate), c.threshold]),
      ),
    charts: [
      histogramChart(
        "Reward distribution",
        d.rows.map((r) => r.reward ?? NaN),
        "reward",
        "null rewards left out",
      ),
      barChart(
        "Components: mean score and pass rate",
        f.components.map((c) => c.name),
        [
          { label: "mean score", data: f.components.map((c) => c.mean) },
          { label: "pass rate", data: f.components.map((c) => c.passRate) },
        ],
        { y: "score / share" },
      ),
    ],
  });
  const steps = [...new Set(d.rows.map((r) => r.step))].sort((a, b) => a - b);
  if (steps.length > 1) {
    const at = new Map(steps.map((s, i) => [s, i]));
    const mean = (pick: (r: RunRow) => number | null) => {
      const sum = steps.map(() => 0);
      const cnt = steps.map(() => 0);
      for (const r of d.rows) {
        const v = pick(r);
        if (v === null) continue;
        sum[at.get(r.step)!]! += v;
        cnt[at.get(r.step)!]!++;
      }
      return sum.map((s, i) => (cnt[i]! > 0 ? round6(s / cnt[i]!) : null));
    };
    sections.push({
      id: "steps",
      title: "Per step",
      charts: [
        lineChart(
          "Mean reward and component scores per step",
          steps,
          [
            { label: "reward", data: mean((r) => r.reward) },
            ...d.components.map((c, i) => ({ label: c, data: mean((r) => r.scores[i]!) })),
          ],
          { y: "mean" },
        ),
        lineChart("Mean completion length per step", steps, [{ label: "length", data: mean((r) => r.length) }], {
          y: "tokens",
        }),
      ],
    });
  }
  const lengthPoints = stride(
    d.rows.filter((r) => r.reward !== null).map((r) => ({ x: r.length, y: r.reward! })),
    3000,
  );
  const h = f.hacking;
  const hackCharts = [
    scatterChart("Length vs reward", lengthPoints, {
      x: "completion length (tokens, or characters / 4)",
      y: "reward",
      note: `Pearson r(length, reward) = ${fmt(h.lengthCorrelation.reward ?? null, 4)}${lengthPoints.length < d.rows.length ? `; ${lengthPoints.length} of ${d.rows.length} rollouts shown` : ""}`,
    }),
    barChart(
      "Reward–length correlation per component",
      ["reward", ...d.components],
      [{ label: "Pearson r", data: ["reward", ...d.components].map((n) => h.lengthCorrelation[n] ?? null) }],
      { y: "r", note: "a reward that grows with length invites padding; empty bar = constant score" },
    ),
    barChart(
      "Component dominance: share of reward variance explained",
      d.components,
      [{ label: "corr(score, reward)²", data: d.components.map((n) => h.dominance[n] ?? null) }],
      { y: "share", max: 1, note: "one component near 1 means the reward is that component" },
    ),
  ];
  if (h.bySteps && h.bySteps.length > 1) {
    hackCharts.push(
      lineChart(
        "Drift over steps: reward–length correlation and dominance",
        h.bySteps.map((s) => s.step),
        [
          { label: "r(length, reward)", data: h.bySteps.map((s) => s.lengthCorrelation.reward ?? null) },
          ...d.components.map((c) => ({
            label: `dominance ${c}`,
            data: h.bySteps!.map((s) => s.dominance[c] ?? null),
          })),
        ],
        { y: "value" },
      ),
    );
  }
  sections.push({ id: "hacking", title: "Reward-hacking diagnostics", charts: hackCharts });
  const zvGroups = f.groups.zeroVarianceNames;
  sections.push({
    id: "groups",
    title: "Groups and advantages",
    html: `<p>${f.groups.zeroVariance} of ${f.groups.multi} groups with two or more rewards have all-equal rewards (${pct(zvShare)}): GRPO gets no signal from them.${zvGroups.length > 0 ? ` First ones: ${esc(zvGroups.join(", "))}.` : ""}</p>`,
    charts: [
      doughnutChart(
        "Groups",
        ["zero variance", "with signal", "singletons"],
        [f.groups.zeroVariance, f.groups.multi - f.groups.zeroVariance, f.groups.singletons],
      ),
      histogramChart(
        "Advantage distribution",
        d.rows.map((r) => r.advantage ?? NaN),
        "advantage",
        "null advantages left out",
      ),
    ],
  });
  // the most unscorable rollouts, and those that ran into their deadline (the slowest: stopped at timeoutMs)
  const worst = d.rows
    .map((r) => ({ r, k: r.scores.filter((s) => s === null).length }))
    .filter((x) => x.k > 0)
    .sort((a, b) => b.k - a.k)
    .slice(0, 12);
  const timeouts = d.rows.filter((r) => r.reasons.includes("timeout")).slice(0, 12);
  const reasonCount = new Map<string, number>();
  for (const r of d.rows)
    r.reasons.forEach(
      (x, i) =>
        x &&
        r.scores[i] === null &&
        reasonCount.set(`${d.components[i]}: ${x}`, (reasonCount.get(`${d.components[i]}: ${x}`) ?? 0) + 1),
    );
  sections.push({
    id: "unscorable",
    title: "Slowest and most unscorable rollouts",
    html:
      `<p>Slowest: rollouts a component stopped at its deadline (reason <code>timeout</code>): ${timeouts.length === 0 ? "none." : ""}</p>` +
      (timeouts.length > 0
        ? tableHtml(
            ["id", "group", "components that timed out"],
            timeouts.map((r) => [r.id, r.group, d.components.filter((_, i) => r.reasons[i] === "timeout").join(", ")]),
          )
        : "") +
      `<p>Unscorable verdicts by component and reason: ${reasonCount.size === 0 ? "none." : ""}</p>` +
      (reasonCount.size > 0
        ? tableHtml(
            ["component: reason", "rollouts"],
            [...reasonCount.entries()].sort((a, b) => b[1] - a[1]),
          )
        : "") +
      (worst.length > 0
        ? tableHtml(
            ["id", "unscorable components", "reasons"],
            worst.map(({ r, k }) => [
              r.id,
              k,
              d.components
                .map((c, i) => (r.scores[i] === null ? `${c}: ${r.reasons[i] ?? "?"}` : ""))
                .filter(Boolean)
                .join("; "),
            ]),
          )
        : ""),
  });
  return sections;
}

/**
 * A run report: one self-contained HTML page (no network at view time) with the reward distribution, per-component
 * means and pass rates, per-step curves (when the rollouts have more than one `step`), length vs reward, the hacking
 * diagnostics (reward–length correlation, component dominance, their drift over steps), zero-variance groups, the
 * curriculum (pass rate per step by prompt bucket, share of zero-variance groups per step), the advantage distribution, the slowest and most unscorable rollouts, and probe results when given.
 * @param summary the run's summary (`score --summary`): its figures are shown as they are; without it they are
 *   computed from the rows (pass = score ≥ 1).
 */
export function runReportHtml(d: RunData, summary?: Summary, probe?: ProbeReport): string {
  const sections = runSections(d, summary);
  const cur = curriculumSection(d);
  if (cur) sections.push(cur);
  if (probe) sections.push(...probeSections(probe));
  const name = summary?.spec.name ?? "scored run";
  return renderPage(
    `rewardkit report: ${name}`,
    `${d.source}: ${d.rows.length} scored rollouts${d.skipped > 0 ? `, ${d.skipped} lines skipped` : ""}; generated ${new Date().toISOString()}`,
    sections,
  );
}
