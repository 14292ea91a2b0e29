import { z } from "zod";
import { ok, unscorable } from "../../core/types.js";
import type { VerifierDefinition } from "../types.js";
import { extractOption, findJson } from "./extract-json.js";
import { jsonProblem } from "./json-schema.js";

const options = z.strictObject({
  /** Where the document is in the completion (as `json-schema`). */
  extract: extractOption,
  /** Numbers match when `|a − b| ≤ absTolerance + relTolerance·|b|` (defaults 0: exact). */
  absTolerance: z.number().nonnegative().default(0),
  relTolerance: z.number().nonnegative().default(0),
  /** Compare strings ignoring case and surrounding/repeated whitespace (default false: exact). */
  looseStrings: z.boolean().default(false),
  /** Arrays match as multisets: each reference element is paired with the best unused predicted one (default false: by index). */
  unorderedArrays: z.boolean().default(false),
  /** Leaves the prediction has beyond the reference count against it (added to the denominator; default false). */
  penalizeExtra: z.boolean().default(false),
});
export type JsonMatchOptions = z.infer<typeof options>;

/** Counts from comparing a predicted value with a reference value, leaf by leaf. */
export interface MatchCounts {
  /** Reference leaves (scalars and empty containers). */
  leaves: number;
  /** Leaves whose value matched. */
  matched: number;
  /** Leaves whose path exists in the prediction with the same JSON type. */
  typed: number;
  /** Predicted leaves with no counterpart in the reference. */
  extra: number;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function kind(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

function isObject(v: unknown): v is Record<string, Json> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Number of leaves of a value (scalars and empty containers count 1). */
export function leafCount(v: unknown): number {
  if (Array.isArray(v)) return v.length === 0 ? 1 : v.reduce((n: number, x) => n + leafCount(x), 0);
  if (isObject(v)) {
    const ks = Object.keys(v);
    return ks.length === 0 ? 1 : ks.reduce((n, k) => n + leafCount(v[k]), 0);
  }
  return 1;
}

function scalarEqual(p: unknown, r: unknown, o: JsonMatchOptions): boolean {
  if (typeof p === "number" && typeof r === "number")
    return Math.abs(p - r) <= o.absTolerance + o.relTolerance * Math.abs(r);
  if (typeof p === "string" && typeof r === "string" && o.looseStrings)
    return p.trim().replace(/\s+/g, " ").toLowerCase() === r.trim().replace(/\s+/g, " ").toLowerCase();
  return p === r;
}

/**
 * Compares `pred` with `ref` leaf by leaf (objects by key, arrays by index or — `unorderedArrays` — by best
 * greedy pairing). A leaf is `typed` when the prediction has a value of the same JSON type at its path, and
 * `matched` when that value is equal (numbers within tolerance).
 * Example: ref `{"a": 1, "b": [1, 2]}`, pred `{"a": 1, "b": [2, 1], "c": 0}` → 3 leaves, typed 3, matched 1
 * (by index) or 3 (unordered), extra 1.
 */
export function compareJson(pred: unknown, ref: unknown, o: JsonMatchOptions): MatchCounts {
  const leaves = leafCount(ref);
  // a value of the wrong type at a reference path is a miss, not an extra
  if (kind(pred) !== kind(ref)) return { leaves, matched: 0, typed: 0, extra: 0 };
  if (Array.isArray(ref) && Array.isArray(pred)) {
    if (ref.length === 0)
      return {
        leaves: 1,
        matched: pred.length === 0 ? 1 : 0,
        typed: 1,
        extra: pred.length === 0 ? 0 : leafCount(pred),
      };
    const acc: MatchCounts = { leaves: 0, matched: 0, typed: 0, extra: 0 };
    const add = (c: MatchCounts): void => {
      acc.leaves += c.leaves;
      acc.matched += c.matched;
      acc.typed += c.typed;
      acc.extra += c.extra;
    };
    if (!o.unorderedArrays) {
      ref.forEach((r, i) => add(compareJson(pred[i], r, o)));
      for (let i = ref.length; i < pred.length; i++) acc.extra += leafCount(pred[i]);
      return acc;
    }
    const used = new Set<number>();
    for (const r of ref) {
      let best: MatchCounts | undefined;
      let bestIdx = -1;
      pred.forEach((p, i) => {
        if (used.has(i)) return;
        const c = compareJson(p, r, o);
        if (!best || c.matched > best.matched || (c.matched === best.matched && c.typed > best.typed)) {
          best = c;
          bestIdx = i;
        }
      });
      if (best && bestIdx >= 0) {
        used.add(bestIdx);
        add(best);
      } else add({ leaves: leafCount(r), matched: 0, typed: 0, extra: 0 });
    }
    pred.forEach((p, i) => {
      if (!used.has(i)) acc.extra += leafCount(p);
    });
    return acc;
  }
  if (isObject(ref) && isObject(pred)) {
    const keys = Object.keys(ref);
    if (keys.length === 0)
      return {
        leaves: 1,
        matched: Object.keys(pred).length === 0 ? 1 : 0,
        typed: 1,
        extra: Object.keys(pred).length ? leafCount(pred) : 0,
      };
    const acc: MatchCounts = { leaves: 0, matched: 0, typed: 0, extra: 0 };
    for (const k of keys) {
      const c = Object.prototype.hasOwnProperty.call(pred, k)
        ? compareJson(pred[k], ref[k], o)
        : { leaves: leafCount(ref[k]), matched: 0, typed: 0, extra: 0 };
      acc.leaves += c.leaves;
      acc.matched += c.matched;
      acc.typed += c.typed;
      acc.extra += c.extra;
    }
    for (const k of Object.keys(pred))
      if (!Object.prototype.hasOwnProperty.call(ref, k)) acc.extra += leafCount(pred[k]);
    return acc;
  }
  return { leaves: 1, matched: scalarEqual(pred, ref, o) ? 1 : 0, typed: 1, extra: 0 };
}

/**
 * `json-match`: share of the reference's leaves that the completion's JSON matches,
 * `score = matched / (leaves + (penalizeExtra ? extra : 0))`, with the RL-Struct levels (methods-catalog T23)
 * reported in `details.levels`: `parses` (1), `structure` (typed / leaves: keys present with the right types),
 * `values` (matched / leaves). Example: ref `{"name": "Ada", "age": 36}`, completion `{"name": "Ada", "age": "36"}`
 * → 0.5, levels `{parses: 1, structure: 0.5, values: 0.5}`. The reference may be a JSON value or a string holding one.
 */
export const jsonMatchVerifier: VerifierDefinition<JsonMatchOptions> = {
  type: "json-match",
  summary:
    "share of the reference JSON's leaves matched by the completion's JSON (numeric tolerance, unordered arrays by option)",
  options,
  isolation: "worker", // unordered arrays pair greedily: quadratic
  defaultTimeoutMs: 5000,
  create(o) {
    return ({ completion, reference }) => {
      if (reference === undefined) return unscorable("no_reference");
      let ref: unknown = reference;
      if (typeof ref === "string") {
        try {
          ref = JSON.parse(ref) as unknown;
        } catch {
          return unscorable("invalid_reference", { expected: "a JSON value, or a string holding JSON" });
        }
      }
      const found = findJson(completion, o.extract);
      const problem = jsonProblem(found);
      if (problem || found.kind !== "ok") return problem ?? unscorable("no_json");
      const c = compareJson(found.value, ref, o);
      const denom = c.leaves + (o.penalizeExtra ? c.extra : 0);
      const score = denom === 0 ? 1 : c.matched / denom;
      const details = {
        levels: { parses: 1, structure: c.typed / c.leaves, values: c.matched / c.leaves },
        leaves: c.leaves,
        matched: c.matched,
        extra: c.extra,
      };
      if (score === 1) return ok(1, undefined, details);
      return ok(score, c.typed < c.leaves ? "format_mismatch" : "wrong_answer", details);
    };
  },
};
