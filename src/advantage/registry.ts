import type { EstimatorDefinition } from "./types.js";
import { drGrpoEstimator, grpoEstimator } from "./grpo.js";
import { rlooEstimator } from "./rloo.js";

/** Estimator registry: verl's names → definition. Adding an estimator is one file and one line here. */
const registry = new Map<string, EstimatorDefinition<unknown>>(
  ([grpoEstimator, drGrpoEstimator, rlooEstimator] as unknown as EstimatorDefinition<unknown>[]).map((e) => [e.name, e]),
);

/** Looks up an estimator by name; `undefined` when unknown. */
export function getEstimator(name: string): EstimatorDefinition<unknown> | undefined {
  return registry.get(name);
}

/** All estimator names, sorted. */
export function estimatorNames(): string[] {
  return [...registry.keys()].sort();
}
