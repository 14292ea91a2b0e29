/**
 * Compiles JSON Schemas with `@hyperjump/json-schema` for the `json-schema` verifier, once per distinct schema
 * (bounded LRU cache keyed by dialect + the schema's JSON text), with references resolved only from the
 * schema itself, the bundled meta-schemas, and folders the spec names (`remotes`). Nothing is ever fetched
 * over the network or read from `file:` URIs: such a `$ref` fails the compile with {@link RefusedRefError}.
 *
 * Why hyperjump and not ajv: on the JSON-Schema-Test-Suite (draft2020-12 + draft7, required tests) it agrees
 * on 99.8 % of tests against ajv's 96.9 % (ajv lacks non-fragment `$dynamicRef`, parts of `unevaluated*`,
 * empty `enum`, and recursion through `$id` changes), and compiles the suite's schemas faster
 * (docs/verifiers-structured.md has the measurement; `bench/json-schema-suite.ts` reproduces it).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { addUriSchemePlugin } from "@hyperjump/browser";
import {
  hasSchema,
  registerSchema,
  setShouldValidateFormat,
  unregisterSchema,
  validate,
} from "@hyperjump/json-schema/draft-2020-12";
import type { Validator } from "@hyperjump/json-schema/draft-2020-12";
import "@hyperjump/json-schema/draft-2019-09";
import "@hyperjump/json-schema/draft-07";
import "@hyperjump/json-schema/draft-06";
import "@hyperjump/json-schema/draft-04";
import { BASIC } from "@hyperjump/json-schema/experimental";
import { DIALECTS } from "./dialects.js";
import type { EvaluationPlugin } from "@hyperjump/json-schema/experimental";

/** A `$ref` (or `$schema`) that would need the network or the file system. */
export class RefusedRefError extends Error {
  constructor(readonly uri: string) {
    super(
      `reference to ${uri} refused: rewardkit never fetches schemas over the network or from files; embed it, or serve its folder with the \`remotes\` option`,
    );
    this.name = "RefusedRefError";
  }
}

/** Local folders standing in for remote base URIs, e.g. `{"http://localhost:1234/": "suite/remotes"}`. */
export type Remotes = Record<string, string>;

// ---- the one URI-scheme hook (module state: one per worker thread) ----

let activeRemotes: Array<[prefix: string, dir: string]> = [];
let activeDialect: string = DIALECTS["2020-12"];
const remoteText = new Map<string, string>();

function remoteFile(uri: string): string | undefined {
  for (const [prefix, dir] of activeRemotes) {
    if (!uri.startsWith(prefix)) continue;
    const rel = decodeURIComponent(uri.slice(prefix.length));
    const file = path.resolve(dir, rel);
    // never leave the folder (`../` in a reference)
    if (!file.startsWith(path.resolve(dir) + path.sep)) return undefined;
    return file;
  }
  return undefined;
}

function readRemote(uri: string): string {
  const file = remoteFile(uri);
  if (file === undefined) throw new RefusedRefError(uri);
  let text = remoteText.get(file);
  if (text === undefined) {
    try {
      text = readFileSync(file, "utf8");
    } catch {
      throw new RefusedRefError(uri);
    }
    remoteText.set(file, text);
  }
  return text;
}

const localOnly = {
  retrieve: async (uri: string): Promise<Response> => {
    const bare = uri.split("#")[0] ?? uri;
    const text = readRemote(bare);
    // Documents without `$schema` take the dialect of the schema being compiled (the suite's convention).
    const response = new Response(text, {
      headers: { "Content-Type": `application/schema+json; schema="${activeDialect}"` },
    });
    Object.defineProperty(response, "url", { value: bare });
    return response;
  },
};
const refuseAll = {
  retrieve: async (uri: string): Promise<Response> => {
    throw new RefusedRefError(uri);
  },
};
addUriSchemePlugin("http", localOnly);
addUriSchemePlugin("https", localOnly);
addUriSchemePlugin("file", refuseAll);

// ---- compiling ----

/** A compiled schema: `check` is synchronous and safe to call many times. */
export interface CompiledSchema {
  check(instance: unknown, o: { assertFormat: boolean; partial: boolean; maxErrors: number }): SchemaVerdict;
}

/** One failed keyword: where in the document, which keyword, where in the schema. */
export interface SchemaFailure {
  instancePath: string;
  keyword: string;
  schemaPath: string;
}

export interface SchemaVerdict {
  valid: boolean;
  /** Assertion keywords evaluated / satisfied (only with `partial`). */
  evaluated?: number;
  satisfied?: number;
  errors?: SchemaFailure[];
}

let formats: Promise<unknown> | undefined;
/** Loads the `format` assertion handlers (large: IDN tables), once per thread, only when a spec asserts formats. */
export function loadFormats(): Promise<unknown> {
  const specifier = "@hyperjump/json-schema/formats"; // ships no type declarations; imported for its side effect
  formats ??= import(specifier);
  return formats;
}

let counter = 0;
let queue: Promise<unknown> = Promise.resolve();

