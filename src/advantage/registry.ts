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
import { reinforcePpEstimator } from "./reinforce-pp-outcome.js";
import { rlooEstimator } from "./rloo.js";
import { stratifiedEstimator } from "./stratified.js";
import type { EstimatorDefinition } from "./types.js";
import { defineRegistry } from "../core/registry.js";
import type { Registry } from "../core/registry.js";

/** Applies the shared `filter` option (DAPO dynamic sampling) before the estimator runs. */
export function withFilter(def: EstimatorDefinition): EstimatorDefinition {
  return {
    ...def,
    compute(input, options, out) {
      const filter = (options as { filter?: string } | undefined)?.filter;
      return def.compute(filter === "zero_variance" ? dropZeroVariance(input).input : input, options, out);
    },
  };
}

/**
 * Estimator registry: verl's names (where verl has one) → definition. Adding an estimator is one file and one line
 * here; the lists below, the property tests and the benchmark derive from it.
 */
export const estimators: Registry<EstimatorDefinition> = defineRegistry<EstimatorDefinition>(
  "estimator",
  (e) => e.name,
  [
    grpoEstimator,
    drGrpoEstimator,
    rlooEstimator,
    reinforcePpBaselineEstimator,
    reinforcePpEstimator,
    opoEstimator,
    grpoPasskEstimator,
    gpgEstimator,
    rankEstimator,
    stratifiedEstimator,
    gdpoEstimator,
    moGrpoEstimator,
    corrGrpoEstimator,
    rdpoEstimator,
  ].map(withFilter),
);

/** Single-reward estimators (read `rewards` and the groups), derived from the registry: those that do not need `components`. */
export const SINGLE_REWARD: readonly string[] = estimators
  .values()
  .filter((e) => !e.needs?.includes("components"))
  .map((e) => e.name);
/** Multi-component estimators (read `components`), derived from the registry. */
export const MULTI_COMPONENT: readonly string[] = estimators
  .values()
  .filter((e) => e.needs?.includes("components"))
  .map((e) => e.name);

/** Looks up an estimator by name; `undefined` when unknown. The returned `compute` honours the `filter` option. */
export function getEstimator(name: string): EstimatorDefinition<unknown> | undefined {
  return estimators.get(name);
}

/** All estimator names, sorted. */
export function estimatorNames(): string[] {
  return estimators.names();
}
