import { z } from "zod";
import { ok, unscorable } from "../../core/types.js";
import type { ComponentResult } from "../../core/types.js";
import type { VerifierDefinition } from "../types.js";
import { extractOption, findJson } from "./extract-json.js";
import type { JsonFound } from "./extract-json.js";
import { DIALECTS } from "./dialects.js";
import type * as SchemaCompiler from "./schema-compiler.js";
import type { CompiledSchema } from "./schema-compiler.js";

// The validator (~170 ms to import) loads on first use, so workers of specs without `json-schema` start fast.
let compiler: Promise<typeof SchemaCompiler> | undefined;
const loadCompiler = (): Promise<typeof SchemaCompiler> => (compiler ??= import("./schema-compiler.js"));

const jsonSchemaValue = z.union([z.boolean(), z.record(z.string(), z.unknown())]);

const options = z.strictObject({
  /** Where the document is in the completion: `auto` (whole text, else last fence, else last balanced object/array), `whole`, `fence`, `last`. */
  extract: extractOption,
  /** A fixed schema for every rollout; when absent the rollout's `reference` is the schema. */
  schema: jsonSchemaValue.optional(),
  /** Dialect for schemas without `$schema` (default `2020-12`). */
  defaultDialect: z
    .enum(Object.keys(DIALECTS) as [keyof typeof DIALECTS, ...(keyof typeof DIALECTS)[]])
    .default("2020-12"),
  /** Treat `format` as an assertion (default false: an annotation, as 2020-12 specifies). */
  assertFormat: z.boolean().default(false),
  /**
   * `binary` (default): 1 when valid, else 0. `partial`: valid → 1; invalid → share of the assertion keywords
   * evaluated on the document that held (always < 1 for an invalid document).
   */
  scoring: z.enum(["binary", "partial"]).default("binary"),
  /**
   * Local folders that stand in for remote base URIs, e.g. `{"http://localhost:1234/": "data/remotes"}`
   * (relative folders resolve against the working directory). Any other `$ref` outside the schema is refused.
   */
  remotes: z.record(z.string().url(), z.string().min(1)).default({}),
  /** Compiled schemas kept per worker (LRU). */
  cacheSize: z.number().int().positive().default(512),
  /** Failing keywords listed in `details.errors`. */
  maxErrors: z.number().int().nonnegative().default(10),
});
export type JsonSchemaOptions = z.infer<typeof options>;

type Compiled = { ok: true; schema: CompiledSchema } | { ok: false; result: ComponentResult };

/** A bounded LRU of compile promises keyed by dialect + schema JSON text. */
function lru<V>(size: number) {
  const m = new Map<string, V>();
  return {
    get(k: string): V | undefined {
      const v = m.get(k);
      if (v !== undefined) {
        m.delete(k);
        m.set(k, v);
      }
      return v;
    },
    set(k: string, v: V): void {
      m.set(k, v);
      if (m.size > size) m.delete(m.keys().next().value as string);
    },
  };
}

/** The URI of a refused reference in whatever the compiler threw (see `RefusedRefError`). */
function refusedUriOf(e: unknown): string | undefined {
  const m = /reference to (\S+) refused/.exec(String((e as Error)?.message ?? e));
  return m ? m[1] : undefined;
}

/** `unscorable` for a JSON search that found nothing usable, else `undefined`. */
export function jsonProblem(found: JsonFound): ComponentResult | undefined {
  if (found.kind === "none") return unscorable("no_json");
  if (found.kind === "invalid") {
    const d: Record<string, unknown> = { error: found.error, source: found.source };
    if (found.position !== undefined)
      Object.assign(d, { position: found.position, line: found.line, column: found.column });
    return unscorable("invalid_json", d);
  }
  return undefined;
}

/**
 * `json-schema`: validates the completion's JSON document against a JSON Schema (draft 2020-12, 2019-09,
 * draft-07/06/04 by `$schema`; `defaultDialect` otherwise), using `@hyperjump/json-schema`.
 *
 * Score (`binary`): 1 if valid, else 0 (`schema_violation`, failing keywords in `details.errors` as
 * `{instancePath, keyword, schemaPath}`). Score (`partial`): 1 if valid, else `satisfied / evaluated` over the
 * assertion keywords evaluated (RL-Struct-style dense signal, methods-catalog T23).
 * Example: schema `{"type":"object","required":["a"]}`: `'{"a": 1}'` → 1; `'{"b": 1}'` → 0 with
 * `errors: [{instancePath: "/", keyword: "required", schemaPath: "#/required"}]`; `"hello"` → `no_json`.
 *
 * Unscorable: `no_json`, `invalid_json` (with `line`/`column`), `no_reference` (no schema anywhere),
 * `invalid_reference` (not an object/boolean, or not a valid schema), `unresolved_ref` (a `$ref` would need
 * the network or a file: rewardkit never fetches; serve folders with `remotes`).
 * Checked against the JSON-Schema-Test-Suite (docs/verifiers-structured.md).
 */
export const jsonSchemaVerifier: VerifierDefinition<JsonSchemaOptions> = {
  type: "json-schema",
  summary: "1 if the completion's JSON validates against the JSON Schema (spec or reference), else 0 or partial credit",
  options,
  isolation: "worker",
  defaultTimeoutMs: 10_000,
  create(o) {
    const cache = lru<Promise<Compiled>>(o.cacheSize);
    const dialect = DIALECTS[o.defaultDialect];
    const ready = loadCompiler().then((c) => (o.assertFormat ? c.loadFormats() : undefined));

    function compiled(schema: unknown): Promise<Compiled> {
      const key = JSON.stringify(schema);
      let p = cache.get(key);
      if (p === undefined) {
        p = loadCompiler()
          .then((c) => c.compileSchema(schema, dialect, o.remotes))
          .then(
            (s): Compiled => ({ ok: true, schema: s }),
            (e: unknown): Compiled => {
              const uri = refusedUriOf(e);
              if (uri !== undefined) return { ok: false, result: unscorable("unresolved_ref", { uri }) };
              const err = e as Error & { output?: unknown };
              const details: Record<string, unknown> = { error: err.message ?? String(e) };
              if (err.output !== undefined) details.output = err.output;
              return { ok: false, result: unscorable("invalid_reference", details) };
            },
          );
        cache.set(key, p);
      }
      return p;
    }

    return async ({ completion, reference }) => {
      const schema = o.schema ?? reference;
      if (schema === undefined) return unscorable("no_reference");
      if (typeof schema !== "boolean" && (schema === null || typeof schema !== "object" || Array.isArray(schema))) {
        return unscorable("invalid_reference", { expected: "a JSON Schema: an object or a boolean" });
      }
      const found = findJson(completion, o.extract);
      const problem = jsonProblem(found);
      if (problem || found.kind !== "ok") return problem ?? unscorable("no_json");
      await ready;
      const c = await compiled(schema);
      if (!c.ok) return c.result;
      const v = c.schema.check(found.value, {
        assertFormat: o.assertFormat,
        partial: o.scoring === "partial",
        maxErrors: o.maxErrors,
      });
      if (v.valid) return ok(1);
      const details: Record<string, unknown> = { errors: v.errors ?? [] };
      let score = 0;
      if (o.scoring === "partial" && v.evaluated) {
        score = v.satisfied! / v.evaluated;
        Object.assign(details, { evaluated: v.evaluated, satisfied: v.satisfied });
      }
      return ok(score, "schema_violation", details);
    };
  },
};
