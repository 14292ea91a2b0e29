import { createHash } from "node:crypto";
import { presetNames, presetOptions } from "../advantage/presets.js";
import { DEFAULT_CURRICULUM } from "../curriculum/options.js";
import { compileTokenAdvantages } from "./token-advantages.js";
import { BUILTINS, withPlugins } from "../plugins/catalog.js";
import type { Catalog, LoadedPlugin } from "../plugins/catalog.js";
import { graderToSpec, isGraderDocument } from "./dialects/openai.js";
import { compileAggregate } from "./aggregate.js";
import { compileSchedules, extractSchedules } from "./schedules.js";
import { compileStages } from "./stages.js";
import { validate } from "./issues.js";
import type { Issue } from "./issues.js";
import { COMPONENT_BASE_KEYS, specSchema } from "./schema.js";
import type { CompiledComponent, CompiledSpec, PlainSpec } from "./types.js";
import type { EstimatorDefinition } from "../advantage/types.js";
import type { VerifierDefinition } from "../verifiers/types.js";

/** A validation issue with its path into the spec document. */
export type SpecIssue = Issue;

/** How {@link compileSpec} resolves what the spec names. */
export interface CompileOptions {
  /** Directory that the spec's `plugins:` paths are relative to (the spec file's; default: the working directory). */
  baseDir?: string;
}

/** Loads the document's `plugins:` (a list of module paths) into a catalog; issues point at `plugins[i]`. */
function plugins(
  data: unknown,
  baseDir: string,
): { catalog: Catalog; plugins: LoadedPlugin[] } | { issues: SpecIssue[] } {
  const list =
    data !== null && typeof data === "object" && !Array.isArray(data)
      ? (data as { plugins?: unknown }).plugins
      : undefined;
  if (list === undefined) return { catalog: BUILTINS, plugins: [] };
  if (!Array.isArray(list) || !list.every((p) => typeof p === "string" && p !== ""))
    return { issues: [{ path: ["plugins"], message: "expected a list of module paths (relative to the spec)" }] };
  const r = withPlugins(list as string[], baseDir);
  if ("issues" in r) return { issues: r.issues.map((i) => ({ path: ["plugins", i.index], message: i.message })) };
  return r;
}

/** Canonical JSON (sorted keys) for hashing. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    return `{${Object.keys(v)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v);
}

type Found = Extract<ReturnType<typeof extractSchedules>, { found: unknown }>["found"];

/**
 * Validates component `i`'s type and type options (every key but the common ones), also at the extremes of any
 * schedule on a type option. Pushes problems to `issues`; returns the definition and options when valid.
 */
function typeOptions(
  c: Record<string, unknown>,
  i: number,
  found: Found,
  issues: SpecIssue[],
  catalog: Catalog,
): { def: VerifierDefinition<unknown>; options: Record<string, unknown> } | undefined {
  const def = typeof c.type === "string" ? catalog.verifiers.get(c.type) : undefined;
  if (!def) {
    if (typeof c.type === "string")
      issues.push({
        path: ["components", i, "type"],
        message: `unknown verifier type "${c.type}"; known: ${catalog.verifiers.names().join(", ")}`,
      });
    return undefined;
  }
  const raw: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(c)) if (!COMPONENT_BASE_KEYS.has(k)) raw[k] = v;
  const opts = validate(def.options, raw, ["components", i]);
  if ("issues" in opts) {
    issues.push(...opts.issues);
    return undefined;
  }
  // A scheduled type option must be valid over its whole range, not only at step 0.
  for (const f of found) {
    if (f.component !== i || COMPONENT_BASE_KEYS.has(f.key)) continue;
    for (const v of f.def.extremes(f.params)) {
      const r = validate(def.options, { ...raw, [f.key]: v }, ["components", i]);
      if ("issues" in r)
        issues.push(
          ...r.issues.map((e) => ({
            ...e,
            message: `${e.message} (when the ${f.def.name} schedule of ${f.key} is at ${v})`,
          })),
        );
    }
  }
  return { def, options: opts.data as Record<string, unknown> };
}

