import { corrGrpoEstimator } from "./corr-grpo.js";
import { drGrpoEstimator } from "./dr-grpo.js";
import { dropZeroVariance } from "./filter.js";
import { gdpoEstimator } from "./gdpo.js";
import { gpgEstimator } from "./gpg.js";
import { grpoEstimator } from "./grpo.js";
import { moGrpoEstimator } from "./mo-grpo.js";
import { opoEstimator } from "./opo.js";
import { grpoPasskEstimator } from "./passk.js";
import { rankEstimator } from "./rank.js";
import { rdpoEstimator } from "./rdpo.js";
import { reinforcePpBaselineEstimator } from "./reinforce-pp.js";
import { rlooEstimator } from "./rloo.js";
import { stratifiedEstimator } from "./stratified.js";
import type { EstimatorDefinition } from "./types.js";

/** Applies the shared `filter` option (DAPO dynamic sampling) before the estimator runs. */
function withFilter(def: EstimatorDefinition<unknown>): EstimatorDefinition<unknown> {
  return {
    ...def,
    compute(input, options, out) {
      const filter = (options as { filter?: string } | undefined)?.filter;
      return def.compute(filter === "zero_variance" ? dropZeroVariance(input).input : input, options, out);
    },
  };
}

/** Single-reward estimators (read `rewards` and the groups). */
export const SINGLE_REWARD = ["grpo", "dr_grpo", "rloo", "reinforce_pp_baseline", "opo", "grpo_passk", "gpg", "rank", "stratified"] as const;
/** Multi-component estimators (read `components`). */
export const MULTI_COMPONENT = ["gdpo", "mo_grpo", "corr_grpo", "rdpo"] as const;

/** Estimator registry: verl's names (where verl has one) → definition. Adding an estimator is one file and one line here. */
const registry = new Map<string, EstimatorDefinition<unknown>>(
  (
    [
      grpoEstimator,
      drGrpoEstimator,
      rlooEstimator,
      reinforcePpBaselineEstimator,
      opoEstimator,
      grpoPasskEstimator,
      gpgEstimator,
      rankEstimator,
      stratifiedEstimator,
      gdpoEstimator,
      moGrpoEstimator,
      corrGrpoEstimator,
      rdpoEstimator,
    ] as unknown as EstimatorDefinition<unknown>[]
  ).map((e) => [e.name, withFilter(e)]),
);

/** Looks up an estimator by name; `undefined` when unknown. The returned `compute` honours the `filter` option. */
export function getEstimator(name: string): EstimatorDefinition<unknown> | undefined {
  return registry.get(name);
}

/** All estimator names, sorted. */
export function estimatorNames(): string[] {
  return [...registry.keys()].sort();
}
