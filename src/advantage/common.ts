import { z } from "zod";
import type { AdvantageInput, EstimatorNeed } from "./types.js";

/**
 * Singleton rule: what a group with one non-null reward gets.
 * - `zero`: 0 (no comparison possible; rewardkit's default);
 * - `raw`: the reward itself (baseline 0: verl's RLOO, OPO, REINFORCE++-baseline, GPG);
 * - `unit`: baseline 0 and std 1, i.e. r / (1 + ε) when the estimator divides by a std, else r (verl's GRPO).
 */
export const singletonOption = z.enum(["zero", "raw", "unit"]).default("zero");
export type SingletonRule = z.infer<typeof singletonOption>;

/** The factor a singleton's reward is multiplied by under `rule` (for an estimator that divides by std + ε when `byStd`). */
export function singletonFactor(rule: SingletonRule, byStd: boolean, epsilon: number): number {
  if (rule === "zero") return 0;
  return rule === "unit" && byStd ? 1 / (1 + epsilon) : 1;
}

/** Throws a clear error when `input` lacks what an estimator needs. */
export function requireInputs(name: string, input: AdvantageInput, needs: readonly EstimatorNeed[]): void {
  for (const need of needs) {
    const have =
      need === "components" ? input.components && input.components.names.length > 0 : input[need] !== undefined;
    if (!have) {
      // in the input's terms (fields and options), not an adapter's flags: the CLI and the server both get this
      const how =
        need === "components"
          ? "per-component scores (`components` per rollout)"
          : need === "lengths"
            ? "response lengths (`completion_tokens` per rollout, or the field the length option names)"
            : "a stratum per rollout (the field the estimator's `key` option names)";
      throw new Error(`estimator ${name} needs ${how}`);
    }
  }
}
