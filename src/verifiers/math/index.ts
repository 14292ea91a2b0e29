/**
 * The `math` verifier: extracts the final answer of a completion and checks it against a gold answer.
 *
 * Pipeline: extraction (`extract.ts`) → LaTeX normalization (`normalize.ts`) → cache → shapes
 * (`compare.ts`) → exact rationals (`fast.ts`) → compute-engine CAS and numeric sampling (`cas.ts`).
 * Policies follow Math-Verify's README where it has one (gold first; assignments `x = 1` → 1;
 * percentages 10% → 0.1; sets, intervals, matrices, complex numbers) and deliberately differ where it
 * has false positives: exact comparisons (no 6-decimal rounding), `\pm a` ≠ `a`, times, lists.
 */
import { ok, unscorable, type ComponentResult } from "../../core/types.js";
import type { VerifierDefinition } from "../types.js";
import { BoundedCache } from "./cache.js";
import { loadCas } from "./cas.js";
import { compareAnswers } from "./compare.js";
import { extractAnswer, lastBoxed, stripDelimiters } from "./extract.js";
import { normalizeAnswer, type Normalized } from "./normalize.js";
import { MathOptionsSchema, type MathOptions } from "./options.js";
import { NeedCas, type CompareSettings, type Verdict } from "./verdict.js";

export { MathOptionsSchema, type MathOptions } from "./options.js";
export { extractAnswer, lastBoxed, type ExtractStrategy } from "./extract.js";
export { normalizeAnswer } from "./normalize.js";
export { loadCas, casLoaded } from "./cas.js";

const DEFAULTS: MathOptions = MathOptionsSchema.parse({});
const parsedOptions = new WeakMap<object, MathOptions>();
const caches = new Map<string, BoundedCache<Verdict>>();

function resolveOptions(options: Partial<MathOptions> | undefined): MathOptions {
  if (options === undefined) return DEFAULTS;
  let o = parsedOptions.get(options);
  if (!o) {
    o = MathOptionsSchema.parse(options);
    parsedOptions.set(options, o);
  }
  return o;
}

function cacheFor(o: MathOptions): { cache: BoundedCache<Verdict>; prefix: string } {
  const prefix = `${o.percent}|${o.relTol}|${o.sampleTol}|${o.samplePoints}|${o.seed}|${o.maxBits}`;
  const id = `${prefix}|${o.cacheSize}`;
  let cache = caches.get(id);
  if (!cache) {
    cache = new BoundedCache<Verdict>(o.cacheSize);
    caches.set(id, cache);
  }
  return { cache, prefix };
}

/** Gold answer text from a reference: a string (possibly `\boxed{}` or a `####` solution) or a number. */
function goldText(reference: unknown): string | null {
  if (typeof reference === "number") return Number.isFinite(reference) ? String(reference) : null;
  if (typeof reference === "bigint") return reference.toString();
  if (typeof reference !== "string") return null;
  const t = reference.trim();
  if (t === "") return null;
  const boxed = lastBoxed(t);
  if (boxed !== null) return boxed;
  const gsm = /####\s*([^\n]+)\s*$/.exec(t);
  if (gsm?.[1] !== undefined) return stripDelimiters(gsm[1]);
  return stripDelimiters(t);
}

function toResult(v: Verdict, extracted: string): ComponentResult {
  const details = { extracted, method: v.method };
  switch (v.outcome) {
    case true:
      return ok(1, undefined, details);
    case false:
      return ok(0, "wrong_answer", details);
    case "parse_error":
      return unscorable("parse_error", details);
    case "undecidable":
      return unscorable("undecidable", details);
  }
}

function settingsOf(o: MathOptions): CompareSettings {
  return {
    percent: o.percent,
    relTol: o.relTol,
    sampleTol: o.sampleTol,
    samplePoints: o.samplePoints,
    seed: o.seed,
    maxBits: o.maxBits,
  };
}

function decide(gold: Normalized, pred: Normalized, o: MathOptions, extracted: string, key: string, cache: BoundedCache<Verdict>): ComponentResult | Promise<ComponentResult> {
  try {
    const v = compareAnswers(gold.s, pred.s, gold.text, pred.text, settingsOf(o));
    cache.set(key, v);
    return toResult(v, extracted);
  } catch (err) {
    if (err instanceof NeedCas) return loadCas().then(() => decide(gold, pred, o, extracted, key, cache));
    return unscorable("undecidable", { extracted, method: "cas", error: err instanceof Error ? err.message : String(err) });
  }
}

/**
 * Scores a completion against a gold math answer.
 *
 * @param completion model output; the answer is extracted with `options.extract` (default: last
 *   `\boxed{}`, "final answer is", `Answer:` line, `#### n`).
 * @param reference gold answer: a string (LaTeX allowed, may itself be `\boxed{...}` or a GSM8K
 *   solution ending in `#### n`) or a finite number.
 * @param options partial {@link MathOptions}; validated (throws a ZodError on unknown keys/bad values).
 * @returns `ok(1)` when equivalent; `ok(0, "wrong_answer")` when not; `unscorable` with `no_reference`
 *   (missing/empty reference), `no_answer` (nothing extracted), `parse_error` (a side does not parse;
 *   two parse errors never match), `undecidable` (e.g. powers beyond `maxBits`, inconclusive sampling).
 *   `details.extracted` holds the raw extracted answer (`null` if none) and `details.method` the
 *   deciding method (`fast` | `cas` | `sampling` | `string`). Synchronous, except the first time the
 *   CAS is needed in a process: then a Promise (the engine is imported once, ~0.25 s).
 * @example verifyMath("so the answer is \\boxed{\\frac{1}{2}}", "0.5") // { score: 1, status: "ok", ... }
 */
export function verifyMath(
  completion: string,
  reference: unknown,
  options?: Partial<MathOptions>,
): ComponentResult | Promise<ComponentResult> {
  const o = resolveOptions(options);
  const g = goldText(reference);
  if (g === null) return unscorable("no_reference", { extracted: null });
  const gold = normalizeAnswer(g);
  if (gold.s === "") return unscorable("no_reference", { extracted: null });
  const ex = extractAnswer(completion, o.extract);
  if (ex === null) return unscorable("no_answer", { extracted: null });
  const pred = normalizeAnswer(ex.answer);
  if (pred.s === "") return unscorable("no_answer", { extracted: ex.answer });
  const { cache, prefix } = cacheFor(o);
  const key = `${prefix}\u0000${gold.text ? "T" : ""}${gold.s}\u0000${pred.text ? "T" : ""}${pred.s}`;
  const hit = cache.get(key);
  if (hit) return toResult(hit, ex.answer);
  return decide(gold, pred, o, ex.answer, key, cache);
}

/**
 * The `math` verifier definition (type `math`, worker isolation, 5 s default deadline).
 * Options: {@link MathOptionsSchema}. Score 1 / 0 / `null` (unscorable) as in {@link verifyMath}.
 */
export const mathVerifier: VerifierDefinition<MathOptions> = {
  type: "math",
  summary: "Final-answer math equivalence (boxed/answer-line/#### extraction; exact rationals, CAS, sampling).",
  options: MathOptionsSchema,
  isolation: "worker",
  defaultTimeoutMs: 5000,
  create(options: MathOptions) {
    const o = MathOptionsSchema.parse(options);
    return (input) => verifyMath(input.completion, input.reference, o);
  },
};
