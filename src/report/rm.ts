import type { RmEvaluation } from "../rm-eval/evaluate.js";
import { barChart } from "./charts.js";
import type { Section } from "./html.js";
import { esc, fmt, pct, renderPage, tableHtml } from "./html.js";

/** The sections of an `evaluate rm` report: every figure beside its length-only baseline. */
export function rmSections(e: RmEvaluation): Section[] {
  const out: Section[] = [];
  if (e.pairs) {
    const p = e.pairs;
    out.push({
      id: "pairs",
      title: "Pairwise accuracy on chosen/rejected pairs",
      html:
        `<p>${esc(p.file)}: ${p.pairs} pairs, ${p.unscorable} with an unscorable side. Accuracy = share of pairs whose chosen response scores strictly higher (RewardBench's rule); ties also shown as half a win.</p>` +
        tableHtml(
          ["scorer", "pairs compared", "accuracy", "ties", "accuracy (ties = ½)"],
          [
            [e.scored, p.scorer.n, fmt(p.scorer.accuracy, 4), p.scorer.ties, fmt(p.scorer.accuracyTiesHalf, 4)],
            [
              "length only (longer wins)",
              p.lengthBaseline.n,
              fmt(p.lengthBaseline.accuracy, 4),
              p.lengthBaseline.ties,
              fmt(p.lengthBaseline.accuracyTiesHalf, 4),
            ],
          ],
        ),
      charts: [
        barChart(
          "Pairwise accuracy: scorer vs length-only baseline",
          ["accuracy", "accuracy (ties = ½)"],
          [
            { label: e.scored, data: [p.scorer.accuracy, p.scorer.accuracyTiesHalf] },
            { label: "length only", data: [p.lengthBaseline.accuracy, p.lengthBaseline.accuracyTiesHalf] },
          ],
          { y: "share of pairs", max: 1, note: "0.5 = chance" },
        ),
        barChart(
          "Outcomes per pair",
          ["chosen higher", "tie", "rejected higher"],
          [
            { label: e.scored, data: [p.scorer.wins, p.scorer.ties, p.scorer.n - p.scorer.wins - p.scorer.ties] },
            {
              label: "length only",
              data: [
                p.lengthBaseline.wins,
                p.lengthBaseline.ties,
                p.lengthBaseline.n - p.lengthBaseline.wins - p.lengthBaseline.ties,
              ],
            },
          ],
          { y: "pairs" },
        ),
      ],
    });
  }
  if (e.bon) {
    const b = e.bon;
    const srcs = Object.keys(b.bySource);
    out.push({
      id: "bon",
      title: "Best-of-N agreement with the judge",
      html:
        `<p>${esc(b.folder)}: ${b.scorer.instructions} instructions, ${b.scorer.samples} samples scored (${b.unscorable} unscorable). Top-1 win rate: the judge's win rate of the sample the scorer ranks first; random = best-of-1 ${pct(b.randomWinRate)}, oracle = the judge's own best ${pct(b.oracleWinRate)}.</p>` +
        tableHtml(
          [
            "scorer",
            "top-1 win rate",
            "Spearman ρ per instruction",
            "Spearman ρ pooled",
            "Kendall τ-b per instruction",
          ],
          [
            [
              e.scored,
              pct(b.scorer.top1WinRate),
              fmt(b.scorer.spearmanPerInstruction, 4),
              fmt(b.scorer.spearmanPooled, 4),
              fmt(b.scorer.kendallPerInstruction, 4),
            ],
            [
              "length only (longest)",
              pct(b.lengthBaseline.top1WinRate),
              fmt(b.lengthBaseline.spearmanPerInstruction, 4),
              fmt(b.lengthBaseline.spearmanPooled, 4),
              fmt(b.lengthBaseline.kendallPerInstruction, 4),
            ],
          ],
        ) +
        tableHtml(
          ["source", "instructions", "top-1 win rate", "length-only top-1", "Spearman ρ", "length-only ρ"],
          srcs.map((s) => [
            s,
            b.bySource[s]!.scorer.instructions,
            pct(b.bySource[s]!.scorer.top1WinRate),
            pct(b.bySource[s]!.lengthBaseline.top1WinRate),
            fmt(b.bySource[s]!.scorer.spearmanPerInstruction, 4),
            fmt(b.bySource[s]!.lengthBaseline.spearmanPerInstruction, 4),
          ]),
        ),
      charts: [
        barChart(
          "Top-1 win rate",
          ["random (best-of-1)", e.scored, "length only", "oracle"],
          [
            {
              label: "win rate",
              data: [b.randomWinRate, b.scorer.top1WinRate, b.lengthBaseline.top1WinRate, b.oracleWinRate],
            },
          ],
          { y: "judge win rate", max: 1 },
        ),
        barChart(
          "Rank correlation with the judge",
          ["Spearman per instruction", "Spearman pooled", "Kendall per instruction"],
          [
            {
              label: e.scored,
              data: [b.scorer.spearmanPerInstruction, b.scorer.spearmanPooled, b.scorer.kendallPerInstruction],
            },
            {
              label: "length only",
              data: [
                b.lengthBaseline.spearmanPerInstruction,
                b.lengthBaseline.spearmanPooled,
                b.lengthBaseline.kendallPerInstruction,
              ],
            },
          ],
          { y: "correlation" },
        ),
        barChart(
          "Top-1 win rate by source",
          srcs,
          [
            { label: e.scored, data: srcs.map((s) => b.bySource[s]!.scorer.top1WinRate) },
            { label: "length only", data: srcs.map((s) => b.bySource[s]!.lengthBaseline.top1WinRate) },
          ],
          { y: "judge win rate", max: 1 },
        ),
      ],
    });
  }
  return out;
}

/** An `evaluate rm` result as one self-contained HTML page. */
export function rmReportHtml(e: RmEvaluation): string {
  return renderPage(
    `rewardkit evaluate rm: ${e.spec.name}`,
    `${e.scored}; spec hash ${e.spec.hash}; generated ${new Date().toISOString()}`,
    rmSections(e),
  );
}
