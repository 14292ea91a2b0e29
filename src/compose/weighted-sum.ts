import { z } from "zod";
import type { AggregateTerm, AggregatorDefinition } from "./types.js";

/**
 * Weighted sum R = Σ_k w_k · s_k over open components; an unscorable score counts as 0 here (the
 * `onUnscorable` policy has already been applied by {@link computeReward}).
 * Example: accuracy 1 (w 1), format 0 (w 0.5), gated brevity 1 (w 0.2, gate closed) → 1.
 */
export function weightedSum(terms: readonly AggregateTerm[]): number {
  let r = 0;
  for (const t of terms) if (t.open && t.weight !== 0) r += t.weight * (t.score ?? 0);
  return r;
}

function describeSum(ctx: { names: readonly string[]; gates: ReadonlyArray<number | undefined> }): string {
  return ctx.names
    .map((n, i) => `w·${n}${ctx.gates[i] !== undefined ? `[if ${ctx.names[ctx.gates[i]]} passes]` : ""}`)
    .join(" + ");
}

/** `weighted-sum` (default): R = Σ w_k · s_k over counting components (weight ≠ 0, gate open). */
export const weightedSumAggregator: AggregatorDefinition<Record<string, never>> = {
  type: "weighted-sum",
  summary: "Σ weight · score over components whose gate (if any) is open",
  options: z.strictObject({}),
  weighted: true,
  compile: (_o, ctx) => ({ aggregate: weightedSum, describe: describeSum(ctx) }),
};

/**
 * `gated`: the weighted sum in which gates are the point (hierarchical / conditional rewards: no style credit
 * without validity — RL-Struct, ChatShopBuddy, WebGen-R1's cascade, catalog T23/T31/T32). A component counts
 * only when its gate component passes (score ≥ passThreshold), and its gate's gate, and so on (chains). A closed
 * gate or an unscorable component (under `onUnscorable: zero`) contributes 0.
 * Example: accuracy (w 1) and brevity (w 1, gate accuracy): accuracy 1, brevity −0.25 → 0.75; accuracy 0 → 0.
 * Requires at least one component with a `gate` (use `weighted-sum` otherwise).
 */
export const gatedAggregator: AggregatorDefinition<Record<string, never>> = {
  type: "gated",
  summary: "Σ weight · score, each component counting only when its gate chain passes",
  options: z.strictObject({}),
  weighted: true,
  compile: (_o, ctx) =>
    ctx.gates.some((g) => g !== undefined)
      ? { aggregate: weightedSum, describe: describeSum(ctx) } // the same sum: gates are applied by both
      : {
          issues: [
            { path: ["type"], message: "gated needs at least one component with a `gate`; use weighted-sum otherwise" },
          ],
        },
};
