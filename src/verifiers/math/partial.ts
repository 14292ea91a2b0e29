/**
 * Partial numeric credit (opt-in `partialCredit` of the `math` verifier): a wrong answer to a numeric gold earns a
 * score in [0, 1) that decreases with its distance to the gold, a dense signal where a near miss (98 for 100) and a
 * wild guess (3 for 100) would both be 0. Numerical-proximity partial credit is the "T50" seed of the methods
 * catalog (CADENCE, 003#015), which adds it for incorrect-but-close traces without fixing the proximity function;
 * the two below are the usual choices, each with one scale:
 *
 * - `relative`: `max(0, 1 − |p − g| / (scale · max(|g|, ε)))`, ε = 1e-9: linear in the relative error, 0 once the
 *   error reaches `scale` (default 1: 98 for 100 → 0.98, 50 → 0.5, 3 → 0.03, 250 → 0). For quantities whose
 *   errors are additive (counts, money, GSM8K answers).
 * - `log`: `max(0, 1 − |log10(p / g)| / scale)` when p and g have the same sign (else 0): linear in decades, 0 once
 *   the answer is `scale` orders of magnitude off (default 1: 98 for 100 → 0.991, 50 → 0.70, 3 → 0, 1000 → 0).
 *   Symmetric in over- and under-estimates; for Fermi estimates and physical magnitudes.
 *
 * Never above 1 − 1e-9 for a wrong answer, so an exact answer (1) always ranks first; never given to a hedge
 * (`multiple_answers`), to a unit of another dimension, to an answer that is not an exact number (`\sqrt{2}`, a
 * list, a word) or to a gold that is not one. Pure: a function of the two normalized answers and the options.
 */
import { fastEval, ratToNumber } from "./fast.js";
import type { Normalized } from "./normalize.js";
import { unitRelation } from "./units.js";

/** The `partialCredit` option: the proximity function and its scale. */
export interface PartialCredit {
  kind: "relative" | "log";
  scale?: number | undefined;
}

const EPS = 1e-9;
const BELOW_ONE = 1 - 1e-9;

/** The value of a normalized lone number (`98`, `-3.5`, `\frac{1}{2}`, `50%` as 50), or undefined. */
function numberOf(s: string, maxBits: number): number | undefined {
  if (s === "" || /[,;=<>]/.test(s)) return undefined;
  const r = fastEval(s.endsWith("%") ? s.slice(0, -1) : s, maxBits);
  if (r.kind !== "ok") return undefined;
  const x = ratToNumber(r.value);
  return Number.isFinite(x) ? x : undefined;
}

/**
 * The partial credit of a wrong prediction (see the module comment), or undefined when none applies.
 * @param gold normalized gold; @param pred normalized prediction (already judged wrong, not a hedge).
 * @example partialScore({s: "100", text: false}, {s: "98", text: false}, {kind: "relative"}) // 0.98
 */
export function partialScore(
  gold: Normalized,
  pred: Normalized,
  cfg: PartialCredit,
  maxBits = 32768,
): number | undefined {
  if (gold.text || pred.text || gold.deg !== pred.deg) return undefined;
  if (gold.s.endsWith("%") !== pred.s.endsWith("%")) return undefined;
  const g = numberOf(gold.s, maxBits);
  let p = numberOf(pred.s, maxBits);
  if (g === undefined || p === undefined) return undefined;
  const rel = unitRelation(gold.unit, pred.unit);
  if (rel.kind === "mismatch" || rel.kind === "unfixed") return undefined;
  if (rel.kind === "scale") p = (p * Number(rel.num)) / Number(rel.den);
  let score: number;
  if (cfg.kind === "relative") {
    score = 1 - Math.abs(p - g) / ((cfg.scale ?? 1) * Math.max(Math.abs(g), EPS));
  } else {
    if (g === 0 || p === 0 || Math.sign(g) !== Math.sign(p)) return 0;
    score = 1 - Math.abs(Math.log10(p / g)) / (cfg.scale ?? 1);
  }
  return Math.min(BELOW_ONE, Math.max(0, score));
}
