/**
 * Routed specs: one spec file that sends each rollout to a named sub-spec by the value of one of its fields
 * (`routes: {by: data_source, math: {...}, code: code.yaml, default: {...}}`), as verl dispatches on `data_source`
 * and slime on `metadata.rm_type`. Each route is a complete spec (components, aggregate, `onUnscorable`, advantage
 * block, schedules) compiled by the ordinary compiler; this file only parses the envelope, resolves `file:` routes
 * relative to the spec, and places every problem at its file, line and field. See docs/routing.md.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { basename, dirname, extname, isAbsolute, resolve } from "node:path";
import { LineCounter, parseDocument } from "yaml";
import type { Document } from "yaml";
import { compileSpec } from "./compile.js";
import { formatPath, SpecError } from "./errors.js";
import type { Problem } from "./errors.js";
import { loadSpec, locate, parseSpec, resolveFileOptions, strictJson } from "./load.js";
import type { CompiledSpec, PlainSpec } from "./types.js";
import type { EstimatorDefinition } from "../advantage/types.js";

/** The route key of the default route (a rollout whose value names no route goes there). */
export const DEFAULT_ROUTE = "default";
/** Keys of `routes:` that are not route names. */
const RESERVED = new Set(["by", DEFAULT_ROUTE]);
/** Rollout fields the policy writes: never a routing key (see docs/routing.md, "Reward hacking across routes"). */
const POLICY_FIELDS = new Set(["completion", "completion_ids", "completion_tokens"]);
/** Top-level keys a routed spec may have besides `routes`. */
const ENVELOPE = new Set(["name", "description", "routes", "advantage"]);

/** A spec whose rollouts are scored by the sub-spec their `by` field names. */
export interface RoutedSpec {
  kind: "routed";
  name: string;
  /** First 16 hex digits of the SHA-256 of `by` and every route's hash (stable across key order and formatting). */
  hash: string;
  /** Dotted rollout path whose value picks the route (`data_source`, `metadata.rm_type`). */
  by: string;
  /** Route key (the field's value, as text) → its compiled sub-spec, in the spec's order; `default` last when present. */
  routes: Map<string, CompiledSpec>;
  /** Route key → the absolute file of a `file:` route (inline routes are absent). */
  files: Record<string, string>;
  /**
   * The routed spec's own `advantage:` block, when it has one: ONE estimator over the whole mixed batch (batch
   * statistics such as whitening or a batch std span every route, as verl computes them), replacing the routes' own
   * blocks. Absent: each route's estimator over that route's rollouts (batch statistics per route).
   */
  advantage?: { estimator: EstimatorDefinition<unknown>; options: Record<string, unknown> };
  plain: PlainRoutedSpec;
}

/** A routed spec as plain JSON data (what `rewardkit check --json` prints and `GET /v1/spec` returns). */
export interface PlainRoutedSpec {
  name: string;
  advantage?: { estimator: string; options: Record<string, unknown> };
  routes: { by: string } & Record<string, PlainSpec | string>;
}

/** Is this compiled spec a routed one? */
export function isRoutedSpec(spec: CompiledSpec | RoutedSpec): spec is RoutedSpec {
  return (spec as RoutedSpec).kind === "routed";
}

/** Where one rollout goes: its route key and sub-spec, or why it has none. */
export type RouteChoice = { key: string; spec: CompiledSpec } | { field: string; message: string };

/** The route key a field value names: strings as they are, finite numbers and booleans as their text; else undefined. */
export function routeValue(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if ((typeof value === "number" && Number.isFinite(value)) || typeof value === "boolean") return String(value);
  return undefined;
}

/**
 * Picks the route of a rollout whose `by` field holds `value`: the route of that name, else the default route, else
 * a problem naming the value (the rollout is then skipped and reported, never scored 0).
 */
