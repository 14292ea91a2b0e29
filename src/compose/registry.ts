import { geometricDesirabilityAggregator } from "./desirability.js";
import { formulaAggregator } from "./formula.js";
import { lexicographicAggregator } from "./lexicographic.js";
import { logSigmoidSumAggregator, minAggregator, parAggregator } from "./transforms.js";
import type { AggregatorDefinition } from "./types.js";
import { defineRegistry } from "../core/registry.js";
import type { Registry } from "../core/registry.js";
import { gatedAggregator, weightedSumAggregator } from "./weighted-sum.js";

/** The aggregator registry: `aggregate:` type → definition. Adding an aggregator is one file and one line here. */
export const aggregators: Registry<AggregatorDefinition> = defineRegistry<AggregatorDefinition>(
  "aggregator",
  (d) => d.type,
  [
    weightedSumAggregator,
    gatedAggregator,
    lexicographicAggregator,
    geometricDesirabilityAggregator,
    formulaAggregator,
    minAggregator,
    logSigmoidSumAggregator,
    parAggregator,
  ],
);

/** Looks up an aggregator type; `undefined` when unknown. */
export function getAggregator(type: string): AggregatorDefinition<unknown> | undefined {
  return aggregators.get(type);
}

/** All aggregator type names, sorted. */
export function aggregatorTypes(): string[] {
  return aggregators.names();
}
