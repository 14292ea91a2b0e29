import { z } from "zod";
import type { AdvantageInput } from "./types.js";
import { requireInputs } from "./common.js";
import { whitenInPlace } from "./whiten.js";

/**
 * Batch statistics per `rollout` (each counted once), per `token` (each rollout weighted by its response length:
 * verl's `masked_whiten` and OpenRLHF's whitening over the action mask, exactly; needs lengths), or `auto`: per
 * token when the input carries response lengths, per rollout otherwise (the peers' presets use `auto`).
 */
export const whitenOption = z.enum(["rollout", "token", "auto"]);

/** The final normalization over the batch: `sqrt-var`, `std-plus`, `clamp-var` (see {@link batchOptions}) or `none`. */
export const batchNormOption = z.enum(["sqrt-var", "std-plus", "clamp-var", "none"]);

/** Batch-normalization options of the multi-component estimators that end with one (`gdpo` …). */
export const batchOptions = {
  /**
   * Final normalization over the batch: `sqrt-var` (x − μ)/sqrt(var + ε) (verl `masked_whiten`), `std-plus`
   * (x − μ)/(σ + ε) (TRL; NeMo-RL with ε = 0), `clamp-var` (x − μ)/sqrt(max(var, ε)) (OpenRLHF), `none`.
   */
  batchNorm: batchNormOption.default("sqrt-var"),
  /** Batch variance: `unbiased` (verl, TRL, NeMo-RL) or `population`. */
  batchVariance: z.enum(["unbiased", "population"]).default("unbiased"),
  /** ε of the batch normalization (verl 1e-8, TRL 1e-4, NeMo-RL 0). */
  batchEpsilon: z.number().nonnegative().default(1e-8),
  whiten: whitenOption.default("rollout"),
};

/** The options {@link batchNormalize} reads. */
export interface BatchNormOptions {
  batchNorm: z.infer<typeof batchNormOption>;
  batchVariance: "unbiased" | "population";
  batchEpsilon: number;
  whiten: z.infer<typeof whitenOption>;
}

/** `batchStatistics` of the estimators that end with an optional batch normalization (`gdpo` …). */
export function batchNormStatistics(o: { batchNorm: z.infer<typeof batchNormOption> }): string | undefined {
  return o.batchNorm === "none" ? undefined : `batchNorm: ${o.batchNorm} normalizes over the whole batch`;
}

/** The weights batch statistics use under `whiten` (`token` requires lengths; `auto` uses them when present). */
export function whitenWeights(
  name: string,
  input: AdvantageInput,
  whiten: z.infer<typeof whitenOption>,
): Float64Array | undefined {
  if (whiten === "token") requireInputs(name, input, ["lengths"]);
  return whiten === "rollout" ? undefined : input.lengths;
}

/**
 * Applies the batch step in place. Rollouts flagged in `skip` (a scored rollout with no scorable component: TRL
 * leaves it out of the batch mean and std) take no part in the statistics and end at exactly 0.
 */
export function batchNormalize(
  x: Float64Array,
  input: AdvantageInput,
  o: BatchNormOptions,
  name: string,
  skip?: Uint8Array,
): void {
  if (skip) for (let i = 0; i < x.length; i++) if (skip[i]) x[i] = NaN;
  if (o.batchNorm !== "none")
    whitenInPlace(
      x,
      { variance: o.batchVariance, epsilonMode: o.batchNorm, epsilon: o.batchEpsilon },
      whitenWeights(name, input, o.whiten),
    );
  if (skip) for (let i = 0; i < x.length; i++) if (skip[i]) x[i] = 0;
}
