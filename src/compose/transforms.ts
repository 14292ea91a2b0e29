import { z } from "zod";
import type { AggregatorDefinition } from "./types.js";
import { termValue } from "./types.js";
import { weightedSum } from "./weighted-sum.js";

/**
 * `min`: the weakest link, R = min_k s_k over components with weight ≠ 0 (weights only select; a closed gate or
 * an unscorable component enters as 0). No counting component → 0.
 * Example: accuracy 1, format 0.5, overlong −0.25 → −0.25.
 */
export const minAggregator: AggregatorDefinition<Record<string, never>> = {
  type: "min",
  summary: "the smallest score among components with weight ≠ 0",
  options: z.strictObject({}),
  weighted: true,
  compile: (_o, ctx) => ({
    aggregate(terms) {
      let r = Infinity;
      for (const t of terms) if (t.weight !== 0) r = Math.min(r, termValue(t));
      return r === Infinity ? 0 : r;
    },
    describe: `min(${ctx.names.join(", ")})`,
  }),
};

/** log σ(x), computed without overflow: −log(1 + e^−x) for x ≥ 0, x − log(1 + e^x) below. */
export function logSigmoid(x: number): number {
  return x >= 0 ? -Math.log1p(Math.exp(-x)) : x - Math.log1p(Math.exp(x));
}

/** σ(x) = 1 / (1 + e^−x). */
export function sigmoid(x: number): number {
  return x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
}

const logSigmoidOptions = z.strictObject({
  /** Reference value ref_k per component name (default 0): the score at which σ = 1/2. */
  references: z.record(z.string(), z.number().finite()).default({}),
});

/**
 * `log-sigmoid-sum` (Wang et al. 2024, "Transforming and Combining Reward Models", catalog T78):
 *   R = Σ_k w_k · log σ(s_k − ref_k)   over components with weight ≠ 0.
 * Each term is the log-probability that the output is "good" in property k (under a Bradley–Terry reading), so
 * the sum is the log-probability of being good in all of them (logical AND); the transform emphasizes
 * improving poor outputs and saturates for already-good ones. A closed gate or unscorable component enters as 0.
 * Example: s = 1, ref = 0 → log σ(1) ≈ −0.3132617; s = 0, ref = 0 → log(1/2) ≈ −0.6931472.
 */
export const logSigmoidSumAggregator: AggregatorDefinition<z.infer<typeof logSigmoidOptions>> = {
  type: "log-sigmoid-sum",
  summary: "Σ weight · log σ(score − reference): a conjunction of per-property probabilities",
  options: logSigmoidOptions,
  weighted: true,
  compile(o, ctx) {
    const unknown = Object.keys(o.references).filter((n) => !ctx.names.includes(n));
    if (unknown.length > 0)
      return {
        issues: unknown.map((n) => ({
          path: ["references", n],
          message: `unknown component "${n}"; known: ${ctx.names.join(", ")}`,
        })),
      };
    const refs = ctx.names.map((n) => o.references[n] ?? 0);
    return {
      aggregate(terms) {
        let r = 0;
        for (let i = 0; i < terms.length; i++) {
          const t = terms[i]!;
          if (t.weight !== 0) r += t.weight * logSigmoid(termValue(t) - refs[i]!);
        }
        return r;
      },
      describe: ctx.names.map((n, i) => `w·log σ(${n} − ${refs[i]})`).join(" + "),
    };
  },
};

const parOptions = z.strictObject({
  /** The reference reward r_ref (e.g. the reward of a reference response), default 0. */
  reference: z.number().finite().default(0),
});

/**
 * `par` — Preference As Reward (Fu et al. 2025, "Reward Shaping to Mitigate Reward Hacking in RLHF", catalog
 * T77): R = σ(r − r_ref) with r the weighted sum of the components (gates applied). Bounded in (0, 1), steep near
 * the reference and flat far above it, a function of the centred reward — the paper's three design principles —
 * with a single reference reward.
 * Example: r = 1, r_ref = 0 → σ(1) ≈ 0.7310586; r = r_ref → 0.5.
 */
export const parAggregator: AggregatorDefinition<z.infer<typeof parOptions>> = {
  type: "par",
  summary: "σ(weighted sum − reference): a bounded reward centred on a reference reward",
  options: parOptions,
  weighted: true,
  compile: (o, ctx) => ({
    aggregate: (terms) => sigmoid(weightedSum(terms) - o.reference),
    describe: `σ(${ctx.names.map((n) => `w·${n}`).join(" + ")} − ${o.reference})`,
  }),
};
