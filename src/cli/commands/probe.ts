import type { Command } from "commander";
import { writeFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { UserError } from "../../core/errors.js";
import { table } from "../../diagnostics/format.js";
import { PROBES } from "../../probe/registry.js";
import { runProbes } from "../../probe/run.js";
import type { ProbeReport } from "../../probe/run.js";
import { probeReportHtml } from "../../report/probe.js";
import { loadSpec } from "../../spec/load.js";
import { collect, intOption } from "../options.js";

interface ProbeOpts {
  spec: string;
  json?: boolean;
  report?: string;
  failOn: string[];
  only: string[];
  sample?: number;
  maxChars?: number;
  examples?: number;
  concurrency?: number;
}

/** Raised when a `--fail-on` probe earns above the baseline: exit code 3 (the output was printed first). */
export class ProbeFailure extends UserError {
  readonly exitCode = 3;
  constructor(message: string) {
    super(message);
    this.name = "ProbeFailure";
  }
}

/** Writes a file, creating its folder. */
export function writeCreating(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

function list(values: readonly string[]): string[] {
  return values
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter(Boolean);
}

/** The probe table printed without `--json`. */
export function formatProbes(r: ProbeReport): string {
  const rows = [["probe", "family", "cases", "rate", "mean reward", "baseline", "paid by", "documented"]];
  for (const p of r.probes)
    rows.push([
      p.name,
      p.family,
      String(p.n),
      p.rate.toFixed(3),
      p.meanReward.toFixed(4),
      p.baselineMean.toFixed(4),
      Object.entries(p.paidBy)
        .map(([c, v]) => `${c}:${v.toFixed(3)}`)
        .join(" ") || "-",
      p.documented ?? (p.rate > 0 ? "NO" : ""),
    ]);
  const above = r.probes.filter((p) => p.rate > 0);
  return [
    `spec ${r.spec.name} (${r.spec.hash}): ${r.sampled} rollouts probed of ${r.rollouts}; baseline wrong answer mean reward ${r.baseline.meanReward.toFixed(4)}, own completions ${r.original.meanReward.toFixed(4)}`,
    table(rows),
    ...(r.skipped.length > 0 ? [`skipped: ${r.skipped.map((s) => `${s.name} (${s.reason})`).join(", ")}`] : []),
    above.length === 0
      ? "no probe earns above the baseline"
      : `above the baseline: ${above.map((p) => `${p.name} ${p.rate.toFixed(3)}${p.documented ? " (documented)" : ""}`).join(", ")}`,
  ].join("\n");
}

/** `rewardkit probe <rollouts> --spec <spec>`: reward-hacking probes. */
export function registerProbe(program: Command): void {
  program
    .command("probe")
    .description(
      "score adversarial completions (empty, hedges, spam, master keys, code hacks …) against a baseline wrong answer",
    )
    .argument("<rollouts>", "rollouts JSONL (.gz by extension): prompts and references to probe")
    .requiredOption("-s, --spec <spec>", "reward spec (YAML or JSON)")
    .option("--json", "print the result as JSON: {probes: [{name, n, rate, examples, documented}], …}")
    .option("--report <file>", "write a self-contained HTML report")
    .option(
      "--fail-on <probes>",
      "exit 3 when one of these probes (comma-separated, or `all`) earns above the baseline (repeatable)",
      collect,
      [],
    )
    .option("--only <probes>", "run only these probes (comma-separated, repeatable)", collect, [])
    .option("--sample <n>", "rollouts probed, round-robin over groups", intOption, 200)
    .option("--max-chars <n>", "length of the max-length probe, characters", intOption, 16384)
    .option("--examples <n>", "examples kept per probe", intOption, 3)
    .option("--concurrency <n>", "worker threads (default: CPU count)", intOption)
    .action(async (input: string, o: ProbeOpts) => {
      const failOn = list(o.failOn);
      const only = list(o.only);
      const known = new Set(PROBES.map((p) => p.name));
      for (const n of [...failOn, ...only])
        if (n !== "all" && !known.has(n)) throw new UserError(`unknown probe "${n}"; known: ${[...known].join(", ")}`);
      const spec = loadSpec(o.spec);
      const r = await runProbes(spec, input, {
        ...(only.length > 0 ? { only } : {}),
        ...(o.sample !== undefined ? { sample: o.sample } : {}),
        ...(o.maxChars !== undefined ? { maxChars: o.maxChars } : {}),
        ...(o.examples !== undefined ? { examples: o.examples } : {}),
        ...(o.concurrency !== undefined ? { concurrency: o.concurrency } : {}),
      });
      if (o.report) writeCreating(o.report, probeReportHtml(r));
      process.stdout.write(o.json ? JSON.stringify(r, null, 2) + "\n" : formatProbes(r) + "\n");
      const failing = r.probes.filter((p) => (failOn.includes("all") || failOn.includes(p.name)) && p.rate > 0);
      if (failing.length > 0)
        throw new ProbeFailure(
          `--fail-on: ${failing.map((p) => `${p.name} earns above the baseline in ${p.above} of ${p.n} cases (rate ${p.rate})`).join("; ")}`,
        );
    });
}
