import { z } from "zod";
import { ok, unscorable } from "../../core/types.js";
import type { ComponentResult } from "../../core/types.js";
import type { VerifierDefinition } from "../types.js";
import { LENGTH_READS, lengthUnitOptions, measureLength, correctnessOf } from "./measure.js";
import type { MeasuredLength } from "./measure.js";

const options = z
  .strictObject({
    /** Name of the component that says whether the answer is correct (it is correct when that component passes). */
    correctness: z.string().min(1),
    /** L_max: the length where the curves reach their long end (TRL `max_len`); longer completions stay there. */
    maxLength: z.number().positive(),
    /** Reward of a wrong completion of length 0 (TRL `min_value_wrong`, default −1). */
    minValueWrong: z.number().default(-1),
    /** Reward of a wrong completion at maxLength (TRL `max_value_wrong`, default −0.5). */
    maxValueWrong: z.number().default(-0.5),
    /** Reward of a correct completion at maxLength (TRL `min_value_correct`, default 0.5). */
    minValueCorrect: z.number().default(0.5),
    /** Reward of a correct completion of length 0 (TRL `max_value_correct`, default 1). */
    maxValueCorrect: z.number().default(1),
    ...lengthUnitOptions,
  })
  .refine((o) => o.minValueCorrect <= o.maxValueCorrect, {
    message: "minValueCorrect must be <= maxValueCorrect",
    path: ["minValueCorrect"],
  })
  .refine((o) => o.minValueWrong <= o.maxValueWrong, {
    message: "minValueWrong must be <= maxValueWrong",
    path: ["minValueWrong"],
  });
export type CosineLengthOptions = z.infer<typeof options>;

/**
 * Cosine length scaling (Yeo et al. 2025, "Demystifying Long Chain-of-Thought Reasoning in LLMs", arXiv 2502.03373,
 * §4.2 / Eq. 1; TRL `trl/rewards/accuracy_rewards.py` `_CosineScaledReward` @ f2cd5771):
 *
 *   r = v_min + ½ (v_max − v_min) (1 + cos(π · min(L / L_max, 1)))
 *
 * with (v_min, v_max) = (minValueCorrect, maxValueCorrect) for a correct answer — shorter is better — and
 * (maxValueWrong, minValueWrong) for a wrong one — longer is penalized less, so a wrong answer is pushed to think
 * longer. L is clamped at L_max (cos is periodic: without it very long completions would climb back up).
 * Example (TRL defaults, L_max = 100): L = 50 → 0.75 correct, −0.75 wrong; L = 0 → 1 / −1; L ≥ 100 → 0.5 / −0.5.
 */
export function cosineScaled(
  length: number,
  correct: boolean,
  o: Pick<CosineLengthOptions, "maxLength" | "minValueWrong" | "maxValueWrong" | "minValueCorrect" | "maxValueCorrect">,
): number {
  const c = Math.cos(Math.min(length / o.maxLength, 1) * Math.PI);
  const [lo, hi] = correct ? [o.minValueCorrect, o.maxValueCorrect] : [o.maxValueWrong, o.minValueWrong];
  return lo + 0.5 * (hi - lo) * (1 + c);
}

interface Member extends MeasuredLength {
  correct: boolean | null;
}

/**
 * `cosine-length`: Yeo et al.'s cosine length reward; correctness from another component (`correctness: accuracy`),
 * read at composition's group stage. An answer the correctness component cannot read or decide counts as wrong
 * ({@link correctnessOf}); only an unreadable reference makes this one unscorable (`dependency_unscorable`), as TRL
 * skips an example whose gold answer does not parse.
 */
export const cosineLengthVerifier: VerifierDefinition<CosineLengthOptions> = {
  type: "cosine-length",
  summary:
    "cosine length scaling (Yeo et al. 2025, TRL get_cosine_scaled_reward): shorter correct answers score higher, shorter wrong ones lower",
  options,
  isolation: "inline",
  defaultPassThreshold: 0, // with TRL's values, correct answers are > 0 and wrong ones < 0
  defaultTimeoutMs: 1000,
  reads: LENGTH_READS,
  create() {
    return () => unscorable("dependency_unscorable", { stage: "group" }); // replaced at the group stage
  },
  group(o, ctx) {
    const dep = ctx.component(o.correctness, "correctness");
    if (dep < 0) return undefined;
    const threshold = ctx.passThresholds[dep]!;
    return {
      member({ completion, rollout }, results): Member {
        return { ...measureLength(completion, rollout, o), correct: correctnessOf(results[dep]!, threshold) };
      },
      score(members: readonly Member[]): ComponentResult[] {
        return members.map((m) => {
          const details = { length: m.length, lengthSource: m.source, correct: m.correct };
          if (m.correct === null) return unscorable("dependency_unscorable", { ...details, component: o.correctness });
          return ok(cosineScaled(m.length, m.correct, o), undefined, details);
        });
      },
    };
  },
};
