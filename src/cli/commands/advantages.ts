import type { Command } from "commander";
import { nullable } from "../../advantage/compute.js";
import { zeroVarianceGroups } from "../../advantage/common.js";
import { buildGroupIndex, GroupIds } from "../../advantage/groups.js";
import { readReward, ScoredColumns } from "../../advantage/columns.js";
import { presetNames } from "../../advantage/presets.js";
import { estimatorNames } from "../../advantage/registry.js";
import { resolveEstimator } from "../../advantage/resolve.js";
import type { AdvantageInput } from "../../advantage/types.js";
import { advantageDiagnostics, formatAdvantageDiagnostics } from "../../diagnostics/advantages.js";
import { readLines } from "../../io/jsonl.js";
import { openLineWriter, writeFileCreating } from "../../io/output.js";
import { getPath, parseFieldMap, ROLLOUT_FIELDS, SCORED_FIELDS } from "../../io/fields.js";
import { toRollout } from "../../io/rollout.js";
import { Spill } from "../../io/spill.js";
import { formatProblem } from "../../spec/errors.js";
import type { Problem } from "../../spec/errors.js";
import { UsageError } from "../errors.js";
import { collect, parseSettings } from "../options.js";

/** Parses `--weights name=w` (repeatable, or comma-separated). */
export function parseWeights(entries: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of entries.flatMap((x) => x.split(","))) {
    const at = e.indexOf("=");
    const w = Number(e.slice(at + 1));
    if (at <= 0 || e.slice(at + 1).trim() === "" || !Number.isFinite(w)) throw new UsageError(`--weights ${e}: expected name=<number>`);
    out[e.slice(0, at).trim()] = w;
  }
  return out;
}

/** Response length of a record: the length field when numeric, else ceil(chars / 4) of a string completion; NaN otherwise. */
function responseLength(record: Record<string, unknown>, field: string): number {
  const v = getPath(record, field);
  if (typeof v === "number" && Number.isFinite(v)) return v;
  const c = record.completion;
  return typeof c === "string" ? Math.ceil(c.length / 4) : NaN;
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
  diagnostics?: string;
  output?: string;
  strict?: boolean;
  quiet?: boolean;
}