/** Resolves the `advantage:` block: estimator, preset, options. Pushes problems to `issues`. */
function advantageBlock(
  adv: Record<string, unknown>,
  issues: SpecIssue[],
  catalog: Catalog,
): { est?: EstimatorDefinition<unknown>; options: Record<string, unknown> } {
  const {
    estimator: estName = "grpo",
    preset,
    tokens: _tokens, // per-token advantages: resolved against the components by compileTokenAdvantages
    ...own
  } = adv as { estimator?: unknown; preset?: unknown; tokens?: unknown } & Record<string, unknown>;
  if (typeof estName !== "string") return { options: {} }; // the schema reports the type
  const est = catalog.estimators.get(estName);
  if (!est) {
    issues.push({
      path: ["advantage", "estimator"],
      message: `unknown estimator "${estName}"; known: ${catalog.estimators.names().join(", ")}`,
    });
    return { options: {} };
  }
  if (preset !== undefined && (typeof preset !== "string" || presetNames(est.name).indexOf(preset) < 0)) {
    issues.push({
      path: ["advantage", "preset"],
      message: `no preset ${JSON.stringify(preset)} for estimator ${est.name}; known: ${presetNames(est.name).join(", ") || "none"}`,
    });
    return { est, options: {} };
  }
  const r = validate(est.options, { ...(preset !== undefined ? presetOptions(est.name, preset) : {}), ...own }, [
    "advantage",
  ]);
  if ("issues" in r) {
    issues.push(...r.issues);
    return { est, options: {} };
  }
  return { est, options: r.data as Record<string, unknown> };
}

/**
 * When the top-level schema fails, the parts it did not look into are still checked — each component's type and
 * type options, duplicate names, the advantage block — so one run reports every problem.
 */
function partIssues(data: unknown, found: Found, catalog: Catalog): SpecIssue[] {
  const issues: SpecIssue[] = [];
  if (data === null || typeof data !== "object") return issues;
  const d = data as Record<string, unknown>;
  if (Array.isArray(d.components)) {
    const seen = new Map<string, number>();
    d.components.forEach((c: unknown, i) => {
      if (c === null || typeof c !== "object" || Array.isArray(c)) return;
      const comp = c as Record<string, unknown>;
      if (typeof comp.name === "string") {
        if (seen.has(comp.name))
          issues.push({
            path: ["components", i, "name"],
            message: `duplicate component name "${comp.name}" (also components[${seen.get(comp.name)}])`,
          });
        else seen.set(comp.name, i);
      }
      typeOptions(comp, i, found, issues, catalog);
    });
  }
  if (d.advantage !== null && typeof d.advantage === "object" && !Array.isArray(d.advantage))
    advantageBlock(d.advantage as Record<string, unknown>, issues, catalog);
  return issues;
}

/**
 * Validates spec data (already parsed from YAML/JSON) and resolves every name against the registries.
 * Collects every problem rather than stopping at the first.
 * @param data the parsed document.
 * @param defaultName name used when the spec has no `name` (the file's base name).
 * @returns the compiled spec, or the list of issues with their document paths.
 */
