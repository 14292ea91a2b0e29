import { z } from "zod";
import { ok, unscorable } from "../../core/types.js";
import type { VerifierDefinition } from "../types.js";

const options = z.strictObject({
  /** n of the n-grams (TRL `ngram_size`, default 3). */
  ngramSize: z.number().int().positive().default(3),
  /** Penalty of a fully repetitive completion, ≤ 0 (TRL `max_penalty`, default −1). */
  maxPenalty: z.number().nonpositive().default(-1),
  /**
   * `auto` (default): the rollout's `completion_ids` when it has them (TRL), else words. `tokens`: `completion_ids`
   * only (a rollout without them is unscorable). `words`: the completion lower-cased and split on whitespace
   * (open-r1's original `get_repetition_penalty_reward`).
   */
  over: z.enum(["auto", "tokens", "words"]).default("auto"),
});
export type RepetitionOptions = z.infer<typeof options>;

/**
 * N-gram repetition penalty (Yeo et al. 2025, arXiv 2502.03373, App. C.2; TRL `trl/rewards/other_rewards.py`
 * `_RepetitionPenalty` @ f2cd5771):
 *
 *   r = (1 − #distinct n-grams / #n-grams) · maxPenalty,   0 when there are fewer than n units
 *
 * Example (n = 2, maxPenalty −1, TRL's docstring): [1, 2, 3, 4] → 0; [5, 5, 5, 5, 5] → 4 bigrams, 1 distinct → −0.75.
 * @param units token ids or words, shape [L].
 * @returns a penalty in [maxPenalty, 0] (never −0).
 */
export function repetitionPenalty(units: readonly unknown[], n: number, maxPenalty: number): number {
  if (units.length < n) return 0;
  const total = units.length - n + 1;
  const seen = new Set<string>();
  for (let i = 0; i < total; i++) seen.add(units.slice(i, i + n).join("\u0000"));
  const scaling = 1 - seen.size / total;
  return scaling === 0 || maxPenalty === 0 ? 0 : scaling * maxPenalty;
}

/** Words as open-r1 splits them: lower-cased, on runs of whitespace. */
function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/\s+/u)
    .filter((w) => w !== "");
}

/** `repetition-penalty`: TRL's n-gram repetition penalty over the rollout's token ids or its words; a score in [maxPenalty, 0]. */
export const repetitionPenaltyVerifier: VerifierDefinition<RepetitionOptions> = {
  type: "repetition-penalty",
  summary:
    "n-gram repetition penalty (Yeo et al. 2025, TRL get_repetition_penalty_reward): (1 - distinct/total n-grams) * maxPenalty",
  options,
  isolation: "inline", // one pass over the n-grams
  defaultPassThreshold: 0, // passes when nothing repeats
  defaultTimeoutMs: 1000,
  reads: ["completion_ids"],
  create(o) {
    return ({ completion, rollout }) => {
      const ids = rollout.completion_ids;
      const useIds = o.over === "tokens" || (o.over === "auto" && Array.isArray(ids));
      if (useIds && !Array.isArray(ids))
        return unscorable("missing_field", {
          field: "completion_ids",
          error: "over: tokens needs the rollout's completion_ids",
        });
      const units = useIds ? (ids as unknown[]) : words(completion);
      const total = Math.max(units.length - o.ngramSize + 1, 0);
      return ok(repetitionPenalty(units, o.ngramSize, o.maxPenalty), undefined, {
        over: useIds ? "tokens" : "words",
        units: units.length,
        ngrams: total,
      });
    };
  },
};
