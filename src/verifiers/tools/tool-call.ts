import { createRequire } from "node:module";
import type { Ajv as AjvClass, ValidateFunction } from "ajv";
import { z } from "zod";
import { ok, unscorable } from "../../core/types.js";
import type { VerifierDefinition } from "../types.js";
import type { FunctionDescription, PossibleCall } from "./ast-checker.js";
import { checkCalls } from "./ast-checker.js";
import { completionCalls } from "./calls.js";
import type { PyValue } from "./pyvalue.js";
import { fromJson, parseJsonValue, toJson } from "./pyvalue.js";

const options = z.strictObject({
  /** `strict` (default): 1 when the calls are exactly right, else 0. `partial`: matched acceptable calls / max(expected, made). */
  score: z.enum(["strict", "partial"]).default("strict"),
  /** Language of the functions' parameter types (BFCL: Java and JavaScript arguments arrive as literal strings). */
  language: z.enum(["python", "java", "javascript"]).default("python"),
  /** Validate each call's arguments against its tool's JSON Schema as well (skipped for BFCL-dialect schemas). */
  validateSchema: z.boolean().default(true),
  /** Rollout field holding the tools (OpenAI `tools` list, or BFCL `function` descriptions). */
  toolsField: z.string().default("tools"),
});
export type ToolCallOptions = z.infer<typeof options>;

/** OpenAI `[{type: "function", function: {...}}]` or bare `[{name, parameters}]` → descriptions. */
function descriptions(tools: unknown): FunctionDescription[] | undefined {
  if (!Array.isArray(tools)) return undefined;
  const out: FunctionDescription[] = [];
  for (const t of tools) {
    const f = (
      t && typeof t === "object" && "function" in t ? (t as { function: unknown }).function : t
    ) as FunctionDescription | null;
    if (f && typeof f === "object" && typeof f.name === "string") out.push(f);
  }
  return out;
}

/** Reference → acceptable calls; a JSON string is decoded keeping int/float apart. `null` when malformed. */
function possibleCalls(reference: unknown): PossibleCall[] | null {
  let v: PyValue;
  try {
    v = typeof reference === "string" ? parseJsonValue(reference) : fromJson(reference);
  } catch {
    return null;
  }
  if (v instanceof Map && v.has("ground_truth")) v = v.get("ground_truth")!;
  if (!Array.isArray(v)) return null;
  const out: PossibleCall[] = [];
  for (const c of v) {
    if (!(c instanceof Map) || c.size !== 1) return null;
    const [name, params] = [...c][0]!;
    if (!(params instanceof Map)) return null;
    const pm = new Map<string, PyValue[]>();
    for (const [p, vals] of params) {
      if (!Array.isArray(vals)) return null;
      pm.set(p, vals);
    }
    out.push(new Map([[name, pm]]));
  }
  return out;
}

const JSON_SCHEMA_TYPES = new Set(["object", "array", "string", "number", "integer", "boolean", "null"]);
function isJsonSchema(s: unknown): boolean {
  if (Array.isArray(s)) return s.every(isJsonSchema);
  if (!s || typeof s !== "object") return true;
  const o = s as Record<string, unknown>;
  if (typeof o.type === "string" && !JSON_SCHEMA_TYPES.has(o.type)) return false;
  return Object.entries(o).every(([k, v]) => k === "enum" || k === "default" || k === "examples" || isJsonSchema(v));
}

/**
 * `tool-call`: the completion's tool calls against acceptable calls, by the Berkeley Function-Calling
 * Leaderboard's AST rules ({@link checkCalls}; gorilla `ast_checker.py`). Calls come from OpenAI `tool_calls`
 * messages, Hermes `<tool_call>` blocks, JSON `{name, arguments}` text or Python call text `[f(a=1)]`.
 * Reference: BFCL possible answers `[{"<function>": {"<param>": [acceptable values, "" = may be omitted]}}]` (an
 * object or a JSON string); `[]` means the right answer is no call. Tool schemas from the rollout's `tools`.
 *
 * Example: reference `[{"area": {"base": [10], "unit": ["cm", ""]}}]`, completion `[area(base=10)]` → 1;
 * `[area(base=10.5)]` → 0 (`value_error:others`); `[area(base=10), area(base=10)]` → 0 (wrong count).
 */
/**
 * Ajv's class, loaded on first use: imported statically it was loaded (and its ~80 CommonJS files compiled) by every
 * `rewardkit` process, tool calls or not; 30 ms of a short `rewardkit score` run.
 */
function loadAjv(): typeof AjvClass {
  return (createRequire(import.meta.url)("ajv") as { Ajv: typeof AjvClass }).Ajv;
}

export const toolCallVerifier: VerifierDefinition<ToolCallOptions> = {
  type: "tool-call",
  summary: "1 if the completion's tool calls match the acceptable calls (BFCL AST rules), else 0",
  options,
  isolation: "inline",
  defaultTimeoutMs: 2000,
  reads: ["completion", "tools"],
  create(o) {
    let ajv: AjvClass | undefined; // built when a tool schema is first compiled

    const compiled = new Map<string, ValidateFunction | null>();
    function validator(schema: unknown): ValidateFunction | null {
      const key = JSON.stringify(schema);
      let v = compiled.get(key);
      if (v === undefined) {
        try {
          v = isJsonSchema(schema)
            ? (ajv ??= new (loadAjv())({ strict: false, allErrors: false, validateSchema: false })).compile(
                schema as object,
              )
            : null;
        } catch {
          v = null;
        }
        if (compiled.size > 1000) compiled.clear();
        compiled.set(key, v);
      }
      return v;
    }
    return ({ reference, rollout }) => {
      if (reference === undefined || reference === null) return unscorable("no_reference");
      const possible = possibleCalls(reference);
      if (!possible)
        return unscorable("invalid_reference", {
          expected: 'BFCL possible answers: [{"<function>": {"<param>": [values]}}], [] for no call',
        });
      const tools = rollout[o.toolsField];
      const fns = descriptions(typeof tools === "string" ? safeJson(tools) : tools);
      const decoded = completionCalls(rollout.completion);
      const calls = decoded.calls;
      const shown = calls.map((c) => ({ name: c.name, arguments: toJson(c.arguments) }));
      const base = { form: decoded.form, calls: shown, ...(decoded.error ? { decodeError: decoded.error } : {}) };
      if (o.validateSchema && fns) {
        for (const c of calls) {
          const f = fns.find((x) => x.name === c.name);
          const v = f?.parameters ? validator(f.parameters) : null;
          if (v && !v(toJson(c.arguments))) {
            return ok(0, "schema_violation", {
              ...base,
              call: c.name,
              schemaErrors: (v.errors ?? []).slice(0, 3).map((e) => `${e.instancePath || "/"} ${e.message ?? ""}`),
            });
          }
        }
      }
      const r = checkCalls(fns, calls, possible, o.language);
      const details = {
        ...base,
        ...(r.valid ? {} : { errorType: r.errorType, error: r.error?.slice(0, 3) }),
        matched: r.matched,
      };
      if (o.score === "partial" && possible.length > 0) {
        const hits = r.matched.filter((m) => m >= 0).length;
        const s = hits / Math.max(possible.length, calls.length);
        return s === 1 ? ok(1, undefined, details) : ok(s, "wrong_answer", details);
      }
      return r.valid ? ok(1, undefined, details) : ok(0, "wrong_answer", details);
    };
  },
};

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s) as unknown;
  } catch {
    return undefined;
  }
}
