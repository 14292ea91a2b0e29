import type { Command } from "commander";
import { computeAdvantages, nullable } from "../../advantage/compute.js";
import { GroupIds } from "../../advantage/groups.js";
import { presetOptions } from "../../advantage/presets.js";
import { estimatorNames, getEstimator } from "../../advantage/registry.js";
import { readLines } from "../../io/jsonl.js";
import { openLineWriter } from "../../io/output.js";
import { parseFieldMap } from "../../io/fields.js";
import { toRollout } from "../../io/rollout.js";
import { Spill } from "../../io/spill.js";
import { formatProblem } from "../../spec/errors.js";
import type { Problem } from "../../spec/errors.js";
import { UsageError } from "../errors.js";
import { collect, parseSettings } from "../options.js";

/** Reads a component score from `{score}` objects or bare numbers; NaN when absent or null. */
function componentScore(v: unknown): number {
  const s = v !== null && typeof v === "object" ? (v as { score?: unknown }).score : v;
  return typeof s === "number" && Number.isFinite(s) ? s : NaN;
}

/** `rewardkit advantages <scored.jsonl> --estimator <name>`: recompute advantages of already-scored rollouts. */
export function registerAdvantages(program: Command): void {
  program
    .command("advantages")
    .description("compute group advantages for scored rollouts (needs id, group, reward, components)")
    .argument("<input>", "scored JSONL (.gz by extension), or - for stdin")
    .option("-e, --estimator <name>", "estimator, as verl names it", "grpo")
    .option("--preset <name>", "a peer's convention for the estimator (e.g. verl, trl, openrlhf)")
    .option("--set <key=value>", "estimator option (repeatable), e.g. --set epsilon=1e-4", collect, [])
    .option("--map <field=source>", "read a field from another name (repeatable)", collect, [])
    .option("-o, --output <file>", "output JSONL (default: stdout)")
    .option("--strict", "stop at the first malformed line")
    .action(async (input: string, o: { estimator: string; preset?: string; set: string[]; map: string[]; output?: string; strict?: boolean }) => {
      const est = getEstimator(o.estimator);
      if (!est) throw new UsageError(`--estimator ${o.estimator}: unknown; known: ${estimatorNames().join(", ")}`);
      let raw: Record<string, unknown> = parseSettings(o.set);
      if (o.preset !== undefined) {
        try {
          raw = { ...presetOptions(est.name, o.preset), ...raw };
        } catch (e) {
          throw new UsageError(`--preset: ${(e as Error).message}`);
        }
      }
      const parsed = est.options.safeParse(raw);
      if (!parsed.success) throw new UsageError(`estimator ${est.name} options: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
      const map = parseFieldMap(o.map);
      const file = input === "-" ? "<stdin>" : input;
      const groups = new GroupIds();
      const rewards: number[] = [];
      const groupIds: number[] = [];
      const compNames = new Map<string, number>();
      const comps: number[][] = [];
      let malformed = 0;
      const spill = new Spill();
      try {
        const report = (p: Problem): void => {
          if (o.strict) throw new UsageError(formatProblem(p));
          if (malformed++ < 20) process.stderr.write(`skipped ${formatProblem(p)}\n`);
        };
        for await (const { line, text } of readLines(input)) {
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
          const reward = record[map.reward ?? "reward"];
          if (reward !== null && (typeof reward !== "number" || !Number.isFinite(reward))) {
            report({ file, line, path: map.reward ?? "reward", message: "expected a number or null" });
            continue;
          }
          const k = rewards.length;
          rewards.push(reward ?? NaN);
          groupIds.push(groups.idOf(r.rollout.group));
          const cs = record[map.components ?? "components"];
          if (cs !== null && typeof cs === "object") {
            for (const [name, v] of Object.entries(cs)) {
              let j = compNames.get(name);
              if (j === undefined) {
                j = compNames.size;
                compNames.set(name, j);
                comps.push([]);
              }
              comps[j]![k] = componentScore(v);
            }
          }
          await spill.write(text);
        }
        const n = rewards.length;
        const scores = comps.map((c) => Float64Array.from({ length: n }, (_, i) => c[i] ?? NaN));
        const adv = computeAdvantages(est, parsed.data, Float64Array.from(rewards), groupIds, { components: { names: [...compNames.keys()], scores } });
        const writer = openLineWriter(o.output);
        let k = 0;
        for await (const { text } of spill.read()) {
          const record = JSON.parse(text) as Record<string, unknown>;
          record.advantage = nullable(adv[k++]!);
          await writer.write(JSON.stringify(record));
        }
        await writer.close();
        process.stderr.write(`advantages: ${n} rollouts in ${groups.size} groups with ${est.name} ${JSON.stringify(parsed.data)}${malformed ? `; ${malformed} malformed lines skipped` : ""}\n`);
      } finally {
        spill.dispose();
      }
    });
}
