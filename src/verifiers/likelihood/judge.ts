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

/** The probability mass of the value tokens in a top-k list and the expectation of their values. */
export interface TokenDistribution {
  /** Σ P(t) v(t) / Σ P(t) over the value tokens found. */
  expected: number;
  /** Σ P(t) over the value tokens found (how much of the judge's belief the expectation rests on). */
  mass: number;
  /** Probability of each value token found, by its text as the server spelled it. */
  found: Record<string, number>;
}

/**
 * Expected value of the next token under the judge's top-k distribution, renormalized over the tokens that stand
 * for a value: E = Σ P(t) v(t) / Σ P(t), P(t) = exp(logprob), over the entries with `value(t)` defined. This is
 * G-Eval's probability-weighted score (Liu et al. 2023) when the values are ratings, and the probability of "yes"
 * when the values are yes → 1, no → 0. Tokens outside the list have no known probability and count 0; entries with
 * a non-finite log-prob are skipped. Example: [{"7": ln 0.6}, {"8": ln 0.3}, {"The": ln 0.1}] with v = the number →
 * E = (0.6·7 + 0.3·8)/0.9 = 7.333…, mass 0.9.
 * @returns undefined when no value token is in the list.
 */
export function tokenDistribution(
  top: readonly TopLogprob[],
  value: (token: string) => number | undefined,
): TokenDistribution | undefined {
  let mass = 0;
  let sum = 0;
  const found: Record<string, number> = {};
  for (const t of top) {
    if (!Number.isFinite(t.logprob)) continue;
    const v = value(t.token);
    if (v === undefined) continue;
    const p = Math.exp(t.logprob);
    mass += p;
    sum += p * v;
    found[t.token] = (found[t.token] ?? 0) + p;
  }
  return mass > 0 ? { expected: sum / mass, mass, found } : undefined;
}

/**
 * Probability share of `numerator` among `denominators` in a top-k list: Σ P(numerator) / Σ P(d ∈ denominators),
 * i.e. {@link tokenDistribution} with value 1 for the numerator and 0 for the other denominators.
 * Tokens outside the list have no known probability and count 0.
 * Example: [{m: ln 0.3}, {M: ln 0.6}, {The: ln 0.1}] → 0.3 / 0.9 = 1/3.
 * @returns the share in [0, 1], or `undefined` when no denominator token is in the list.
 */
export function tokenShare(
  top: readonly TopLogprob[],
  numerator: string,
  denominators: readonly string[],
): number | undefined {
  return tokenDistribution(top, (t) => (denominators.includes(t) ? (t === numerator ? 1 : 0) : undefined))?.expected;
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
