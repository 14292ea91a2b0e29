import type { Command } from "commander";
import { presetNames } from "../../advantage/presets.js";
import { estimatorNames } from "../../advantage/registry.js";
import { advantageDiagnostics, formatAdvantageDiagnostics } from "../../diagnostics/advantages.js";
import { advantagesFile } from "../../engine/advantages-file.js";
import { planFor } from "../../engine/scored-rows.js";
import { parseFieldMap, ROLLOUT_FIELDS, SCORED_FIELDS } from "../../io/fields.js";
import { writeFileCreating } from "../../io/output.js";
import { formatProblem } from "../../spec/errors.js";
import { UsageError } from "../errors.js";
import { collect, parseSettings } from "../options.js";

/** Parses `--weights name=w` (repeatable, or comma-separated). */
export function parseWeights(entries: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of entries.flatMap((x) => x.split(","))) {
    const at = e.indexOf("=");
    const w = Number(e.slice(at + 1));
    if (at <= 0 || e.slice(at + 1).trim() === "" || !Number.isFinite(w))
      throw new UsageError(`--weights ${e}: expected name=<number>`);
    out[e.slice(0, at).trim()] = w;
  }
  return out;
}

interface AdvantagesFlags {
  estimator: string;
  preset?: string;
  set: string[];
  weights: string[];
  filter?: string;
  map: string[];
  lengthField: string;
  stratum?: string;
  onUnscorable: string;
  diagnostics?: string;
  output?: string;
  strict?: boolean;
  quiet?: boolean;
}

/** `rewardkit advantages <scored.jsonl> --estimator <name>`: recompute advantages of already-scored rollouts. */
export function registerAdvantages(program: Command): void {
  program
    .command("advantages")
    .description(
      "compute group advantages for scored rollouts (needs id, group, reward; components for multi-reward estimators)",
    )
    .argument("<input>", "scored JSONL (.gz by extension), or - for stdin")
    .option("-e, --estimator <name>", `estimator, as verl names it (${estimatorNames().join(", ")})`, "grpo")
    .option("--preset <name>", `a peer's convention for the estimator (${describePresets()})`)
    .option("--set <key=value>", "estimator option (repeatable), e.g. --set epsilon=1e-4", collect, [])
    .option(
      "--weights <name=w>",
      "component weight for multi-component estimators (repeatable; default 1 each)",
      collect,
      [],
    )
    .option(
      "--filter <kind>",
      "zero_variance: groups whose rewards are all equal get advantage null (DAPO dynamic sampling); every row is still written",
    )
    .option(
      "--on-unscorable <policy>",
      "zero: an unscorable component of a rollout with a reward counts as a scored 0 (as `score` under onUnscorable: zero); exclude: it is left out of that component's statistics",
      "zero",
    )
    .option("--map <field=source>", "read a field from another name (repeatable)", collect, [])
    .option(
      "--length-field <path>",
      "response length field for opo / token whitening (fallback: ceil(chars/4) of completion)",
      "completion_tokens",
    )
    .option("--stratum <path>", "stratum key field for the stratified estimator (same as --set key=<path>)")
    .option(
      "--diagnostics <file>",
      "write advantage diagnostics (mean/std, zero share, ESS, zero-variance groups, collapse, component correlations) as JSON",
    )
    .option("-o, --output <file>", "output JSONL (default: stdout)")
    .option("--strict", "stop at the first malformed line")
    .option("-q, --quiet", "print nothing but errors")
    .action(async (input: string, o: AdvantagesFlags) => {
      const raw: Record<string, unknown> = parseSettings(o.set);
      if (o.weights.length > 0) raw.weights = { ...(raw.weights ?? {}), ...parseWeights(o.weights) };
      if (o.filter !== undefined) raw.filter = o.filter;
      if (o.stratum !== undefined) raw.key = o.stratum;
      if (o.onUnscorable !== "zero" && o.onUnscorable !== "exclude")
        throw new UsageError(`--on-unscorable ${o.onUnscorable}: expected zero or exclude`);
      const plan = planFor(o.estimator, o.preset, raw, o.onUnscorable);
      let shownProblems = 0;
      const r = await advantagesFile(plan, {
        input,
        ...(o.output !== undefined ? { output: o.output } : {}),
        map: parseFieldMap(o.map, [...ROLLOUT_FIELDS, ...SCORED_FIELDS]),
        lengthField: o.lengthField,
        strict: o.strict ?? false,
        onProblem: (p) => {
          if (shownProblems++ < 20) process.stderr.write(`skipped ${formatProblem(p)}\n`);
        },
      });
      if (r.malformed > 20) process.stderr.write(`… ${r.malformed - 20} more malformed lines skipped\n`);
      const diag = advantageDiagnostics(r.input, r.advantages);
      const { estimator: est, options } = plan;
      if (o.diagnostics)
        writeFileCreating(
          o.diagnostics,
          `${JSON.stringify({ estimator: est.name, preset: o.preset ?? null, options, ...diag }, null, 2)}\n`,
        );
      if (!o.quiet) {
        const shown = Object.fromEntries(
          Object.entries(options).filter(([key]) => key !== "filter" || options.filter !== "none"),
        );
        process.stderr.write(
          `advantages: ${r.count} rollouts in ${r.groups} groups with ${est.name}${o.preset ? ` (preset ${o.preset})` : ""} ${JSON.stringify(shown)}` +
            `${r.whitened ? `; batch statistics per ${r.whitened}` : ""}${r.filtered ? `; ${r.filtered} rollouts in zero-variance groups filtered (advantage null)` : ""}` +
            `${r.malformed ? `; ${r.malformed} malformed lines skipped` : ""}\n` +
            `advantages: ${formatAdvantageDiagnostics(diag)}\n`,
        );
      }
      for (const w of r.warnings) process.stderr.write(`warning: ${w}\n`);
    });
}

/** Preset names per estimator, for help texts. */
export function describePresets(): string {
  return estimatorNames()
    .map((e) => [e, presetNames(e)] as const)
    .filter(([, p]) => p.length > 0)
    .map(([e, p]) => `${e}: ${p.join(", ")}`)
    .join("; ");
}
