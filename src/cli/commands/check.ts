import { relative } from "node:path";
import type { Command } from "commander";
import { ScheduleRuntime } from "../../schedule/runtime.js";
import { isRoutedSpec, loadAnySpec } from "../../spec/routes.js";
import type { RoutedSpec } from "../../spec/routes.js";
import type { CompiledSpec } from "../../spec/types.js";
import { table } from "../../diagnostics/format.js";
import { UserError } from "../../core/errors.js";
import { specHealth } from "../../engine/health.js";
import { parseSteps, readStateFile } from "../state.js";
import type { Rollout } from "../../core/types.js";
import { readLines } from "../../io/jsonl.js";
import { toRollout } from "../../io/rollout.js";

/** Formats a number for tables: up to 6 significant decimals, no binary noise. */
function num(v: number): string {
  return String(Number(v.toPrecision(12)));
}

/** One line per schedule: its path and definition. */
function describeSchedules(spec: CompiledSpec): string[] {
  if (spec.schedules.length === 0) return [];
  const lines = ["schedules (the rollout's `step`, default 0, picks the value; the table above shows step 0):"];
  for (const s of spec.schedules) {
    const { component: tracked, ...params } = s.params;
    const extra =
      s.tracks !== undefined
        ? ` — tracks the pass rate of ${typeof tracked === "string" ? tracked : spec.components[s.tracks]!.name}`
        : "";
    lines.push(`  ${s.path}: ${s.schedule} ${JSON.stringify(params)}${extra}`);
  }
  return lines;
}

/** Human-readable description of what a compiled spec computes. */
export function describeSpec(spec: CompiledSpec): string {
  const lines = [`spec ${spec.name} (hash ${spec.hash})`];
  for (const p of spec.plugins) lines.push(`plugin ${p.path}: ${p.defines.join(", ") || "defines nothing"}`);
  const scheduled = new Set(spec.schedules.map((s) => `${s.component}.${s.key}`));
  const mark = (i: number, key: string, v: number) => `${num(v)}${scheduled.has(`${i}.${key}`) ? "*" : ""}`;
  const rows = [["component", "type", "weight", "pass ≥", "gate", "deadline", "runs in"]];
  spec.plain.components.forEach((c, i) => {
    const def = spec.components[i]!.definition;
    const runs = spec.components[i]!.stage ? `${def.isolation} + group stage` : def.isolation;
    rows.push([
      c.name,
      c.type,
      mark(i, "weight", c.weight),
      mark(i, "passThreshold", c.passThreshold),
      c.gate ?? "-",
      `${c.timeoutMs} ms`,
      runs,
    ]);
  });
  lines.push(table(rows));
  spec.components.forEach((c, i) => {
    lines.push(`  ${c.name}: ${c.definition.summary}`);
    if (Object.keys(c.options).length > 0) {
      const opts = Object.fromEntries(
        Object.entries(c.options).map(([k, v]) => [k, scheduled.has(`${i}.${k}`) ? `${String(v)} (scheduled)` : v]),
      );
      lines.push(`    options ${JSON.stringify(opts)}`);
    }
  });
  lines.push(...describeSchedules(spec));
  const agg = spec.aggregate;
  let formula: string;
  if (agg.type === "weighted-sum" || agg.type === "gated") {
    const counted = spec.components.filter((c, i) => c.weight !== 0 || scheduled.has(`${i}.weight`));
    formula =
      counted
        .map(
          (c) =>
            `${num(c.weight)}·${c.name}${c.gate !== undefined ? `[if ${spec.components[c.gate]!.name} passes]` : ""}`,
        )
        .join(" + ") || "0";
  } else formula = agg.describe;
  const unscorable = spec.onUnscorable === "zero" ? "counts as 0" : "reward null, excluded from advantages";
  lines.push(`reward = ${formula}  (${agg.type}; unscorable → ${unscorable})`);
  lines.push(
    `advantage: ${spec.advantage.estimator.name} ${JSON.stringify(spec.advantage.options)} — ${spec.advantage.estimator.summary}`,
  );
  return lines.join("\n");
}

/** Human-readable description of a routed spec: the routing rule, then each route as {@link describeSpec} shows it. */
export function describeRoutedSpec(r: RoutedSpec): string {
  const named = [...r.routes.keys()].filter((k) => k !== "default");
  const lines = [`spec ${r.name} (hash ${r.hash}): routes by ${r.by}`];
  const rows = [["route", "spec", "components", "estimator", "from"]];
  for (const [key, s] of r.routes)
    rows.push([
      key === "default" ? "default (any other value)" : key,
      s.name,
      s.components.map((c) => c.name).join(", "),
      s.advantage.estimator.name,
      r.files[key] !== undefined ? relative(process.cwd(), r.files[key]) : "inline",
    ]);
  lines.push(table(rows));
  lines.push(
    r.routes.has("default")
      ? `a rollout whose ${r.by} is none of ${named.join(", ")} (or missing) is scored by the default route`
      : `a rollout whose ${r.by} is none of ${named.join(", ")} (or missing) is skipped and reported, never scored`,
  );
  lines.push(
    r.advantage
      ? `advantages: ONE ${r.advantage.estimator.name} ${JSON.stringify(r.advantage.options)} over the whole mixed batch (batch statistics span every route; the routes' own advantage blocks are not used)`
      : "advantages: each route's estimator over that route's rollouts (group statistics per group; batch statistics per route); a group must not span routes",
  );
  for (const [key, s] of r.routes) lines.push("", `route ${key}: ${describeSpec(s).replace(/\n/g, "\n  ")}`);
  return lines.join("\n");
}