export function chooseRoute(routed: RoutedSpec, value: unknown): RouteChoice {
  const key = routeValue(value);
  const own = key !== undefined && key !== DEFAULT_ROUTE ? routed.routes.get(key) : undefined;
  if (own) return { key: key!, spec: own };
  const dflt = routed.routes.get(DEFAULT_ROUTE);
  if (dflt) return { key: DEFAULT_ROUTE, spec: dflt };
  const known = [...routed.routes.keys()].join(", ");
  if (value === undefined || value === null)
    return {
      field: routed.by,
      message: `no ${routed.by}: the spec routes by it and has no default route; routes: ${known}`,
    };
  const shown =
    key !== undefined
      ? JSON.stringify(key)
      : `a ${Array.isArray(value) ? "list" : typeof value} (route values are strings, numbers or booleans)`;
  return { field: routed.by, message: `no route for ${routed.by} ${shown} and no default route; routes: ${known}` };
}

/** The top-level document of `text`, parsed with positions. @throws {SpecError} on a YAML or strict-JSON syntax error. */
function parseDoc(text: string, file: string): { doc: Document; lc: LineCounter; data: unknown } {
  if (extname(file).toLowerCase() === ".json") strictJson(text, file);
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new SpecError(
      doc.errors.map((e) => ({ file, ...lc.linePos(e.pos[0]), path: "", message: e.message.split("\n")[0]! })),
    );
  }
  return { doc, lc, data: doc.toJS() as unknown };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * Parses and validates a spec that may have `routes` (YAML 1.2 or strict JSON): a routed spec compiles to a
 * {@link RoutedSpec}, any other to the ordinary {@link CompiledSpec}.
 * @param file the name used in error messages, the default spec name, and the folder `file:` routes are relative to.
 * @throws {SpecError} with every problem found in the envelope and in every route (inline routes are located in
 *   this file, `routes.<key>.components[0].type`; a route file's problems carry that file's own lines).
 */
