import type { z } from "zod";
import type { EstimatorDefinition } from "../advantage/types.js";
import type { AggregatorDefinition } from "../compose/types.js";
import type { ScheduleDefinition } from "../schedule/types.js";
import type { VerifierDefinition } from "../verifiers/types.js";

/**
 * The brand `define*` puts on a definition (a registered symbol, so two copies of rewardkit agree on it): the
 * plugin loader tells a verifier from an aggregator, an estimator or a schedule by it.
 */
export const PLUGIN_KIND: unique symbol = Symbol.for("rewardkit.plugin-kind") as never;

/** The four kinds of definition a plugin module may export. */
export type PluginKind = "verifier" | "aggregator" | "estimator" | "schedule";

/** A plugin module a spec loaded, for `rewardkit check`. */
export interface LoadedPlugin {
  /** The path as the spec writes it. */
  path: string;
  /** Absolute path. */
  file: string;
  /** What it defines: `verifier word-target`, `estimator my_est` … */
  defines: string[];
}

/** A definition made by one of the `define*` functions. */
export type PluginDefinition =
  | (VerifierDefinition & { readonly [PLUGIN_KIND]: "verifier" })
  | (AggregatorDefinition & { readonly [PLUGIN_KIND]: "aggregator" })
  | (EstimatorDefinition & { readonly [PLUGIN_KIND]: "estimator" })
  | (ScheduleDefinition & { readonly [PLUGIN_KIND]: "schedule" });

/** What {@link defineVerifier} takes: a {@link VerifierDefinition} whose `summary`, `isolation` and deadline may be left out. */
export type VerifierPlugin<O> = Omit<VerifierDefinition<O>, "summary" | "isolation" | "defaultTimeoutMs"> & {
  /** One line for `rewardkit check` (default: "plugin verifier <type>"). */
  summary?: string;
  /**
   * `worker` (default): runs in the worker pool under the component's hard deadline, so a verifier that loops
   * forever yields `timeout` and other rollouts are unharmed. `inline`: on the engine's thread, for verifiers that
   * are linear-time by construction (a loop there cannot be stopped).
   */
  isolation?: "worker" | "inline";
  /** Default hard deadline per rollout, ms (default 10 000; a component's `timeoutMs` overrides it). */
  defaultTimeoutMs?: number;
};

const KEBAB = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

function brand<T extends object, K extends PluginKind>(d: T, kind: K): T & { readonly [PLUGIN_KIND]: K } {
  const out = { ...d };
  Object.defineProperty(out, PLUGIN_KIND, { value: kind, enumerable: false });
  return out as T & { readonly [PLUGIN_KIND]: K };
}

function isSchema(v: unknown): v is z.ZodType {
  return typeof (v as { safeParse?: unknown } | null)?.safeParse === "function";
}

/**
 * Checks a definition's shape (what TypeScript checks for a typed caller, for plugins written in plain JS).
 * @returns the first problem in words, or `undefined` when it is well formed.
 */
export function definitionProblem(kind: PluginKind, d: unknown): string | undefined {
  if (d === null || typeof d !== "object") return `a ${kind} definition must be an object`;
  const o = d as Record<string, unknown>;
  const key = kind === "verifier" || kind === "aggregator" ? "type" : "name";
  const name = o[key];
  const style = kind === "estimator" ? SNAKE : KEBAB;
  if (typeof name !== "string" || !style.test(name))
    return `${kind} ${key} must be a ${kind === "estimator" ? "snake_case" : "kebab-case"} string (got ${JSON.stringify(name) ?? "nothing"})`;
  if (!isSchema(o.options)) return `${kind} "${name}": options must be a zod schema (z.strictObject({...}))`;
  const fn =
    kind === "verifier" ? "create" : kind === "aggregator" ? "compile" : kind === "estimator" ? "compute" : "at";
  if (typeof o[fn] !== "function") return `${kind} "${name}": ${fn} must be a function`;
  if (kind === "verifier") {
    if (o.isolation !== "worker" && o.isolation !== "inline")
      return `verifier "${name}": isolation must be "worker" or "inline"`;
    if (typeof o.defaultTimeoutMs !== "number" || !(o.defaultTimeoutMs > 0) || !Number.isFinite(o.defaultTimeoutMs))
      return `verifier "${name}": defaultTimeoutMs must be a positive number of milliseconds`;
  }
  if (kind === "schedule" && typeof o.extremes !== "function") return `schedule "${name}": extremes must be a function`;
  return undefined;
}

function checked<T extends object>(kind: PluginKind, d: T): T {
  const problem = definitionProblem(kind, d);
  if (problem) throw new TypeError(problem);
  return d;
}

/**
 * Defines a verifier type for a spec's `plugins:`: the same contract as the built-ins ({@link VerifierDefinition}:
 * `create(options)` returns `(input: VerifierInput) → ComponentResult`, sync or async). The module's default export
 * is this definition, or an array of definitions.
 * @example
 * export default defineVerifier({
 *   type: "word-target",
 *   options: z.strictObject({ target: z.number().int().positive() }),
 *   create: ({ target }) => (input) => ok(1 / (1 + Math.abs(input.completion.split(/\s+/).length - target))),
 * });
 * @throws {TypeError} when the definition is malformed (a type name that is not kebab-case, no `create` …).
 */
export function defineVerifier<O>(d: VerifierPlugin<O>): VerifierDefinition<O> {
  const full: VerifierDefinition<O> = {
    ...d,
    summary: d.summary ?? `plugin verifier ${d.type}`,
    isolation: d.isolation ?? "worker",
    defaultTimeoutMs: d.defaultTimeoutMs ?? 10_000,
  };
  return brand(checked("verifier", full), "verifier");
}

/** Defines an aggregator type (`aggregate: {type: <type>, ...options}`): see {@link AggregatorDefinition}. */
export function defineAggregator<O>(d: AggregatorDefinition<O>): AggregatorDefinition<O> {
  return brand(checked("aggregator", d), "aggregator");
}

/** Defines an advantage estimator (`advantage: {estimator: <name>}`): see {@link EstimatorDefinition}. */
export function defineEstimator<O>(d: EstimatorDefinition<O>): EstimatorDefinition<O> {
  return brand(checked("estimator", d), "estimator");
}

/** Defines a schedule type (`weight: {schedule: <name>, ...}`): see {@link ScheduleDefinition}. */
export function defineSchedule<O>(d: ScheduleDefinition<O>): ScheduleDefinition<O> {
  return brand(checked("schedule", d), "schedule");
}

/** The kind a `define*` function gave `d`; `undefined` for anything else. */
export function pluginKind(d: unknown): PluginKind | undefined {
  if (d === null || typeof d !== "object") return undefined;
  const k = (d as { [PLUGIN_KIND]?: unknown })[PLUGIN_KIND];
  return k === "verifier" || k === "aggregator" || k === "estimator" || k === "schedule" ? k : undefined;
}
