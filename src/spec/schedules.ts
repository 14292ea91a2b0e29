import { isScheduleObject, schedules as builtinSchedules } from "../schedule/registry.js";
import type { Registry } from "../core/registry.js";
import type { ScheduleDefinition, ScheduledOption, ScheduleTarget } from "../schedule/types.js";
import { UNSCHEDULABLE_KEYS } from "./schema.js";
import { validate } from "./issues.js";
import type { Issue } from "./issues.js";

/** A schedule found in the document, before component names are resolved. */
export interface FoundSchedule {
  component: number;
  key: string;
  def: ScheduleDefinition<unknown>;
  params: Record<string, unknown>;
}

/**
 * Pulls every `{schedule: ...}` value out of the components of a parsed document and puts its step-0 value in its
 * place, so the rest of compile validates numbers as usual. Returns the rewritten document (the input is not
 * modified) and the schedules found, or the issues (paths into the document).
 */
export function extractSchedules(
  data: unknown,
  registry: Registry<ScheduleDefinition> = builtinSchedules,
): { data: unknown; found: FoundSchedule[] } | { issues: Issue[] } {
  const comps = (data as { components?: unknown } | null)?.components;
  if (!Array.isArray(comps)) return { data, found: [] };
  const found: FoundSchedule[] = [];
  const issues: Issue[] = [];
  let changed = false;
  const out = comps.map((c: unknown, i) => {
    if (c === null || typeof c !== "object" || Array.isArray(c)) return c;
    let copy: Record<string, unknown> | undefined;
    for (const [key, v] of Object.entries(c as Record<string, unknown>)) {
      if (!isScheduleObject(v)) continue;
      const path = ["components", i, key];
      if (UNSCHEDULABLE_KEYS.has(key)) {
        issues.push({
          path,
          message: `${key} cannot be scheduled (schedules apply to numeric options: weight, passThreshold, type options)`,
        });
        continue;
      }
      const def = typeof v.schedule === "string" ? registry.get(v.schedule) : undefined;
      if (!def) {
        issues.push({
          path: [...path, "schedule"],
          message: `unknown schedule "${String(v.schedule)}"; known: ${registry.names().join(", ")}`,
        });
        continue;
      }
      const { schedule: _name, ...rest } = v;
      const r = validate(def.options, rest, path, `${def.name} schedule option`);
      if ("issues" in r) {
        issues.push(...r.issues);
        continue;
      }
      const params = r.data as Record<string, unknown>;
      copy ??= { ...(c as Record<string, unknown>) };
      copy[key] = def.at(params)(0);
      found.push({ component: i, key, def, params });
      changed = true;
    }
    return copy ?? c;
  });
  if (issues.length > 0) return { issues };
  return { data: changed ? { ...(data as object), components: out } : data, found };
}

/**
 * Resolves the schedules found against the compiled components: option paths, targets, and the component a
 * `performance` schedule tracks (its `component` option, default the owner).
 */
export function compileSchedules(
  found: readonly FoundSchedule[],
  names: readonly string[],
): { schedules: ScheduledOption[] } | { issues: Issue[] } {
  const issues: Issue[] = [];
  const schedules = found.map((f): ScheduledOption => {
    const target: ScheduleTarget = f.key === "weight" || f.key === "passThreshold" ? f.key : "option";
    const s: ScheduledOption = {
      path: `components.${names[f.component]}.${f.key}`,
      component: f.component,
      key: f.key,
      target,
      schedule: f.def.name,
      params: f.params,
      at: f.def.at(f.params),
    };
    if (f.def.stateful) {
      const tracked = typeof f.params.component === "string" ? f.params.component : names[f.component]!;
      const t = names.indexOf(tracked);
      if (t < 0)
        issues.push({
          path: ["components", f.component, f.key, "component"],
          message: `unknown component "${tracked}"; known: ${names.join(", ")}`,
        });
      s.tracks = t;
    }
    return s;
  });
  return issues.length > 0 ? { issues } : { schedules };
}
