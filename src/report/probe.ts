import type { ProbeReport } from "../probe/run.js";
import { barChart } from "./charts.js";
import type { Section } from "./html.js";
import { esc, fmt, pct, renderPage, tableHtml } from "./html.js";

/** The probe sections: rates, rewards against the baseline, which components pay, and examples. */
export function probeSections(p: ProbeReport): Section[] {
  const names = p.probes.map((x) => x.name);
  const comps = [...new Set(p.probes.flatMap((x) => Object.keys(x.paidBy)))];
  const flagged = p.probes.filter((x) => x.rate > 0);
  const rows = p.probes.map((x) => [
    x.name,
    x.family,
    x.n,
    pct(x.rate),
    fmt(x.meanReward),
    fmt(x.baselineMean),
    Object.entries(x.paidBy)
      .map(([c, v]) => `${c} ${pct(v)}`)
      .join(", ") || "–",
    x.documented ?? (x.rate > 0 ? "NOT documented" : ""),
  ]);
  const examples = p.probes
    .filter((x) => x.examples.length > 0)
    .map(
      (x) =>
        `<h3>${esc(x.name)}${x.rate > 0 ? ` <span class="bad">${pct(x.rate)} above the baseline</span>` : ` <span class="good">never above the baseline</span>`}</h3><p class="note">${esc(x.description)}</p>${tableHtml(
          ["rollout", "form", "completion", "reward", "baseline", "components"],
          x.examples.map((e) => [
            e.id,
            e.form ?? "",
            e.completion,
            fmt(e.reward),
            fmt(e.baseline),
            Object.entries(e.components)
              .map(([c, v]) => `${c}=${fmt(v)}`)
              .join(" "),
          ]),
        )}`,
    )
    .join("");
  return [
    {
      id: "probes",
      title: "Reward-hacking probes",
      html:
        `<p>Spec ${esc(p.spec.name)}: ${p.sampled} sampled rollouts of ${p.rollouts}. Each probe's rate is the share of its cases whose reward exceeds a plain wrong answer's for the same prompt (baseline mean reward ${fmt(p.baseline.meanReward)}; the sampled rollouts' own completions: ${fmt(p.original.meanReward)}). ` +
        `${flagged.length === 0 ? '<span class="good">No probe earns above the baseline.</span>' : `<span class="bad">${flagged.length} probe(s) earn above the baseline: ${esc(flagged.map((x) => x.name).join(", "))}.</span>`}</p>` +
        tableHtml(
          [
            "probe",
            "family",
            "cases",
            "rate above baseline",
            "mean reward",
            "baseline mean",
            "paid by",
            "documented weakness",
          ],
          rows,
        ) +
        (p.skipped.length > 0
          ? `<p class="note">Skipped: ${esc(p.skipped.map((s) => `${s.name} (${s.reason})`).join("; "))}</p>`
          : ""),
      charts: [
        barChart(
          "Share of probe cases above the wrong-answer baseline",
          names,
          [{ label: "rate", data: p.probes.map((x) => x.rate) }],
          { horizontal: true, x: "share of cases", note: "0 everywhere = no probe pays" },
        ),
        barChart(
          "Mean reward: probe vs baseline wrong answer",
          names,
          [
            { label: "probe", data: p.probes.map((x) => x.meanReward) },
            { label: "baseline", data: p.probes.map((x) => x.baselineMean) },
          ],
          { y: "mean reward" },
        ),
        barChart(
          "Which components pay (share of cases above the baseline's component score)",
          names,
          (comps.length > 0 ? comps : ["(none)"]).map((c) => ({
            label: c,
            data: p.probes.map((x) => x.paidBy[c] ?? 0),
          })),
          { y: "share", note: comps.length === 0 ? "no component pays for any probe" : "" },
        ),
      ],
    },
    { id: "probe-examples", title: "Probe examples", html: examples },
  ];
}

/** A probe report as one self-contained HTML page. */
export function probeReportHtml(p: ProbeReport): string {
  return renderPage(
    `rewardkit probe: ${p.spec.name}`,
    `spec hash ${p.spec.hash}; ${p.sampled} sampled rollouts; generated ${new Date().toISOString()}`,
    probeSections(p),
  );
}