/** Runs compiles one at a time: registration and the active dialect are module state. */
function serial<T>(f: () => Promise<T>): Promise<T> {
  const next = queue.then(f, f);
  queue = next.catch(() => undefined);
  return next;
}

/** Counts assertion keywords (not plain applicators such as `properties`) and `false` subschemas. */
class CountPlugin implements EvaluationPlugin {
  evaluated = 0;
  satisfied = 0;
  afterKeyword(
    _node: unknown,
    _i: unknown,
    _c: unknown,
    valid: boolean,
    _s: unknown,
    keyword: { simpleApplicator?: boolean },
  ): void {
    if (keyword.simpleApplicator) return;
    this.evaluated++;
    if (valid) this.satisfied++;
  }
  afterSchema(url: string, _i: unknown, context: { ast: Record<string, unknown> }, valid: boolean): void {
    if (typeof context.ast[url] !== "boolean") return;
    this.evaluated++;
    if (valid) this.satisfied++;
  }
}

function keywordName(id: string): string {
  return id.slice(id.lastIndexOf("/") + 1);
}

/** Registers a remote meta-schema named by `$schema` (e.g. a custom vocabulary), from the remotes folders only. */
function ensureDialect(uri: string): void {
  const bare = uri.split("#")[0] ?? uri;
  if (hasSchema(bare) || Object.values(DIALECTS).some((d) => d === bare.replace(/#$/, ""))) return;
  if (remoteFile(bare) === undefined) return; // unknown dialects are reported by the compiler
  const doc = JSON.parse(readRemote(bare)) as Record<string, unknown>;
  if (typeof doc.$schema === "string" && doc.$schema !== bare) ensureDialect(doc.$schema);
  registerSchema(doc as never, bare, activeDialect);
}

/** Gives a `file:` root `$id` an opaque http alias (the library refuses `file:` ids; nothing is read from disk). */
function aliasFileId(schema: unknown): unknown {
  if (schema && typeof schema === "object" && !Array.isArray(schema)) {
    const id = (schema as Record<string, unknown>).$id;
    if (typeof id === "string" && id.startsWith("file:")) {
      return {
        ...(schema as Record<string, unknown>),
        $id: `https://file.rewardkit.invalid/${id.slice(5).replace(/^\/+/, "")}`,
      };
    }
  }
  return schema;
}

/**
 * Compiles `schema` (an object or a boolean) under `dialect` when it has no `$schema`.
 * Rejects with {@link RefusedRefError} for unreachable references, with an `InvalidSchemaError` (has `output`)
 * when the schema fails its meta-schema, or another Error for malformed schemas.
 */
export function compileSchema(schema: unknown, dialect: string, remotes: Remotes): Promise<CompiledSchema> {
  return serial(async () => {
    activeRemotes = Object.entries(remotes);
    const own = aliasFileId(schema);
    const declared = own && typeof own === "object" ? (own as { $schema?: unknown }).$schema : undefined;
    activeDialect = typeof declared === "string" ? declared.replace(/#$/, "") : dialect;
    if (own && typeof own === "object" && typeof (own as { $schema?: unknown }).$schema === "string") {
      ensureDialect((own as { $schema: string }).$schema);
    }
    const uri = `https://schema.rewardkit.invalid/${++counter}`;
    let validator: Validator;
    try {
      registerSchema(own as never, uri, dialect);
      validator = await validate(uri);
    } catch (e) {
      // hyperjump wraps retrieval failures; surface ours
      let cause: unknown = e;
      for (let i = 0; i < 5 && cause instanceof Error; i++) {
        if (cause instanceof RefusedRefError) throw cause;
        cause = (cause as { cause?: unknown }).cause;
      }
      throw e;
    } finally {
      if (hasSchema(uri)) unregisterSchema(uri);
    }
    const prefix = uri;
    return {
      check(instance, o) {
        setShouldValidateFormat(o.assertFormat);
        const flag = validator(instance as never);
        if (flag.valid && !o.partial) return { valid: true };
        const counts = new CountPlugin();
        const out = validator(instance as never, { outputFormat: BASIC, plugins: o.partial ? [counts] : [] });
        const verdict: SchemaVerdict = { valid: out.valid };
        if (o.partial) {
          verdict.evaluated = counts.evaluated;
          verdict.satisfied = counts.satisfied;
        }
        if (!out.valid && "errors" in out && out.errors) {
          verdict.errors = out.errors.slice(0, o.maxErrors).map((u) => ({
            instancePath: u.instanceLocation.replace(/^#/, "") || "/",
            keyword: keywordName(u.keyword),
            schemaPath: u.absoluteKeywordLocation.startsWith(prefix)
              ? u.absoluteKeywordLocation.slice(prefix.length)
              : u.absoluteKeywordLocation,
          }));
        }
        return verdict;
      },
    };
  });
}

/** Reads a RefusedRefError out of whatever the compiler threw. */
export function refusedUri(e: unknown): string | undefined {
  if (e instanceof RefusedRefError) return e.uri;
  const m = /reference to (\S+) refused/.exec(String((e as Error)?.message ?? e));
  return m ? m[1] : undefined;
}
