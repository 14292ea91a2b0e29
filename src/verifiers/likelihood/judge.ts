/**
 * Preferences from a judge's next-token log-probs (AlpacaEval's "weighted" judges): the judge is asked for a single
 * identifier token naming the better output, and instead of reading the sampled token the preference is the
 * probability mass on one identifier, renormalized over the identifiers.
 *
 * What the RewardBench best-of-16 annotations (`weighted_alpaca_eval_gpt4_turbo`, GPT-4-turbo, top-5 log-probs)
 * show, measured in `test/likelihood-rewardbench.test.ts`: with P(t) = exp(logprob of t) summed over the top-5
 * entries whose token is exactly t,
 *
 *   preference = 1 + P("m") / (P("m") + P("M"))          (outputs shown to the judge in stored order)
 *   preference = 2 − P("m") / (P("m") + P("M"))          (outputs shown swapped)
 *
 * for every one of the 8826 judgments with log-probs, to 1e-9. Which order was shown is not stored: AlpacaEval
 * shuffles the pair with a seed derived from the row, and the shuffle is the same for every sample of one
 * instruction; rows without log-probs were recorded as 1.5 (a tie).
 */

/** One entry of an OpenAI `top_logprobs` list. */
export interface TopLogprob {
  token: string;
  logprob: number;
}

/**
 * Probability share of `numerator` among `denominators` in a top-k list: Σ P(numerator) / Σ P(d ∈ denominators).
 * Tokens outside the list have no known probability and count 0.
 * Example: [{m: ln 0.3}, {M: ln 0.6}, {The: ln 0.1}] → 0.3 / 0.9 = 1/3.
 * @returns the share in [0, 1], or `undefined` when no denominator token is in the list.
 */
export function tokenShare(top: readonly TopLogprob[], numerator: string, denominators: readonly string[]): number | undefined {
  let num = 0;
  let den = 0;
  for (const t of top) {
    if (!Number.isFinite(t.logprob)) continue;
    const p = Math.exp(t.logprob);
    if (t.token === numerator) num += p;
    if (denominators.includes(t.token)) den += p;
  }
  return den > 0 ? num / den : undefined;
}

/**
 * AlpacaEval weighted-judge preference in [1, 2] (1: first output preferred, 2: second), rebuilt from top-k
 * log-probs: 1 + share of "m" among {"m", "M"}, or 2 − that share when the pair was shown to the judge swapped.
 * Example: P(m) = 0.25, P(M) = 0.75 → 1.25 (shown in order), 1.75 (shown swapped).
 * @returns `undefined` when neither identifier is among the top-k tokens.
 */
export function weightedJudgePreference(top: readonly TopLogprob[], swapped = false): number | undefined {
  const s = tokenShare(top, "m", ["m", "M"]);
  if (s === undefined) return undefined;
  return swapped ? 2 - s : 1 + s;
}
