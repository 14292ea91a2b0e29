/**
 * The four likelihood reward forms over per-token log-probs of a reference answer, and their validation.
 * Pure arithmetic: no I/O, no options beyond the form itself.
 */

/** Likelihood reward forms (spec option `form`). */
export const LIKELIHOOD_FORMS = ["logprob", "mean-logprob", "mean-prob", "seq-prob"] as const;
export type LikelihoodForm = (typeof LIKELIHOOD_FORMS)[number];

/** Forms whose value is a probability in [0, 1] (the others are log-probs in (−∞, 0]). */
export function isProbabilityForm(form: LikelihoodForm): boolean {
  return form === "mean-prob" || form === "seq-prob";
}

/**
 * Largest log-prob accepted. Engines round: TGI reports `0.0` for near-certain tokens and fp16 kernels can
 * give a few 1e-7 above 0; anything clearly positive is a probability above 1, i.e. not a log-prob.
 */
export const MAX_LOGPROB = 1e-4;

/**
 * Checks a token log-prob array: a non-empty array of finite numbers ≤ {@link MAX_LOGPROB}.
 * @returns `undefined` when valid, else a message naming the first bad entry (for `details.error`).
 */
export function logprobProblem(lp: unknown): string | undefined {
  if (lp === undefined || lp === null) return "missing";
  if (!Array.isArray(lp)) return `expected an array of numbers, got ${typeof lp}`;
  if (lp.length === 0) return "empty array (a reference has at least one token)";
  for (let i = 0; i < lp.length; i++) {
    const x: unknown = lp[i];
    if (typeof x !== "number") return `[${i}]: expected a number, got ${x === null ? "null" : typeof x}`;
    if (!Number.isFinite(x)) return `[${i}]: ${x} is not finite`;
    if (x > MAX_LOGPROB) return `[${i}]: ${x} > 0 is not a log-probability`;
  }
  return undefined;
}

/**
 * Value of one likelihood form over token log-probs ℓ₁…ℓ_T (natural log) of the reference answer y*
 * given prompt x and reasoning z:
 *
 * | form | formula | range | source |
 * |---|---|---|---|
 * | `logprob` | Σₜ ℓₜ = log P(y* ∣ x, z) | (−∞, 0] | Likelihood-Based Reward Designs (the form that worked in every setup) |
 * | `mean-logprob` | (1/T) Σₜ ℓₜ | (−∞, 0] | length-normalized variant of the above |
 * | `mean-prob` | (1/T) Σₜ exp ℓₜ | [0, 1] | RLPR: mean token probability of the reference |
 * | `seq-prob` | exp Σₜ ℓₜ = P(y* ∣ x, z) | [0, 1] | VeriFree: probability of the whole reference |
 *
 * Example: ℓ = [ln 0.5, ln 0.25] → logprob = ln 0.125 ≈ −2.0794, mean-logprob ≈ −1.0397,
 * mean-prob = 0.375, seq-prob = 0.125.
 * @param lp shape [T], T ≥ 1, validated by {@link logprobProblem}.
 */
export function formValue(form: LikelihoodForm, lp: readonly number[]): number {
  const n = lp.length;
  switch (form) {
    case "logprob":
      return sum(lp);
    case "mean-logprob":
      return sum(lp) / n;
    case "mean-prob": {
      let s = 0;
      for (const x of lp) s += Math.exp(x);
      return s / n;
    }
    case "seq-prob":
      return Math.exp(sum(lp));
  }
}

/** Left-to-right sum (T ≤ a few thousand; rounding stays far below the 1e-9 the tests ask for). */
function sum(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s;
}

/** Optional clipping of a reward to [min, max] (either bound may be absent). */
export function clip(x: number, min: number | undefined, max: number | undefined): number {
  let y = x;
  if (min !== undefined && y < min) y = min;
  if (max !== undefined && y > max) y = max;
  return y === 0 ? 0 : y; // no −0 in the output
}

/**
 * RLPR reward debiasing: the same form computed without the reasoning is subtracted, so the reward measures what
 * the reasoning adds to the model's belief in the reference rather than how guessable the reference was:
 * r̂ = f(ℓ with reasoning) − f(ℓ without reasoning). RLPR then clips r̂ to [0, 1] (set `clipMin: 0, clipMax: 1`).
 * Example (mean-prob): with reasoning [ln 0.9, ln 0.7] → 0.8; without [ln 0.5, ln 0.3] → 0.4; r̂ = 0.4.
 */
export function debiased(
  form: LikelihoodForm,
  withReasoning: readonly number[],
  withoutReasoning: readonly number[],
): number {
  return formValue(form, withReasoning) - formValue(form, withoutReasoning);
}
