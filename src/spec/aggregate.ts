import { aggregators } from "../compose/registry.js";
import type { AggregateContext, AggregatorDefinition } from "../compose/types.js";
import type { Registry } from "../core/registry.js";
import type { CompiledAggregate, PlainSpec } from "./types.js";
import { isMissing, specErrorMap, zodIssues } from "./issues.js";
import type { Issue } from "./issues.js";

/**
 * Compiles the spec's `aggregate` (a type name, or `{type, ...options}`) against its components.
 * @returns the compiled aggregate and its plain form, or issues with document paths.
 */
export function compileAggregate(
  raw: string | ({ type: string } & Record<string, unknown>),
  ctx: AggregateContext,
  registry: Registry<AggregatorDefinition> = aggregators,
): { aggregate: CompiledAggregate; plain: PlainSpec["aggregate"] } | { issues: Issue[] } {
  const { type, ...own } = typeof raw === "string" ? { type: raw } : raw;
  const at: PropertyKey[] = ["aggregate"];
  const def = registry.get(type);
  if (!def)
    return {
      issues: [
        {
          path: typeof raw === "string" ? at : [...at, "type"],
          message: `unknown aggregator "${type}"; known: ${registry.names().join(", ")}`,
        },
      ],
    };
  const r = def.options.safeParse(own, { error: specErrorMap });
  if (!r.success) {
    const hint = typeof raw === "string" ? `; write aggregate: {type: ${type}, ...}` : "";
    const issues = zodIssues(r.error, at, `${type} option`);
    return {
      issues: issues.map((i, k) =>
        hint && isMissing(r.error, r.error.issues[k]!, own) ? { ...i, message: i.message + hint } : i,
      ),
    };
  }
  const options = r.data as Record<string, unknown>;
  const c = def.compile(options, ctx);
  if ("issues" in c) return { issues: c.issues.map((i) => ({ path: [...at, ...i.path], message: i.message })) };
  return {
    aggregate: {
      type,
      options,
      aggregate: c.aggregate,
      uses: c.uses ?? ctx.names.map(() => true),
      weighted: def.weighted,
      describe: c.describe,
    },
    plain: Object.keys(options).length > 0 ? { type, ...options } : type,
  };
}