export function compileSpec(
  data: unknown,
  defaultName: string,
  options: CompileOptions = {},
): { spec: CompiledSpec } | { issues: SpecIssue[] } {
  // Schedules (`weight: {schedule: linear, ...}`) are taken out first; their step-0 values stand in for them.
  // An OpenAI grader JSON (detected by its `type`) is converted to a spec first; issues point into the grader.
  if (isGraderDocument(data)) {
    const g = graderToSpec(data);
    if ("issues" in g) return g;
    data = g.data;
  }
  const loaded = plugins(data, options.baseDir ?? process.cwd());
  if ("issues" in loaded) return loaded;
  const { catalog } = loaded;
  const pre = extractSchedules(data, catalog.schedules);
  if ("issues" in pre) return pre;
  const parsed = validate(specSchema, pre.data, [], "key");
  if ("issues" in parsed) return { issues: [...parsed.issues, ...partIssues(pre.data, pre.found, catalog)] };
  const s = parsed.data;
  const issues: SpecIssue[] = [];
  const names = new Map<string, number>();
  s.components.forEach((c, i) => {
    if (names.has(c.name))
      issues.push({
        path: ["components", i, "name"],
        message: `duplicate component name "${c.name}" (also components[${names.get(c.name)}])`,
      });
    else names.set(c.name, i);
  });

  const components: CompiledComponent[] = [];
  s.components.forEach((c, i) => {
    const typed = typeOptions(c, i, pre.found, issues, catalog);
    if (!typed) return;
    const { def, options } = typed;
    let gate: number | undefined;
    if (c.gate !== undefined) {
      gate = names.get(c.gate);
      if (gate === undefined)
        issues.push({
          path: ["components", i, "gate"],
          message: `gate "${c.gate}" names no component; known: ${[...names.keys()].join(", ")}`,
        });
      else if (gate === i) issues.push({ path: ["components", i, "gate"], message: "a component cannot gate itself" });
    }
    components.push({
      name: c.name,
      type: c.type,
      weight: c.weight,
      passThreshold: c.passThreshold ?? def.defaultPassThreshold ?? 1,
      ...(gate !== undefined ? { gate } : {}),
      timeoutMs: c.timeoutMs ?? def.defaultTimeoutMs,
      ...(c.reference !== undefined && c.reference !== "reference" ? { referencePath: c.reference } : {}),
      options,
      definition: def,
      ...(catalog.verifierModule(c.type) !== undefined ? { module: catalog.verifierModule(c.type) } : {}),
    });
  });

  // Gate chains are allowed; cycles are not.
  if (issues.length === 0) {
    components.forEach((c, i) => {
      const seen = new Set<number>([i]);
      for (let g = c.gate; g !== undefined; g = components[g]!.gate) {
        if (seen.has(g)) {
          issues.push({ path: ["components", i, "gate"], message: `gate cycle through "${components[g]!.name}"` });
          break;
        }
        seen.add(g);
      }
    });
  }

  // group-context stages (composition's second pass), on the engine's thread
  if (issues.length === 0) compileStages(components, pre.found, issues);

  const names0 = s.components.map((c) => c.name);
  const sched = compileSchedules(pre.found, names0);
  if ("issues" in sched) issues.push(...sched.issues);
  const agg =
    issues.length === 0
      ? compileAggregate(s.aggregate, { names: names0, gates: components.map((c) => c.gate) }, catalog.aggregators)
      : undefined;
  if (agg && "issues" in agg) issues.push(...agg.issues);

  const { est, options: advOptions } = advantageBlock(s.advantage ?? { estimator: "grpo" }, issues, catalog);
  if (s.filter?.component !== undefined && !names.has(s.filter.component))
    issues.push({
      path: ["filter", "component"],
      message: `"${s.filter.component}" names no component; known: ${[...names.keys()].join(", ")}`,
    });
  const tokens =
    s.advantage?.tokens !== undefined ? compileTokenAdvantages(s.advantage.tokens, components, issues) : undefined;
  if (issues.length > 0 || !est || !agg || "issues" in agg || "issues" in sched) return { issues };

  const plain: PlainSpec = {
    name: s.name ?? defaultName,
    ...(s.plugins !== undefined && s.plugins.length > 0 ? { plugins: s.plugins } : {}),
    components: components.map((c) => ({
      name: c.name,
      type: c.type,
      weight: c.weight,
      passThreshold: c.passThreshold,
      ...(c.gate !== undefined ? { gate: components[c.gate]!.name } : {}),
      timeoutMs: c.timeoutMs,
      ...(c.referencePath !== undefined ? { reference: c.referencePath } : {}),
      options: c.options,
    })),
    aggregate: agg.plain,
    ...(sched.schedules.length > 0
      ? { schedules: Object.fromEntries(sched.schedules.map((x) => [x.path, { schedule: x.schedule, ...x.params }])) }
      : {}),
    onUnscorable: s.onUnscorable,
    advantage: {
      estimator: est.name,
      options: advOptions,
      ...(tokens
        ? {
            tokens: {
              components: Object.fromEntries(tokens.components.map((c) => [c.name, c.coef])),
              returns: tokens.returns,
            },
          }
        : {}),
    },
    ...(s.curriculum ? { curriculum: s.curriculum } : {}),
    ...(s.filter ? { filter: s.filter } : {}),
    ...(s.replay ? { replay: s.replay } : {}),
  };
  const hash = createHash("sha256").update(canonical(plain)).digest("hex").slice(0, 16);
  return {
    spec: {
      name: plain.name,
      hash,
      components,
      aggregate: agg.aggregate,
      schedules: sched.schedules,
      onUnscorable: s.onUnscorable,
      advantage: { estimator: est, options: advOptions, ...(tokens ? { tokens } : {}) },
      curriculum: s.curriculum ?? DEFAULT_CURRICULUM,
      ...(s.filter ? { filter: s.filter } : {}),
      ...(s.replay ? { replay: s.replay } : {}),
      plain,
      plugins: loaded.plugins,
    },
  };
}
