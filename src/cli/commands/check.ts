import type { Command } from "commander";
import { loadSpec } from "../../spec/load.js";
import type { CompiledSpec } from "../../spec/types.js";
import { table } from "../../diagnostics/format.js";

/** Human-readable description of what a compiled spec computes. */
export function describeSpec(spec: CompiledSpec): string {
  const lines = [`spec ${spec.name} (hash ${spec.hash})`];
  const rows = [["component", "type", "weight", "pass ≥", "gate", "deadline", "runs in"]];
  for (const c of spec.plain.components) {
    const def = spec.components.find((k) => k.name === c.name)!.definition;
    rows.push([c.name, c.type, String(c.weight), String(c.passThreshold), c.gate ?? "-", `${c.timeoutMs} ms`, def.isolation]);
  }
  lines.push(table(rows));
  for (const c of spec.components) {
    lines.push(`  ${c.name}: ${c.definition.summary}`);
    if (Object.keys(c.options).length > 0) lines.push(`    options ${JSON.stringify(c.options)}`);
  }
  const counted = spec.components.filter((c) => c.weight !== 0);
  const formula = counted.map((c) => `${c.weight}·${c.name}${c.gate !== undefined ? `[if ${spec.components[c.gate]!.name} passes]` : ""}`).join(" + ");
  lines.push(`reward = ${formula || "0"}  (${spec.aggregate}; unscorable → ${spec.onUnscorable === "zero" ? "counts as 0" : "reward null, excluded from advantages"})`);
  lines.push(`advantage: ${spec.advantage.estimator.name} ${JSON.stringify(spec.advantage.options)} — ${spec.advantage.estimator.summary}`);
  return lines.join("\n");
}

/** `rewardkit check <spec>`: validate a spec and print what it computes. */
export function registerCheck(program: Command): void {
  program
    .command("check")
    .description("validate a reward spec and print what it will compute")
    .argument("<spec>", "reward spec (YAML or JSON)")
    .option("--json", "print the normalized spec as JSON")
    .action((path: string, o: { json?: boolean }) => {
      const spec = loadSpec(path);
      process.stdout.write(o.json ? JSON.stringify({ ...spec.plain, hash: spec.hash }, null, 2) + "\n" : describeSpec(spec) + "\n");
    });
}
