import type { Command } from "commander";
import { readFileSync } from "node:fs";
import { UserError } from "../../core/errors.js";
import type { Summary } from "../../diagnostics/summary.js";
import type { ProbeReport } from "../../probe/run.js";
import { readScored, runReportHtml } from "../../report/run.js";
import { writeCreating } from "./probe.js";

interface ReportOpts {
  output: string;
  summary?: string;
  probe?: string;
}

function readJson<T>(file: string, what: string): T {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as T;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code) throw e;
    throw new UserError(`${file}: not a ${what} JSON file: ${(e as Error).message}`);
  }
}

/** `rewardkit report <scored.jsonl> -o <report.html>`: the HTML report of an existing run. */
export function registerReport(program: Command): void {
  program
    .command("report")
    .description("write a self-contained HTML report (charts, diagnostics, examples) of a scored run")
    .argument("<scored>", "scored JSONL (rewardkit score -o …; .gz by extension)")
    .requiredOption("-o, --output <file>", "the HTML file to write (folders are created)")
    .option("--summary <file>", "the run's summary JSON (score --summary): its figures and pass thresholds are shown")
    .option("--probe <file>", "a `probe --json` result to include")
    .action(async (input: string, o: ReportOpts) => {
      const data = await readScored(input);
      const summary = o.summary ? readJson<Summary>(o.summary, "summary") : undefined;
      const probe = o.probe ? readJson<ProbeReport>(o.probe, "probe") : undefined;
      writeCreating(o.output, runReportHtml(data, summary, probe));
      process.stderr.write(`report: ${o.output} (${data.rows.length} rollouts)\n`);
    });
}
