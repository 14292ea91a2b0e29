import { z } from "zod";
import type { AggregatorDefinition } from "./types.js";

const options = z.strictObject({
  /** Component names, most important first. */
  order: z.array(z.string().min(1)).min(1),
  /**
   * `pass` (default): each component is one binary digit, 1 when it passes (score ≥ passThreshold, gate open).
   * `score`: each score, clipped to [0, 1], is quantized to `levels` digits (floor(s·(levels − 1))).
   */
  by: z.enum(["pass", "score"]).default("pass"),
  /** Digits per component with `by: score` (default 11: 0, 0.1, …, 1). */
  levels: z.number().int().min(2).max(1000).default(11),
});
export type LexicographicOptions = z.infer<typeof options>;

/**
 * `lexicographic` (OPTIAGENT's optical lexicographic reward, HERON's importance ranking; catalog T22/T33):
 * components in priority order become the digits of one number, so any improvement of a more important
 * component outweighs every change of the less important ones. With K components and base B (2 for `by: pass`,
 * `levels` for `by: score`) and digits q_k ∈ {0, …, B − 1}:
 *   R = Σ_k q_k · B^(K−1−k) / (B^K − 1) ∈ [0, 1].
 * Example (`by: pass`, order [format, feasible, accurate]): pass/fail/pass → (4 + 1)/7 ≈ 0.714286;
 * fail/pass/pass → 3/7 ≈ 0.428571 (format first: the first outranks the other two together).
 * Weights are not used; a closed gate or an unscorable component is digit 0.
 */
export const lexicographicAggregator: AggregatorDefinition<LexicographicOptions> = {
  type: "lexicographic",
  summary: "priority order encoded as digits of one number in [0, 1]",
  options,
  weighted: false,
  compile(o, ctx) {
    const idx = o.order.map((n) => ctx.names.indexOf(n));
    const issues = o.order.flatMap((n, k) =>
      idx[k]! < 0
        ? [{ path: ["order", k], message: `unknown component "${n}"; known: ${ctx.names.join(", ")}` }]
        : o.order.indexOf(n) < k
          ? [{ path: ["order", k], message: `"${n}" is listed twice` }]
          : [],
    );
    const base = o.by === "pass" ? 2 : o.levels;
    if (base ** o.order.length > 2 ** 53)
      issues.push({
        path: ["order"],
        message: `${base}^${o.order.length} digits exceed exact double precision; use fewer components or levels`,
      });
    if (issues.length > 0) return { issues };
    const K = idx.length;
    const denom = base ** K - 1;
    const place = idx.map((_, k) => base ** (K - 1 - k));
    return {
      aggregate(terms) {
        let r = 0;
        for (let k = 0; k < K; k++) {
          const t = terms[idx[k]!]!;
          let q = 0;
          if (t.open && t.score !== null) {
            q =
              o.by === "pass" ? (t.passed ? 1 : 0) : Math.floor(Math.min(1, Math.max(0, t.score)) * (base - 1) + 1e-9);
          }
          r += q * place[k]!;
        }
        return r / denom;
      },
      uses: ctx.names.map((_, i) => idx.includes(i)),
      describe: `lexicographic(${o.order.join(" > ")}; ${o.by === "pass" ? "pass/fail digits" : `${base} levels`})`,
    };
  },
};
