import { z } from "zod";
import { ok, unscorable } from "../../core/types.js";
import { getPath } from "../../io/fields.js";
import type { VerifierDefinition } from "../types.js";
import { lengthUnitOptions, measureLength } from "./measure.js";

const options = z.strictObject({
  /** A fixed budget for every rollout; without it the budget is read from the rollout at `targetField`. */
  target: z.number().nonnegative().optional(),
  /** Dotted path of the per-rollout budget (default `target_length`, e.g. L1's "Think for N tokens" prompt's N). */
  targetField: z.string().min(1).default("target_length"),
  /**
   * `exact` (default): −α·|L − target| (L1's LCPO-Exact length term; add an accuracy component to get
   * 1(correct) − α|L − target|). `max`: clip(α·(target − L) + δ, 0, 1) (LCPO-Max's factor; multiply by accuracy with
   * `aggregate: {type: formula, formula: "accuracy * budget"}`). `exceeded`: −penalty when L > target, else 0.
   */
  form: z.enum(["exact", "max", "exceeded"]).default("exact"),
  /** α per unit of length (L1: 0.0003 per token). */
  alpha: z.number().nonnegative().default(0.0003),
  /** δ of the `max` form (L1: 0.5): the factor at L = target. */
  delta: z.number().default(0.5),
  /** Penalty of the `exceeded` form (default 1). */
  penalty: z.number().nonnegative().default(1),
  ...lengthUnitOptions,
});
export type LengthBudgetOptions = z.infer<typeof options>;

/**
 * Length-budget terms (Aggarwal & Welleck 2025, "L1: Controlling How Long A Reasoning Model Thinks With Reinforcement
 * Learning", arXiv 2503.04697, §3: LCPO-Exact r = 1(y = y*) − α·|n_gold − n_y|, LCPO-Max
 * r = 1(y = y*) · clip(α·(n_gold − n_y) + δ, 0, 1), α = 0.0003, δ = 0.5), plus a plain budget-exceeded penalty.
 * Example (α 0.0003, δ 0.5): target 1000, L 1500 → exact −0.15, max 0.35, exceeded −1; L 600 → exact −0.12, max 0.62, exceeded 0.
 */
export function budgetTerm(
  length: number,
  target: number,
  o: Pick<LengthBudgetOptions, "form" | "alpha" | "delta" | "penalty">,
): number {
  let r: number;
  if (o.form === "exact") r = -o.alpha * Math.abs(length - target);
  else if (o.form === "max") r = Math.min(Math.max(o.alpha * (target - length) + o.delta, 0), 1);
  else r = length > target ? -o.penalty : 0;
  return r === 0 ? 0 : r; // no −0
}

/** `length-budget`: a per-rollout length budget (L1-style |L − target|, L1-Max's clipped factor, or budget exceeded). */
export const lengthBudgetVerifier: VerifierDefinition<LengthBudgetOptions> = {
  type: "length-budget",
  summary:
    "length budget per rollout (L1, Aggarwal & Welleck 2025): -alpha*|L - target|, clip(alpha*(target - L) + delta, 0, 1), or -penalty past the budget",
  options,
  isolation: "inline",
  defaultPassThreshold: 0,
  defaultTimeoutMs: 1000,
  cacheable: false, // the budget sits in a rollout field chosen by the options; recomputing costs less than a key
  create(o) {
    return ({ completion, rollout }) => {
      const raw = o.target ?? getPath(rollout, o.targetField);
      if (typeof raw !== "number" || !Number.isFinite(raw) || raw < 0) {
        return unscorable("missing_field", {
          field: o.targetField,
          error:
            raw === undefined
              ? "no budget: set `target` or give the rollout this field"
              : "the budget must be a non-negative number",
        });
      }
      const { length, source } = measureLength(completion, rollout, o);
      return ok(budgetTerm(length, raw, o), undefined, { length, lengthSource: source, target: raw });
    };
  },
};
