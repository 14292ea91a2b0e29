import type { Command } from "commander";
import { table } from "../../diagnostics/format.js";
import { evaluateRm } from "../../rm-eval/evaluate.js";
import type { RmEvaluation } from "../../rm-eval/evaluate.js";
import { rmReportHtml } from "../../report/rm.js";
import { loadSpec } from "../../spec/load.js";
import { UsageError } from "../errors.js";
import { intOption } from "../options.js";
import { writeCreating } from "./probe.js";

interface Flags {
  spec: string;
  pairs?: string;
  bon?: string;
  component?: string;
  limit?: number;
  concurrency?: number;
  json?: boolean;
  report?: string;
}

const f4 = (x: number | null): string => (x === null ? "-" : x.toFixed(4));

/** The text tables of an `evaluate rm` result. */
export function formatRm(e: RmEvaluation): string {
  const lines = [`spec ${e.spec.name} (${e.spec.hash}), scoring ${e.scored}`];
  if (e.pairs) {
    const p = e.pairs;
    lines.push(`pairs ${p.file}: ${p.pairs} pairs, ${p.unscorable} with an unscorable side`);
    lines.push(
      table([
        ["scorer", "n", "accuracy", "ties", "acc (ties=½)"],
        [e.scored, String(p.scorer.n), f4(p.scorer.accuracy), String(p.scorer.ties), f4(p.scorer.accuracyTiesHalf)],
        [
          "length only",
          String(p.lengthBaseline.n),
          f4(p.lengthBaseline.accuracy),
          String(p.lengthBaseline.ties),
          f4(p.lengthBaseline.accuracyTiesHalf),
        ],
      ]),
    );
  }
  if (e.bon) {
    const b = e.bon;
    lines.push(
      `best-of-N ${b.folder}: ${b.scorer.instructions} instructions, ${b.scorer.samples} samples (${b.unscorable} unscorable); random ${f4(b.randomWinRate)}, oracle ${f4(b.oracleWinRate)}`,
    );
    lines.push(
      table([
        ["scorer", "top-1 win", "spearman/instr", "spearman pooled", "kendall/instr"],
        [
          e.scored,
          f4(b.scorer.top1WinRate),
          f4(b.scorer.spearmanPerInstruction),
          f4(b.scorer.spearmanPooled),
          f4(b.scorer.kendallPerInstruction),
        ],
        [
          "length only",
          f4(b.lengthBaseline.top1WinRate),
          f4(b.lengthBaseline.spearmanPerInstruction),
          f4(b.lengthBaseline.spearmanPooled),
          f4(b.lengthBaseline.kendallPerInstruction),
        ],
      ]),
    );
  }
  return lines.join("\n");
}

/** `rewardkit evaluate rm`: a reward or component as a reward model on preference pairs and best-of-N data. */
export function registerEvaluateRm(evaluate: Command): void {
  evaluate
    .command("rm")
    .description(
      "pairwise accuracy on chosen/rejected pairs and best-of-N agreement with a judge, beside a length-only baseline",
    )
    .requiredOption("-s, --spec <spec>", "reward spec (YAML or JSON): its reward, or --component, is the scorer")
    .option(
      "--pairs <file>",
      "preference pairs JSONL (.gz): {prompt, chosen, rejected} or hh-rlhf {chosen, rejected} dialogues",
    )
    .option("--bon <folder>", "RewardBench best-of-N folder: <model>.<i>/annotations.json(.gz)")
    .option("--component <name>", "score this component instead of the reward")
    .option("--limit <n>", "first n pairs / first n instructions", intOption)
    .option("--concurrency <n>", "worker threads (default: CPU count)", intOption)
    .option("--report <file>", "write a self-contained HTML report")
    .option("--json", "print the result as JSON")
    .action(async (o: Flags) => {
      if (!o.pairs && !o.bon) throw new UsageError("evaluate rm: give --pairs <file> or --bon <folder> (or both)");
      const spec = loadSpec(o.spec);
      const e = await evaluateRm(spec, {
        ...(o.pairs ? { pairs: o.pairs } : {}),
        ...(o.bon ? { bon: o.bon } : {}),
        ...(o.component ? { component: o.component } : {}),
        ...(o.limit !== undefined ? { limit: o.limit } : {}),
        ...(o.concurrency !== undefined ? { concurrency: o.concurrency } : {}),
      });
      if (o.report) writeCreating(o.report, rmReportHtml(e));
      process.stdout.write(o.json ? JSON.stringify(e, null, 2) + "\n" : formatRm(e) + "\n");
    });
}
