/**
 * The `math` verifier: extracts the final answer of a completion and checks it against a gold answer.
 *
 * Pipeline: extraction (`extract.ts`) → LaTeX normalization (`normalize.ts`) → cache → shapes
 * (`compare.ts`) → exact rationals (`fast.ts`) → compute-engine CAS and numeric sampling (`cas.ts`).
 * Policies follow Math-Verify's README where it has one (gold first; assignments `x = 1` → 1;
 * percentages 10% → 0.1; sets, intervals, matrices, complex numbers) and deliberately differ where it
 * has false positives: exact comparisons (no 6-decimal rounding), `\pm a` ≠ `a`, times, lists.
 */
import { copiedFromPrompt, echoesPrompt, hedgeAfter, promptText } from "./hedge.js";
import { ok, unscorable, type ComponentResult } from "../../core/types.js";
import type { VerifierDefinition } from "../types.js";
import { BoundedCache } from "../../core/cache.js";
import { casRewind, loadCas, withoutCas } from "./cas.js";
import { compareAnswers } from "./compare.js";
import { allBoxed, extractAnswer, stripDelimiters, type ExtractStrategy } from "./extract.js";
import { afterThink } from "../reasoning.js";
import { splitTop } from "./split.js";
import { normalizeAnswer, type Normalized } from "./normalize.js";
import {
  checkOption,
  isOptionLetter,
  letteredGold,
  optionValue,
  withAffirmedOption,
  type GoldOption,
} from "./choices.js";
import { scaledValue, unitRelation } from "./units.js";
import { partialScore } from "./partial.js";
import { MathOptionsSchema, type MathOptions } from "./options.js";
import { ANSWER_STYLES } from "./styles.js";
import { NeedCas, type CompareSettings, type Verdict } from "./verdict.js";

export { MathOptionsSchema, type MathOptions } from "./options.js";
export { extractAnswer, lastBoxed, firstBoxed, allBoxed, EXTRACT_STRATEGIES, type ExtractStrategy } from "./extract.js";
export { afterThink } from "../reasoning.js";
export { normalizeAnswer } from "./normalize.js";
export { ANSWER_STYLES, STYLE_NAMES, type AnswerStyle, type StyleName } from "./styles.js";
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

const cacheOf = new WeakMap<MathOptions, { cache: BoundedCache<Verdict>; prefix: string }>();

function cacheFor(o: MathOptions): { cache: BoundedCache<Verdict>; prefix: string } {
  const known = cacheOf.get(o);
  if (known) return known;
  const prefix = `${o.percent}|${o.relTol}|${o.sampleTol}|${o.samplePoints}|${o.seed}|${o.maxBits}`;
  const id = `${prefix}|${o.cacheSize}`;
  let cache = caches.get(id);
  if (!cache) {
    cache = new BoundedCache<Verdict>(o.cacheSize);
    caches.set(id, cache);
  }
  cacheOf.set(o, { cache, prefix });
  return { cache, prefix };
}

/** The distinct contents of the boxes of `t` (delimiters stripped), in order. */
function distinctInner(t: string): string[] {
  const out: string[] = [];
  for (const b of allBoxed(t)) {
    const x = stripDelimiters(b.inner);
    if (x !== "" && !out.includes(x)) out.push(x);
  }
  return out;
}

/** Whether a normalized gold is a list of several answers (`1, 2`, `\{1,2\}`). */
function isListGold(s: string): boolean {
  return s.startsWith("\\{") || splitTop(s, ",").length > 1;
}