/** `rewardkit advantages <scored.jsonl> --estimator <name>`: recompute advantages of already-scored rollouts. */
export function registerAdvantages(program: Command): void {
  program
    .command("advantages")
    .description("compute group advantages for scored rollouts (needs id, group, reward; components for multi-reward estimators)")
    .argument("<input>", "scored JSONL (.gz by extension), or - for stdin")
    .option("-e, --estimator <name>", `estimator, as verl names it (${estimatorNames().join(", ")})`, "grpo")
    .option("--preset <name>", `a peer's convention for the estimator (${describePresets()})`)
    .option("--set <key=value>", "estimator option (repeatable), e.g. --set epsilon=1e-4", collect, [])
    .option("--weights <name=w>", "component weight for multi-component estimators (repeatable; default 1 each)", collect, [])
    .option("--filter <kind>", "zero_variance: drop groups whose rewards are all equal (DAPO dynamic sampling); they are left out of the output")
    .option("--map <field=source>", "read a field from another name (repeatable)", collect, [])
    .option("--length-field <path>", "response length field for opo / token whitening (fallback: ceil(chars/4) of completion)", "completion_tokens")
    .option("--stratum <path>", "stratum key field for the stratified estimator (same as --set key=<path>)")
    .option("--diagnostics <file>", "write advantage diagnostics (mean/std, zero share, ESS, zero-variance groups, collapse, component correlations) as JSON")
    .option("-o, --output <file>", "output JSONL (default: stdout)")
    .option("--strict", "stop at the first malformed line")
    .option("-q, --quiet", "print nothing but errors")
    .action(async (input: string, o: AdvantagesFlags) => {
      const raw: Record<string, unknown> = parseSettings(o.set);
      if (o.weights.length > 0) raw.weights = { ...((raw.weights as Record<string, number> | undefined) ?? {}), ...parseWeights(o.weights) };
      if (o.filter !== undefined) raw.filter = o.filter;
      if (o.stratum !== undefined) raw.key = o.stratum;
      const { estimator: est, options } = resolveEstimator(o.estimator, o.preset, raw);
      const needs = est.needs ?? [];
      const stratumKey = needs.includes("strata") ? String(options.key) : undefined;
      const map = parseFieldMap(o.map, [...ROLLOUT_FIELDS, ...SCORED_FIELDS]);
      const file = input === "-" ? "<stdin>" : input;
      const columns = new ScoredColumns();
      const strataIds = new GroupIds();
      const lengths: number[] = [];
      const strata: number[] = [];
      let malformed = 0;
      const spill = new Spill();
      try {
        const report = (p: Problem): void => {
          if (o.strict) throw new UsageError(formatProblem(p));
          if (malformed++ < 20) process.stderr.write(`skipped ${formatProblem(p)}\n`);
        };
        for await (const { line, text } of readLines(input, { onProblem: (line, message) => report({ file, line, path: "", message }) })) {
          let record: Record<string, unknown>;
          try {
            record = JSON.parse(text) as Record<string, unknown>;
          } catch (e) {
            report({ file, line, path: "", message: `invalid JSON: ${(e as Error).message}` });
            continue;
          }
          const r = toRollout(record, line, map, "advantages");
          if ("problem" in r) {
            report({ file, line, path: r.problem.field, message: r.problem.message });
            continue;
          }
          const reward = readReward(record[map.reward ?? "reward"]);
          if (reward === undefined) {
            report({ file, line, path: map.reward ?? "reward", message: "expected a number or null" });
            continue;
          }
          let stratum: unknown;
          if (stratumKey !== undefined) {
            stratum = getPath(record, stratumKey);
            if (stratum === undefined || stratum === null || typeof stratum === "object") {
              report({ file, line, path: stratumKey, message: "missing stratum key (a string, number or boolean)" });
              continue;
            }
          }
          columns.add(r.rollout.group, reward, record[map.components ?? "components"]);
          lengths.push(responseLength(record, map.completion_tokens ?? o.lengthField));
          if (stratumKey !== undefined) strata.push(strataIds.idOf(String(stratum)));
          await spill.write(text);
        }
        const n = columns.size;
        // as in `score`: a run that reads nothing is a mistake (a wrong file or --map), not an empty success
        if (n === 0 && malformed > 0) throw new UsageError(`${file}: no rollout could be read: all ${malformed} lines were malformed (see above)`);
        const groupIds = columns.groupIds;
        const index = buildGroupIndex(groupIds);
        const batch: AdvantageInput = { rewards: Float64Array.from(columns.rewards), groups: index, components: columns.components() };
        if (lengths.every((l) => Number.isFinite(l))) batch.lengths = Float64Array.from(lengths);
        if (stratumKey !== undefined) batch.strata = Int32Array.from(strata);
        let adv: Float64Array;
        try {
          adv = est.compute(batch, options);
        } catch (e) {
          throw new UsageError(`${est.name}: ${(e as Error).message}`);
        }
        const dropGroup = options.filter === "zero_variance" ? zeroVarianceGroups(batch.rewards, index) : undefined;
        const writer = openLineWriter(o.output);
        let k = 0;
        let dropped = 0;
        for await (const { text } of spill.read()) {
          const i = k++;
          if (dropGroup && dropGroup[groupIds[i]!]) {
            dropped++;
            continue;
          }
          const record = JSON.parse(text) as Record<string, unknown>;
          record.advantage = nullable(adv[i]!);
          await writer.write(JSON.stringify(record));
        }
        await writer.close();
        const diag = advantageDiagnostics(batch, adv);
        if (o.diagnostics) writeFileCreating(o.diagnostics, `${JSON.stringify({ estimator: est.name, preset: o.preset ?? null, options, ...diag }, null, 2)}\n`);
        const shown = Object.fromEntries(Object.entries(options).filter(([key]) => key !== "filter" || options.filter !== "none"));
        if (!o.quiet)
          process.stderr.write(
          `advantages: ${n} rollouts in ${columns.groups.size} groups with ${est.name}${o.preset ? ` (preset ${o.preset})` : ""} ${JSON.stringify(shown)}` +
            `${dropped ? `; ${dropped} rollouts in zero-variance groups dropped` : ""}${malformed ? `; ${malformed} malformed lines skipped` : ""}\n` +
            `advantages: ${formatAdvantageDiagnostics(diag)}\n`,
        );
      } finally {
        spill.dispose();
      }
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