/**
 * Values of every scheduled option at each step: `{steps, values: {"components.<name>.<option>": [...]}}`.
 * A performance schedule shows its start value, or with a state the values it moved to.
 */
export function scheduleTable(
  spec: CompiledSpec,
  steps: readonly number[],
  state?: Parameters<ScheduleRuntime["restore"]>[0],
): { steps: number[]; values: Record<string, number[]> } {
  const rt = new ScheduleRuntime(spec);
  if (state) rt.restore(state);
  return { steps: [...steps], values: rt.table(steps) };
}

interface CheckOpts {
  json?: boolean;
  steps?: string;
  state?: string;
  hostCheck?: boolean;
  rollouts?: string;
}

/**
 * The rollouts of `path` (JSONL, `.gz` too) that can be read, for the host checks that depend on the data (the code
 * verifier scans their programs and tests for imports); lines that are not rollouts are skipped.
 */
async function readSample(path: string): Promise<Rollout[]> {
  const out: Rollout[] = [];
  for await (const { line, text } of readLines(path, { onProblem: () => undefined })) {
    if (!text.trim()) continue;
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch {
      continue;
    }
    const r = toRollout(record, line, {});
    if ("rollout" in r) out.push(r.rollout);
  }
  return out;
}

/** Exit code of `check` for a valid spec that this host cannot run (the code sandbox's self-test failed). */
export const HOST_BROKEN_EXIT = 4;

/**
 * Runs the host checks of the spec's components (the code sandbox's self-test: a trivial program per language and
 * reference kind) and prints one line; throws a UserError (exit 4) when the host cannot run the spec, since every
 * code verdict on it would be `sandbox_error`. Prints nothing for a spec without such components.
 */
async function reportHost(specs: Array<[string, CompiledSpec]>, sample?: readonly Rollout[]): Promise<void> {
  const checked = specs.flatMap(([p, s]) =>
    s.components.filter((c) => c.definition.health !== undefined).map((c) => `${p}${c.name} (${c.type})`),
  );
  if (checked.length === 0) return;
  const problems = (await Promise.all(specs.map(([p, s]) => specHealth(s, p, sample)))).flat();
  if (problems.length === 0) {
    const data = sample ? `; the modules ${sample.length} rollouts import are there` : "";
    process.stdout.write(`host: ok (self-test passed for ${checked.join(", ")}${data})\n`);
    return;
  }
  const lines = problems.map((p) => `  ${p.component} (${p.type}): ${p.problem}`);
  throw Object.assign(
    new UserError(
      `this host cannot run the spec: every verdict of these components would be sandbox_error (null)\n${lines.join("\n")}`,
    ),
    { exitCode: HOST_BROKEN_EXIT },
  );
}

/** `rewardkit check <spec>`: validate a spec and print what it computes; `--steps` prints scheduled values. */
export function registerCheck(program: Command): void {
  program
    .command("check")
    .description("validate a reward spec and print what it will compute")
    .argument("<spec>", "reward spec (YAML or JSON), or an OpenAI grader JSON")
    .option("--json", "print the normalized spec (or, with --steps, the scheduled values) as JSON")
    .option("--steps <list>", "print every scheduled option's value at these steps, e.g. 0,50,100")
    .option("--state <file>", "performance-schedule state to show values from (as saved by score --state)")
    .option(
      "--no-host-check",
      "skip the host checks (the code sandbox's self-test), which otherwise run after the description (exit 4 when the host cannot run the spec)",
    )
    .option(
      "--rollouts <file>",
      "also check the host against a task set (JSONL): the Python modules its programs and tests import must import in the code sandbox (exit 4 naming the missing ones)",
    )
    .action(async (path: string, o: CheckOpts) => {
      const any = loadAnySpec(path);
      const sample = o.rollouts !== undefined ? await readSample(o.rollouts) : undefined;
      if (isRoutedSpec(any)) {
        if (o.steps !== undefined)
          throw new UserError(
            "--steps: a routed spec's schedules are per route; check a route's own spec file with --steps",
          );
        process.stdout.write(
          o.json ? JSON.stringify({ ...any.plain, hash: any.hash }, null, 2) + "\n" : describeRoutedSpec(any) + "\n",
        );
        if (!o.json && o.hostCheck !== false)
          await reportHost(
            [...any.routes].map(([k, s]) => [`${k}/`, s]),
            sample,
          );
        return;
      }
      const spec = any;
      if (o.steps !== undefined) {
        const steps = parseSteps(o.steps);
        const state = o.state !== undefined ? readStateFile(o.state) : undefined;
        const t = scheduleTable(spec, steps, state);
        if (o.json) process.stdout.write(JSON.stringify(t) + "\n");
        else {
          const rows = [
            ["option \\ step", ...steps.map(num)],
            ...Object.entries(t.values).map(([p, vs]) => [p, ...vs.map(num)]),
          ];
          process.stdout.write(
            (Object.keys(t.values).length > 0 ? table(rows) : `spec ${spec.name} has no schedules`) + "\n",
          );
        }
        return;
      }
      process.stdout.write(
        o.json ? JSON.stringify({ ...spec.plain, hash: spec.hash }, null, 2) + "\n" : describeSpec(spec) + "\n",
      );
      if (!o.json && o.hostCheck !== false) await reportHost([["", spec]], sample);
    });
}
