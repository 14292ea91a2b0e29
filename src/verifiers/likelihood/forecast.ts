import { z } from "zod";
import { ok, unscorable } from "../../core/types.js";
import type { ComponentResult } from "../../core/types.js";
import type { VerifierDefinition } from "../types.js";

/**
 * Forecast rewards: the completion states a probability p for a binary event, the reference is the outcome
 * o ∈ {0, 1}, and a proper scoring rule turns (p, o) into a reward (higher is better; honest p maximizes it in
 * expectation).
 */

/** A number in a forecast: `0.7`, `.7`, `70%`, `7e-1` (a sign is kept so `-0.2` is rejected, not read as 0.2). */
const NUMBER = /(?<![\w.])([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*(%)?/g;

/**
 * Extracts the forecast probability: the last number inside the last `<answer>…</answer>` block when there is one,
 * else the last number in the completion; `70%` means 0.7.
 * @returns p in [0, 1]; `no_answer` when there is no number, `parse_error` when it lies outside [0, 1].
 */
export function extractProbability(
  completion: string,
): { p: number; text: string } | { reason: "no_answer" | "parse_error"; text?: string } {
  const blocks = [...completion.matchAll(/<answer>([\s\S]*?)<\/answer>/g)];
  const scope = blocks.length > 0 ? blocks[blocks.length - 1]![1]! : completion;
  let last: RegExpMatchArray | undefined;
  for (const m of scope.matchAll(NUMBER)) last = m;
  if (!last) return { reason: "no_answer" };
  const text = last[0].trim();
  let p = Number(last[1]);
  if (last[2]) p /= 100;
  if (!(p >= 0 && p <= 1)) return { reason: "parse_error", text };
  return { p, text };
}

/** Binary outcome from a reference: `true`/`false`, `1`/`0`, `"yes"`/`"no"`, `"true"`/`"false"`, `"1"`/`"0"`. */
export function outcomeOf(reference: unknown): 0 | 1 | undefined {
  if (reference === true || reference === 1) return 1;
  if (reference === false || reference === 0) return 0;
  if (typeof reference === "string") {
    const s = reference.trim().toLowerCase();
    if (s === "yes" || s === "true" || s === "1") return 1;
    if (s === "no" || s === "false" || s === "0") return 0;
  }
  return undefined;
}

/**
 * Negated Brier score (Brier 1950): R = −(p − o)², in [−1, 0]; 0 for a certain, correct forecast.
 * Example: p = 0.7, o = 1 → −0.09; p = 0.7, o = 0 → −0.49; p = 0.5 → −0.25 whatever happens.
 */
export function brierReward(p: number, o: 0 | 1): number {
  const r = -((p - o) ** 2);
  return r === 0 ? 0 : r;
}

/**
 * Logarithmic score (Good 1952): R = ln p if o = 1, ln(1 − p) if o = 0, in (−∞, 0]. p is first clamped to
 * [ε, 1 − ε] so a confident wrong forecast costs ln ε (default ε = 1e-6 → −13.8155) instead of −∞.
 * Example: p = 0.7, o = 1 → ln 0.7 ≈ −0.35667; p = 0.7, o = 0 → ln 0.3 ≈ −1.20397.
 */
export function logScoreReward(p: number, o: 0 | 1, epsilon: number): number {
  const q = Math.min(Math.max(p, epsilon), 1 - epsilon);
  const r = Math.log(o === 1 ? q : 1 - q);
  return r === 0 ? 0 : r;
}

function scoreForecast(completion: string, reference: unknown, rule: (p: number, o: 0 | 1) => number): ComponentResult {
  if (reference === undefined || reference === null) return unscorable("no_reference");
  const o = outcomeOf(reference);
  if (o === undefined)
    return unscorable("invalid_reference", { error: "expected a binary outcome: true/false, 1/0, yes/no" });
  const e = extractProbability(completion);
  if ("reason" in e)
    return unscorable(
      e.reason,
      e.text !== undefined ? { extracted: e.text, error: "probability outside [0, 1]" } : undefined,
    );
  return ok(rule(e.p, o), undefined, { extracted: e.p, outcome: o });
}

const brierOptions = z.strictObject({});
export type BrierOptions = z.infer<typeof brierOptions>;

/** `brier`: negated Brier score of the stated probability against the binary outcome in `reference`. */
export const brierVerifier: VerifierDefinition<BrierOptions> = {
  type: "brier",
  summary: "forecast reward -(p - outcome)^2 for a stated probability against a binary outcome",
  options: brierOptions,
  isolation: "inline",
  defaultPassThreshold: -0.25, // at least as good as saying 50%
  defaultTimeoutMs: 1000,
  create() {
    return ({ completion, reference }) => scoreForecast(completion, reference, brierReward);
  },
};

const logScoreOptions = z.strictObject({
  /** ε: probabilities are clamped to [ε, 1 − ε] before the log (default 1e-6). */
  epsilon: z.number().positive().max(0.5).default(1e-6),
});
export type LogScoreOptions = z.infer<typeof logScoreOptions>;

/** `log-score`: log of the probability the forecast gave to what happened. */
export const logScoreVerifier: VerifierDefinition<LogScoreOptions> = {
  type: "log-score",
  summary: "forecast reward ln p (event happened) or ln(1 - p) (it did not), p clamped to [epsilon, 1 - epsilon]",
  options: logScoreOptions,
  isolation: "inline",
  defaultPassThreshold: Math.log(0.5), // at least as good as saying 50%
  defaultTimeoutMs: 1000,
  create(o) {
    return ({ completion, reference }) =>
      scoreForecast(completion, reference, (p, out) => logScoreReward(p, out, o.epsilon));
  },
};
