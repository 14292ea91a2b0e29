import type { Command } from "commander";
import { existsSync } from "node:fs";
import { UserError } from "../../core/errors.js";
import { formatSummary } from "../../diagnostics/format.js";
import { formatRoutedSummary } from "../../diagnostics/routes.js";
import { checkPartials, mergePartials } from "../../engine/merge.js";
import { readPartial } from "../../engine/partial.js";
import { OutputSet } from "../../io/output.js";
import { writeFileSync } from "node:fs";
import { loadAnySpec } from "../../spec/routes.js";

interface MergeOpts {
  output?: string;
  spec?: string;
  quiet?: boolean;
}

/**
 * `rewardkit merge <partials…> -o merged.json`: the partial summaries of `score --shard i/N` (every shard, any
 * order) into the summary one unsharded run gives (`engine/merge.ts`).
 */
export function registerMerge(program: Command): void {
  program
    .command("merge")
    .description("merge the partial summaries of score --shard i/N (all N shards) into the summary of the whole run")
    .argument("<partials...>", "the shards' --summary files")
    .option("-o, --output <file>", "the merged summary JSON (default: stdout; folders are created)")
    .option("--spec <file>", "the spec the shards were scored with (default: the path they recorded)")
    .option("-q, --quiet", "no summary table")
    .action((files: string[], o: MergeOpts) => {
      const parts = files.map((f) => readPartial(f));
      checkPartials(parts);
      const specPath = o.spec ?? parts[0]!.shard.spec;
      if (o.spec === undefined && !existsSync(specPath))
        throw new UserError(
          `${specPath} (the spec ${parts[0]!.file} was scored with) not found: pass --spec <file> with that spec`,
        );
      const summary = mergePartials(parts, loadAnySpec(specPath));
      if (summary.count === 0 && summary.malformed > 0)
        throw new UserError(
          `${parts[0]!.shard.input}: no rollout could be scored: all ${summary.malformed} lines were malformed`,
        );
      const text = JSON.stringify(summary, null, 2) + "\n";
      const toFile = o.output !== undefined && o.output !== "-";
      if (toFile) {
        const outputs = new OutputSet();
        writeFileSync(outputs.reserve(o.output!), text);
        outputs.commit();
      } else process.stdout.write(text);
      if (!o.quiet)
        (toFile ? process.stdout : process.stderr).write(
          ("routes" in summary ? formatRoutedSummary(summary) : formatSummary(summary)) + "\n",
        );
      for (const w of summary.warnings ?? []) process.stderr.write(`warning: ${w}\n`);
    });
}