/** Gold answer text from a reference: a string (possibly `\boxed{}` or a `####` solution) or a number. */
function goldText(reference: string | number | bigint): string | null {
  if (typeof reference === "number") return Number.isFinite(reference) ? String(reference) : null;
  if (typeof reference === "bigint") return reference.toString();
  const t = reference.trim();
  if (t === "") return null;
  const boxes = distinctInner(t);
  // Several different boxes in a reference (`\boxed{1}` and `\boxed{-2}`) are its list of answers.
  if (boxes.length > 0) return boxes.join(", ");
  // A reference whose last box is never closed (a truncated or malformed gold): the rest of it is the box.
  const open = /\\boxed\s*\{/.exec(t.slice(t.lastIndexOf("\\boxed")));
  if (open) {
    const rest = stripDelimiters(t.slice(t.lastIndexOf("\\boxed") + open[0].length));
    if (rest !== "") return rest;
  }
  const gsm = /####\s*([^\n]+)\s*$/.exec(t);
  if (gsm?.[1] !== undefined) return stripDelimiters(gsm[1]);
  // A reference that is a whole solution in words: its final answer, as for a completion.
  if (t.length > 200 || t.includes("\n")) {
    const ex = extractAnswer(t, ["final-answer", "answer-line", "last-math"]);
    if (ex !== null) return ex.answer;
  }
  return stripDelimiters(t);
}

function toResult(v: Verdict, extracted: string, extra?: Record<string, unknown>): ComponentResult {
  const details = { extracted, method: v.method, ...extra };
  switch (v.outcome) {
    case true:
      return ok(1, undefined, details);
    case false:
      return ok(0, "wrong_answer", details);
    case "multiple_answers":
      return ok(0, "multiple_answers", details);
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

type MaybePromise<T> = T | Promise<T>;

function then<T, U>(x: MaybePromise<T>, f: (t: T) => MaybePromise<U>): MaybePromise<U> {
  return x instanceof Promise ? x.then(f) : f(x);
}

/** Runs `fs` one after the other (synchronously while none needs the CAS loader). */
function sequence<T>(fs: (() => MaybePromise<T>)[], acc: T[] = []): MaybePromise<T[]> {
  const f = fs[acc.length];
  if (f === undefined) return acc;
  return then(f(), (v) => sequence(fs, [...acc, v]));
}

/** Deepest nesting of `{ ( [` in `s` (a 10 000-deep input would overflow the recursive parsers). */
function nestingDepth(s: string): number {
  let d = 0;
  let max = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 123 || c === 40 || c === 91) {
      if (++d > max) max = d;
    } else if (c === 125 || c === 41 || c === 93) d--;
  }
  return max;
}

/** Above this bracket depth an answer is `parse_error` (real answers stay below 20). */
const MAX_DEPTH = 64;

/** Why a normalized answer is refused before any comparison, or `null`. */
function refused(n: Normalized, o: MathOptions): "parse_error" | null {
  return n.s.length > o.maxAnswerChars || nestingDepth(n.s) > MAX_DEPTH ? "parse_error" : null;
}

/** A lone value (no list, relation or assignment) that can be wrapped as `\frac{(v)\pi}{180}`. */
function loneValue(s: string): boolean {
  return !/[=<>,;]|\\[lg]eq|\\cup/.test(s);
}

/**
 * Degree signs dropped by normalization must not make a confident 0: a `false` verdict becomes `undecidable`
 * when one side is an angle in degrees and the other an expression in `\pi` that equals it in radians
 * (`30^\circ` vs `\frac{\pi}{6}`) or when a degree sign could not be read (`\sin x^\circ`). Other units are
 * compared by {@link compareWithUnits}.
 */
function unitPolicy(gold: Normalized, pred: Normalized, v: Verdict, o: MathOptions): Verdict {
  if (v.outcome !== false) return v;
  const unsure: Verdict = { outcome: "undecidable", method: v.method };
  if (gold.deg === "unresolved" || pred.deg === "unresolved") return unsure;
  if ((gold.deg === "angle") !== (pred.deg === "angle")) {
    const [deg, other] = gold.deg === "angle" ? [gold, pred] : [pred, gold];
    if (/\\pi(?![a-zA-Z])/.test(other.s)) {
      if (!loneValue(deg.s) || !loneValue(other.s)) return unsure;
      const rad = `\\frac{(${deg.s})\\pi}{180}`;
      const w =
        deg === gold
          ? compareAnswers(rad, pred.s, false, pred.text, settingsOf(o))
          : compareAnswers(gold.s, rad, gold.text, false, settingsOf(o));
      return w.outcome === false ? v : unsure;
    }
  }
  return v;
}

/**
 * Compares two normalized answers with their units (`units.ts`): another dimension is wrong (`5 kg` for `5 m`),
 * another unit of the dimension is converted to the gold's (`300 minutes` = `5 hours`, `72 cents` ≠ `\$72`), and
 * between units without a fixed factor (months, years) the same number is wrong and another undecidable.
 */
function compareWithUnits(gold: Normalized, pred: Normalized, o: MathOptions): Verdict {
  const rel = unitRelation(gold.unit, pred.unit);
  if (rel.kind === "mismatch") return { outcome: false, method: "string" };
  if (rel.kind === "scale" && loneValue(gold.s) && loneValue(pred.s))
    return compareAnswers(gold.s, scaledValue(pred.s, rel.num, rel.den), gold.text, pred.text, settingsOf(o));
  const v = compareAnswers(gold.s, pred.s, gold.text, pred.text, settingsOf(o));
  if (rel.kind === "same") return v;
  if (v.outcome === true) return { outcome: false, method: v.method };
  return v.outcome === false ? { outcome: "undecidable", method: v.method } : v;
}

/** The flags of a normalized answer in a verdict key; the usual `||` (no flag) is a constant, not a new string. */
function mark(n: Normalized): string {
  return n.text || n.deg !== undefined || n.unit !== undefined
    ? `${n.text ? "T" : ""}${n.deg ?? ""}|${n.unit ?? ""}|`
    : "||";
}

function verdictKey(gold: Normalized, pred: Normalized, prefix: string): string {
  return `${prefix}\u0000${mark(gold)}${gold.s}\u0000${mark(pred)}${pred.s}`;
}

/** The verdict for a normalized pair, from the cache or computed (a Promise only while the CAS loads). */
function verdictOf(gold: Normalized, pred: Normalized, o: MathOptions): MaybePromise<Verdict> {
  const { cache, prefix } = cacheFor(o);
  const key = verdictKey(gold, pred, prefix);
  const hit = cache.get(key);
  if (hit) return hit;
  const compute = (): MaybePromise<Verdict> => {
    try {
      const v = unitPolicy(gold, pred, compareWithUnits(gold, pred, o), o);
      cache.set(key, v);
      return v;
    } catch (err) {
      if (err instanceof NeedCas) return loadCas().then(compute);
      return { outcome: "undecidable", method: "cas" };
    } finally {
      // Whatever the engine learned from this pair (symbols, types, assignments) is forgotten.
      casRewind();
    }
  };
  return compute();
}

/** Thrown by the inline path when it cannot decide a rollout: the worker does. */
class HandOver extends Error {
  constructor() {
    super("hand over to the worker");
  }
}
const HAND_OVER = new HandOver();

/**
 * Bounds of the inline path (`verifyMathInline`): beyond them a rollout goes to the worker. Extraction is linear in
 * the text; everything after it (normalization, comparison) runs on at most `answer` characters, so its cost per
 * rollout is bounded whatever the regular expressions do on longer strings.
 */
const INLINE = { text: 65_536, reference: 1_024, answer: 256 } as const;

/**
 * How a pair of normalized answers is decided: by the worker's `verdictOf` (every path, the CAS included), or
 * inline (the same comparison with the CAS barred; {@link HAND_OVER} when it would need it).
 */
interface Decider {
  verdict(gold: Normalized, pred: Normalized, o: MathOptions): MaybePromise<Verdict>;
  /** Longest raw answer (either side) this decider normalizes. */
  maxAnswer: number;
}

const WORKER: Decider = { verdict: verdictOf, maxAnswer: Infinity };

const INLINE_DECIDER: Decider = {
  maxAnswer: INLINE.answer,
  verdict(gold, pred, o) {
    if (gold.s.length > INLINE.answer || pred.s.length > INLINE.answer) throw HAND_OVER;
    const { cache, prefix } = cacheFor(o);
    const key = verdictKey(gold, pred, prefix);
    const hit = cache.get(key);
    if (hit) return hit;
    let v: Verdict;
    try {
      v = withoutCas(() => unitPolicy(gold, pred, compareWithUnits(gold, pred, o), o));
    } catch {
      throw HAND_OVER; // NeedCas, or an error the worker turns into `undecidable`
    }
    cache.set(key, v);
    return v;
  },
};

/** Distinct normalized boxed answers (by normalized text), in order. */
function distinctBoxes(boxes: string[], o: MathOptions): Normalized[] | "parse_error" {
  const seen = new Set<string>();
  const out: Normalized[] = [];
  for (const b of boxes) {
    if (b.length > o.maxAnswerChars) return "parse_error";
    const n = normalizeAnswer(b);
    if (n.s === "" || seen.has(n.s)) continue;
    if (refused(n, o)) return "parse_error";
    seen.add(n.s);
    out.push(n);
  }
  return out;
}

/** `multipleBoxed: all | reject` over several distinct boxed answers. */
function severalBoxes(
  gold: Normalized,
  boxes: Normalized[],
  o: MathOptions,
  extracted: string,
): MaybePromise<ComponentResult> {
  const extra = { boxed: boxes.length };
  const last = boxes[boxes.length - 1] as Normalized;
  if (o.multipleBoxed === "reject") {
    // Several boxed answers are one answer only when they are all equivalent to each other.
    const first = boxes[0] as Normalized;
    return then(
      sequence(boxes.slice(1).map((b) => () => verdictOf(first, b, o))),
      (vs): MaybePromise<ComponentResult> => {
        if (vs.some((v) => v.outcome !== true))
          return ok(0, "multiple_answers", { extracted, method: "string", ...extra });
        return then(verdictOf(gold, last, o), (v) => toResult(v, extracted, extra));
      },
    );
  }
  return then(sequence(boxes.map((b) => () => verdictOf(gold, b, o))), (vs) => {
    const right = vs.filter((v) => v.outcome === true).length;
    if (right === vs.length) return toResult(vs[vs.length - 1] as Verdict, extracted, extra);
    if (right > 0) return ok(0, "multiple_answers", { extracted, method: "string", ...extra });
    return toResult(vs[vs.length - 1] as Verdict, extracted, extra);
  });
}

/**
 * Scores a completion against a gold math answer.
 *
 * @param completion model output; the answer is extracted as `options.style` says (default `auto`: the
 *   anchor stated last among `\boxed{}`, "the answer is", `Answer:` / `A:` lines, `#### n` and the Chinese and
 *   French cues, else a bare answer, the last math span, the last number; docs/math.md §1) or with
 *   `options.extract`, `options.multipleBoxed` choosing among several boxed answers and
 *   `options.answerAfterThink` restricting the search to the text after `</think>`.
 * @param reference gold answer: a string (LaTeX allowed, may itself be `\boxed{...}` or a GSM8K
 *   solution ending in `#### n`), a finite number, or a non-empty array of them (acceptable answers: 1 if
 *   any matches, `details.matched` its index; else `undecidable` if any was, then `parse_error`, then 0).
 * @param options partial {@link MathOptions}; validated (throws a ZodError on unknown keys/bad values).
 * @returns `ok(1)` when equivalent; `ok(0, "wrong_answer")` when not; `ok(0, "multiple_answers")` for an
 *   enumeration offered for a single-valued gold (`\boxed{1, 2, 3}` for `2`) or, under
 *   `multipleBoxed: reject | all`, for boxed answers that disagree; `unscorable` with `no_reference`
 *   (missing/empty reference), `no_answer` (nothing extracted), `parse_error` (a side does not parse,
 *   is longer than `maxAnswerChars` or nested deeper than 64 brackets; two parse errors never match),
 *   `invalid_reference` (a reference of another shape: object, empty array, boolean, `NaN`),
 *   `undecidable` (e.g. powers beyond `maxBits`, inconclusive sampling, degrees vs radians, or two units of
 *   one dimension without a fixed factor that differ as bare numbers); with `options.partialCredit`, a wrong
 *   answer to a numeric gold scores in [0, 1) by its distance (`partial.ts`, `details.partial`).
 *   `details.extracted` holds the raw extracted answer (`null` if none) and `details.method` the
 *   deciding method (`fast` | `cas` | `sampling` | `string`). Synchronous, except the first time the
 *   CAS is needed in a process: then a Promise (the engine is imported once, ~0.25 s).
 * @param prompt the rollout's prompt as text, when known: an answer found only by a fallback strategy (`whole`,
 *   `last-math`, `last-number`) that is copied from the prompt and is not the gold itself scores 0
 *   (`wrong_answer`, `details.copiedFromPrompt`): restating the question is not an answer (probe `prompt-echo`).
 * @example verifyMath("so the answer is \\boxed{\\frac{1}{2}}", "0.5") // { score: 1, status: "ok", ... }
 */
export function verifyMath(
  completion: string,
  reference: unknown,
  options?: Partial<MathOptions>,
  prompt?: string,
): ComponentResult | Promise<ComponentResult> {
  return verifyWith(WORKER, completion, reference, resolveOptions(options), prompt);
}

/**
 * The inline fast path: {@link verifyMath}'s result when it is certain without the CAS and within bounded work,
 * else `undefined` (the caller runs `verifyMath` in a worker). Runs the same extraction, normalization and
 * comparison code as `verifyMath` with the CAS barred, so whatever it returns is exactly `verifyMath`'s result — a
 * pure function of (completion, reference, options, prompt) either way. Synchronous; linear in the completion:
 * texts over 64 KiB, references over 1 KiB and answers over 256 characters are handed over, and the steps after
 * extraction (linear, docs/math.md §1) only see answers of at most 256 characters. Decides identical normalized
 * answers, exact rationals and certainly-different radicals — nearly every verdict of a training run.
 * @example verifyMathInline("so \\boxed{\\frac{1}{2}}", "0.5") // { score: 1, status: "ok", ... }
 * @example verifyMathInline("\\boxed{\\sqrt{8}}", "2\\sqrt{2}") // undefined (needs the CAS)
 */
export function verifyMathInline(
  completion: string,
  reference: unknown,
  options?: Partial<MathOptions>,
  prompt?: string,
): ComponentResult | undefined {
  if (completion.length > INLINE.text || (prompt !== undefined && prompt.length > INLINE.text)) return undefined;
  const o = resolveOptions(options);
  try {
    const r = verifyWith(INLINE_DECIDER, completion, reference, o, prompt);
    return r instanceof Promise ? undefined : r; // never: the inline decider is synchronous
  } catch (err) {
    if (err === HAND_OVER) return undefined;
    throw err;
  }
}

function verifyWith(
  d: Decider,
  completion: string,
  reference: unknown,
  o: MathOptions,
  prompt?: string,
): ComponentResult | Promise<ComponentResult> {
  if (reference === undefined || reference === null) return unscorable("no_reference", { extracted: null });
  if (Array.isArray(reference)) {
    const refs: unknown[] = reference;
    if (refs.length === 0 || !refs.every(isScalarReference)) return invalidReference();
    const alternatives = refs;
    return then(sequence(alternatives.map((r) => () => verifyOne(d, completion, r, o, prompt))), (rs) =>
      rs.length === 1 ? (rs[0] as ComponentResult) : bestOf(rs),
    );
  }
  if (!isScalarReference(reference)) return invalidReference();
  return verifyOne(d, completion, reference, o, prompt);
}

const REFERENCE_SHAPE = "a string, a finite number, or a non-empty array of them (any one may match)";

function invalidReference(): ComponentResult {
  return unscorable("invalid_reference", { extracted: null, expected: REFERENCE_SHAPE });
}

/** A reference that is one answer: a string, a finite number or a bigint. */
function isScalarReference(r: unknown): r is string | number | bigint {
  return typeof r === "string" || typeof r === "bigint" || (typeof r === "number" && Number.isFinite(r));
}

/** Preference among the results of several acceptable references: a match, else the least confident. */
const RANK: Record<string, number> = {
  undecidable: 5,
  timeout: 5,
  parse_error: 4,
  wrong_answer: 3,
  multiple_answers: 3,
  no_answer: 2,
  no_reference: 1,
};

/**
 * The result over several acceptable references: 1 if any matches (`details.matched` is its index);
 * otherwise `undecidable` if any was undecidable (an undecided alternative may be the right one), then
 * `parse_error`, then 0 (`wrong_answer` / `multiple_answers`).
 */
function bestOf(rs: ComponentResult[]): ComponentResult {
  const hit = rs.findIndex((r) => r.score === 1);
  if (hit >= 0) {
    const r = rs[hit] as ComponentResult;
    return { ...r, details: { ...r.details, matched: hit } };
  }
  let best = rs[0] as ComponentResult;
  for (const r of rs) if ((RANK[r.reason ?? ""] ?? 0) > (RANK[best.reason ?? ""] ?? 0)) best = r;
  return best;
}

function verifyOne(
  d: Decider,
  completion: string,
  reference: string | number | bigint,
  o: MathOptions,
  prompt?: string,
): ComponentResult | Promise<ComponentResult> {
  if (d !== WORKER && typeof reference === "string" && reference.length > INLINE.reference) throw HAND_OVER;
  const known = golds.get(referenceKey(reference));
  const g = known ? known.g : goldText(reference);
  if (g === null) return unscorable("no_reference", { extracted: null });
  if (g.length > o.maxAnswerChars) return unscorable("parse_error", { extracted: null, side: "reference" });
  if (g.length > d.maxAnswer) throw HAND_OVER;
  // a gold option with its text (`(D) Alina`): the letter is the answer (choices.ts)
  const option = known ? known.option : letteredGold(g);
  const gold = known ? known.gold : normalizeAnswer(option ? option.letter : g);
  if (!known) golds.set(referenceKey(reference), { g, gold, option });
  if (gold.s === "") return unscorable("no_reference", { extracted: null });
  if (refused(gold, o)) return unscorable("parse_error", { extracted: null, side: "reference" });
  let text: string | null = completion;
  if (o.answerAfterThink) text = afterThink(completion, o.thinkTag);
  if (text === null) return unscorable("no_answer", { extracted: null, think: "unclosed" });
  const style = ANSWER_STYLES[o.style];
  const strategies: readonly ExtractStrategy[] = o.extract ?? style.extract;
  const read = extractAnswer(text, strategies, o.multipleBoxed === "first" ? "first" : "last", style.dollars);
  // an option letter gold, and no answer cue: the option the text affirms (`It's not A …, so I think it's B`)
  const ex =
    isOptionLetter(gold.s) && strategies.includes("whole") ? withAffirmedOption(text, read, style.dollars) : read;
  if (ex === null) return unscorable("no_answer", { extracted: null });
  const shown = ex.answer.length > 200 ? `${ex.answer.slice(0, 200)}…` : ex.answer;
  if (ex.answer.length > o.maxAnswerChars) return unscorable("parse_error", { extracted: shown });
  if (ex.answer.length > d.maxAnswer) throw HAND_OVER;
  let pred = normalizeAnswer(ex.answer);
  // A list gold answered with one box per item (`\boxed{1} and \boxed{2}`): the boxes together are the answer.
  if (ex.boxed && ex.boxed.length > 1 && o.multipleBoxed === "last" && isListGold(gold.s) && !isListGold(pred.s)) {
    const joined = [...new Set(ex.boxed)].join(", ");
    if (joined.length > d.maxAnswer) throw HAND_OVER;
    if (joined.length <= o.maxAnswerChars) pred = normalizeAnswer(joined);
  }
  if (pred.s === "") return unscorable("no_answer", { extracted: ex.answer });
  if (refused(pred, o)) return unscorable("parse_error", { extracted: shown });
  if (prompt !== undefined && copiedFromPrompt(ex, prompt) && (pred.s !== gold.s || echoesPrompt(text, prompt)))
    return ok(0, "wrong_answer", { extracted: shown, copiedFromPrompt: true });
  const hedge = hedgeAfter(text, ex.answer);
  if (hedge !== undefined) return ok(0, "multiple_answers", { extracted: shown, hedge });
  if (ex.boxed && ex.boxed.length > 1 && (o.multipleBoxed === "all" || o.multipleBoxed === "reject")) {
    if (d !== WORKER) throw HAND_OVER; // several answers to normalize and compare: the worker's
    const boxes = distinctBoxes(ex.boxed, o);
    if (boxes === "parse_error") return unscorable("parse_error", { extracted: shown });
    if (boxes.length > 1) return severalBoxes(gold, boxes, o, ex.answer);
  }
  if (option) {
    // the letter decides; option text written with it (`(D) Bob`) or alone (`Alina`) must be the gold option's
    const c = checkOption(option, ex.answer, text);
    if (c.multiple) return ok(0, "multiple_answers", { extracted: shown, method: "string" });
    if (c.letter === false) return ok(0, "wrong_answer", { extracted: shown, method: "string" });
    if (c.text === undefined) return ok(1, undefined, { extracted: shown, method: "string" });
    const [gt, pt] = [normalizeAnswer(optionValue(option.text)), normalizeAnswer(optionValue(c.text))];
    return then(d.verdict(gt, pt, o), (v) =>
      c.letter === true && v.outcome !== true && v.outcome !== false
        ? ok(1, undefined, { extracted: shown, method: "string" })
        : toResult(v, ex.answer),
    );
  }
  const partial = o.partialCredit;
  return then(d.verdict(gold, pred, o), (v) => {
    const p = partial && v.outcome === false ? partialScore(gold, pred, partial, o.maxBits) : undefined;
    return p === undefined
      ? toResult(v, ex.answer)
      : ok(p, "wrong_answer", { extracted: shown, method: v.method, partial: p });
  });
}

/**
 * A reference's gold answer text, its normalization and its lettered option, by reference (a group's rollouts share one reference: it is
 * read once). Pure functions of the reference, so a hit is what reading it again would give.
 */
const golds = new BoundedCache<{ g: string; gold: Normalized; option: GoldOption | null }>(4096);

function referenceKey(reference: string | number | bigint): string {
  return typeof reference === "string" ? `s${reference}` : `${typeof reference}${String(reference)}`;
}

/** Empties the verdict caches of this thread (benchmarks measure cold runs with it). */
export function clearMathCache(): void {
  for (const c of caches.values()) c.clear();
  golds.clear();
}

/**
 * The `math` verifier definition (type `math`, worker isolation, 5 s default deadline).
 * Options: {@link MathOptionsSchema}. Score 1 / 0 / `null` (unscorable) as in {@link verifyMath}.
 */
export const mathVerifier: VerifierDefinition<MathOptions> = {
  type: "math",
  summary:
    "Final-answer math equivalence (answer styles auto|gsm8k|latex|mcq|boxed: boxed, the answer is, A:/Answer:, ####, zh/fr cues; exact rationals, CAS, sampling).",
  options: MathOptionsSchema,
  isolation: "worker",
  defaultTimeoutMs: 5000,
  reads: ["prompt"], // a fallback answer copied from the prompt scores 0 (see verifyMath)
  create(options: MathOptions) {
    const o = MathOptionsSchema.parse(options);
    return (input) => verifyMath(input.completion, input.reference, o, promptText(input.rollout.prompt));
  },
  fastPath(options: MathOptions) {
    const o = MathOptionsSchema.parse(options);
    return (input) => verifyMathInline(input.completion, input.reference, o, promptText(input.rollout.prompt));
  },
};
