import { z } from "zod";
import { ok, unscorable } from "../../core/types.js";
import type { ComponentResult } from "../../core/types.js";
import type { VerifierDefinition } from "../types.js";
import { LENGTH_READS, lengthUnitOptions, measureLength, correctnessOf } from "./measure.js";
import type { MeasuredLength } from "./measure.js";

const options = z.strictObject({
  /** Name of the component that says whether the answer is correct (it is correct when that component passes). */
  correctness: z.string().min(1),
  ...lengthUnitOptions,
});
export type GroupLengthOptions = z.infer<typeof options>;

/**
 * Kimi k1.5's length reward (Kimi Team 2025, "Kimi k1.5: Scaling Reinforcement Learning with LLMs", arXiv 2501.12599,
 * §2.3.3; open-r1 `src/open_r1/rewards.py` `len_reward` @ 1416fa0c): over the k rollouts of a prompt,
 *
 *   λ_i = 0.5 − (len_i − min_len) / (max_len − min_len),   reward_i = λ_i if correct, min(0, λ_i) if wrong,
 *
 * and 0 for every rollout when all lengths are equal. The shortest correct answer gets +0.5, the longest −0.5; a
 * wrong answer is never rewarded for being short, only penalized for being long.
 * Example: lengths [100, 200, 300], correct [yes, yes, no] → λ = [0.5, 0, −0.5] → [0.5, 0, −0.5];
 * correct [no, yes, yes] → [0, 0, −0.5].
 * @param lengths group lengths, shape [k]; @param correct aligned, shape [k].
 */
export function groupLengthRewards(lengths: readonly number[], correct: readonly boolean[]): number[] {
  const lo = Math.min(...lengths);
  const hi = Math.max(...lengths);
  if (!(hi > lo)) return lengths.map(() => 0);
  return lengths.map((l, i) => {
    const lambda = 0.5 - (l - lo) / (hi - lo);
    const r = correct[i] ? lambda : Math.min(0, lambda);
    return r === 0 ? 0 : r;
  });
}

interface Member extends MeasuredLength {
  correct: boolean | null;
}

/**
 * `group-length`: Kimi k1.5's group-relative length reward, scored at composition's group stage over the rollouts of
 * each group (prompt). An answer the correctness component cannot read or decide counts as wrong
 * ({@link correctnessOf}); a rollout whose reference cannot be read is unscorable here and takes no part in its group's
 * min/max (open-r1 counts an unparseable gold as correct instead).
 */
export const groupLengthVerifier: VerifierDefinition<GroupLengthOptions> = {
  type: "group-length",
  summary:
    "group-relative length reward (Kimi k1.5): 0.5 - (L - min)/(max - min) over the group; wrong answers only lose",
  options,
  isolation: "inline",
  defaultPassThreshold: 0,
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
        const known = members.filter((m) => m.correct !== null);
        const rewards = groupLengthRewards(
          known.map((m) => m.length),
          known.map((m) => m.correct === true),
        );
        const lengths = known.map((m) => m.length);
        const range =
          known.length > 0 ? { groupMinLength: Math.min(...lengths), groupMaxLength: Math.max(...lengths) } : {};
        let k = 0;
        return members.map((m) => {
          const details = {
            length: m.length,
            lengthSource: m.source,
            correct: m.correct,
            groupSize: known.length,
            ...range,
          };
          if (m.correct === null) return unscorable("dependency_unscorable", { ...details, component: o.correctness });
          return ok(rewards[k++]!, undefined, details);
        });
      },
    };
  },
};