export function parseAnySpec(text: string, file: string): CompiledSpec | RoutedSpec {
  const { doc, lc, data } = parseDoc(text, file);
  if (!isPlainObject(data) || !("routes" in data)) return parseSpec(text, file);
  const problems: Problem[] = [];
  const at = (path: PropertyKey[], message: string): void => {
    problems.push({ file, ...locate(doc, lc, path), path: formatPath(path), message });
  };
  for (const k of Object.keys(data)) {
    if (!ENVELOPE.has(k))
      at(
        [k],
        `"${k}" cannot sit beside routes: every route is a whole spec with its own components, aggregate, onUnscorable and advantage; move it into the routes`,
      );
  }
  if (data.name !== undefined && (typeof data.name !== "string" || data.name === ""))
    at(["name"], "expected a non-empty string");
  if (data.description !== undefined && typeof data.description !== "string") at(["description"], "expected a string");
  // a batch-wide advantage block, validated by the ordinary compiler (on a stand-in component) so its problems read
  // as a spec's: `advantage.estimator: unknown estimator …`
  let advantage: RoutedSpec["advantage"];
  if (data.advantage !== undefined) {
    const r = compileSpec({ components: [{ name: "reward", type: "exact" }], advantage: data.advantage }, "advantage");
    if ("issues" in r) for (const i of r.issues) at(i.path, i.message);
    else if ((r.spec.advantage.estimator.needs ?? []).includes("components")) {
      at(
        ["advantage", "estimator"],
        `${r.spec.advantage.estimator.name} decomposes the reward by component, and every route has its own components: put it in the routes' own advantage blocks`,
      );
    } else advantage = r.spec.advantage;
  }
  const routesRaw = data.routes;
  const routes = new Map<string, CompiledSpec>();
  const files: Record<string, string> = {};
  let by = "";
  if (!isPlainObject(routesRaw))
    at(["routes"], "expected a mapping {by: <field path>, <value>: <spec or spec file>, default?: <spec>}");
  else {
    if (typeof routesRaw.by !== "string" || routesRaw.by.trim() === "")
      at(
        ["routes", "by"],
        routesRaw.by === undefined
          ? "required: the rollout field whose value picks the route, e.g. by: data_source"
          : "expected a dotted field path, e.g. data_source or metadata.rm_type",
      );
    else if (POLICY_FIELDS.has(routesRaw.by.split(".")[0]!)) {
      // the route picks the judge: a field the policy writes would let it pick the most lenient one
      at(
        ["routes", "by"],
        `"${routesRaw.by}" is the policy's own output: a rollout must not choose its judge; route on a field of the dataset (data_source, metadata.*, labels.*)`,
      );
    } else by = routesRaw.by;
    const keys = Object.keys(routesRaw).filter((k) => !RESERVED.has(k));
    if (keys.length === 0) at(["routes"], "no route: name at least one value, e.g. math: {components: [...]}");
    // the default route last, so `routes` lists the named ones in the spec's order
    for (const key of [...keys, ...(DEFAULT_ROUTE in routesRaw ? [DEFAULT_ROUTE] : [])]) {
      const v = routesRaw[key];
      const path: PropertyKey[] = ["routes", key];
      const target =
        typeof v === "string"
          ? v
          : isPlainObject(v) && Object.keys(v).length === 1 && typeof v.file === "string"
            ? v.file
            : undefined;
      if (target !== undefined) {
        if (target === "") {
          at(path, "empty spec file path");
          continue;
        }
        const abs = isAbsolute(target) ? target : resolve(dirname(file), target);
        try {
          routes.set(key, loadSpec(abs));
          files[key] = abs;
        } catch (e) {
          if (!(e instanceof SpecError)) throw e;
          // a route file that cannot be read is placed at its key here; its own problems keep their lines
          for (const p of e.problems) {
            if (p.file === abs && p.message.startsWith("cannot read spec"))
              at(path, `route file ${target}: ${p.message}`);
            else problems.push(p);
          }
        }
        continue;
      }
      if (!isPlainObject(v)) {
        at(path, "expected a spec (a mapping with components) or the path of a spec file, relative to this spec");
        continue;
      }
      if ("routes" in v) {
        at([...path, "routes"], "routes cannot nest: a route is a single spec");
        continue;
      }
      resolveFileOptions(v, file);
      const r = compileSpec(v, key);
      if ("spec" in r) routes.set(key, r.spec);
      else for (const i of r.issues) at([...path, ...i.path], i.message);
    }
  }
  if (problems.length > 0) {
    problems.sort(
      (a, b) =>
        (a.file === b.file ? 0 : a.file === file ? -1 : b.file === file ? 1 : a.file < b.file ? -1 : 1) ||
        (a.line ?? 0) - (b.line ?? 0) ||
        (a.col ?? 0) - (b.col ?? 0),
    );
    throw new SpecError(problems);
  }
  const name = typeof data.name === "string" ? data.name : basename(file, extname(file));
  const ids = Object.fromEntries(
    [...routes.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([k, s]) => [k, s.hash]),
  );
  const plainAdvantage = advantage ? { estimator: advantage.estimator.name, options: advantage.options } : undefined;
  const hash = createHash("sha256")
    .update(JSON.stringify({ by, routes: ids, ...(plainAdvantage ? { advantage: plainAdvantage } : {}) }))
    .digest("hex")
    .slice(0, 16);
  const plainRoutes: PlainRoutedSpec["routes"] = { by };
  for (const [k, s] of routes) plainRoutes[k] = s.plain;
  return {
    kind: "routed",
    name,
    hash,
    by,
    routes,
    files,
    ...(advantage ? { advantage } : {}),
    plain: { name, ...(plainAdvantage ? { advantage: plainAdvantage } : {}), routes: plainRoutes },
  };
}

/**
 * Reads a spec file that may have routes (`.yaml`, `.yml` or `.json`).
 * @throws {SpecError} when the file cannot be read or a spec in it (or in a route file) is invalid.
 */
export function loadAnySpec(path: string): CompiledSpec | RoutedSpec {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new SpecError([
      {
        file: path,
        path: "",
        message: `cannot read spec: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      },
    ]);
  }
  return parseAnySpec(text, path);
}
