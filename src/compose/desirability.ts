import { z } from "zod";
import type { AggregatorDefinition } from "./types.js";

const bound = z.number().finite();
const curve = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("larger-is-better"),
    low: bound,
    high: bound,
    shape: z.number().positive().default(1),
  }),
  z.strictObject({
    kind: z.literal("smaller-is-better"),
    low: bound,
    high: bound,
    shape: z.number().positive().default(1),
  }),
  z.strictObject({
    kind: z.literal("target-is-best"),
    low: bound,
    target: bound,
    high: bound,
    shapeLow: z.number().positive().default(1),
    shapeHigh: z.number().positive().default(1),
  }),
]);
export type DesirabilityCurve = z.infer<typeof curve>;

/**
 * Derringer–Suich desirability d(y) ∈ [0, 1] (Derringer & Suich 1980, J. Quality Technology 12(4)):
 * - larger-is-better: 0 for y ≤ low, ((y − low)/(high − low))^shape between, 1 for y ≥ high;
 * - smaller-is-better: 1 for y ≤ low, ((high − y)/(high − low))^shape between, 0 for y ≥ high;
 * - target-is-best: ((y − low)/(target − low))^shapeLow on [low, target], ((high − y)/(high − target))^shapeHigh on
 *   [target, high], 0 outside [low, high].
 * Example: larger-is-better low 0 high 10 shape 2: d(5) = 0.25; target-is-best 0/5/10: d(7.5) = 0.5.
 */
export function desirability(c: DesirabilityCurve, y: number): number {
  switch (c.kind) {
    case "larger-is-better":
      return y <= c.low ? 0 : y >= c.high ? 1 : ((y - c.low) / (c.high - c.low)) ** c.shape;
    case "smaller-is-better":
      return y <= c.low ? 1 : y >= c.high ? 0 : ((c.high - y) / (c.high - c.low)) ** c.shape;
    case "target-is-best":
      if (y < c.low || y > c.high) return 0;
      if (y === c.target) return 1;
      return y < c.target
        ? ((y - c.low) / (c.target - c.low)) ** c.shapeLow
        : ((c.high - y) / (c.high - c.target)) ** c.shapeHigh;
  }
}

const options = z.strictObject({
  /** Curve per component name; a component without one uses larger-is-better on [0, 1] (its score, clipped). */
  curves: z.record(z.string(), curve).default({}),
});
export type DesirabilityOptions = z.infer<typeof options>;

const IDENTITY: DesirabilityCurve = { kind: "larger-is-better", low: 0, high: 1, shape: 1 };

/**
 * `geometric-desirability` (MORAD, catalog T20): each raw measurement y_k is mapped to a desirability
 * d_k ∈ [0, 1] by its declared curve ({@link desirability}), then combined by the weighted geometric mean
 *   D = Π_k d_k^(w_k / Σ_j w_j)   over components with weight > 0.
 * One unacceptable measurement (d = 0) makes D = 0. A closed gate or an unscorable component has d = 0.
 * Example: d = 0.25 (w 1) and d = 1 (w 1) → D = 0.5; d = 0.25 (w 2) and d = 1 (w 1) → 0.25^(2/3) ≈ 0.39685.
 */
export const geometricDesirabilityAggregator: AggregatorDefinition<DesirabilityOptions> = {
  type: "geometric-desirability",
  summary: "weighted geometric mean of per-component desirabilities in [0, 1]",
  options: options.superRefine((o, ctx) => {
    for (const [name, c] of Object.entries(o.curves)) {
      const ordered = c.kind === "target-is-best" ? c.low < c.target && c.target < c.high : c.low < c.high;
      if (!ordered)
        ctx.addIssue({
          code: "custom",
          path: ["curves", name],
          message: c.kind === "target-is-best" ? "need low < target < high" : "need low < high",
        });
    }
  }),
  weighted: true,
  compile(o, ctx) {
    const unknown = Object.keys(o.curves).filter((n) => !ctx.names.includes(n));
    if (unknown.length > 0)
      return {
        issues: unknown.map((n) => ({
          path: ["curves", n],
          message: `unknown component "${n}"; known: ${ctx.names.join(", ")}`,
        })),
      };
    const curves = ctx.names.map((n) => o.curves[n] ?? IDENTITY);
    return {
      aggregate(terms) {
        let wsum = 0;
        for (const t of terms) if (t.weight > 0) wsum += t.weight;
        if (wsum === 0) return 0;
        let d = 1;
        for (let i = 0; i < terms.length; i++) {
          const t = terms[i]!;
          if (t.weight <= 0) continue;
          const di = t.open && t.score !== null ? desirability(curves[i]!, t.score) : 0;
          d *= di ** (t.weight / wsum);
        }
        return d;
      },
      describe: `Π d_k(score)^(w_k/Σw) over ${ctx.names.map((n) => `${n}[${(o.curves[n] ?? IDENTITY).kind}]`).join(", ")}`,
    };
  },
};
