import { geometricDesirabilityAggregator } from "./desirability.js";
import { formulaAggregator } from "./formula.js";
import { lexicographicAggregator } from "./lexicographic.js";
import { logSigmoidSumAggregator, minAggregator, parAggregator } from "./transforms.js";
import type { AggregatorDefinition } from "./types.js";
import { gatedAggregator, weightedSumAggregator } from "./weighted-sum.js";

/** The aggregator registry: `aggregate:` type → definition. Adding an aggregator is one file and one line here. */
const registry = new Map<string, AggregatorDefinition<unknown>>(
  (
    [
      weightedSumAggregator,
      gatedAggregator,
      lexicographicAggregator,
      geometricDesirabilityAggregator,
      formulaAggregator,
      minAggregator,
      logSigmoidSumAggregator,
      parAggregator,
    ] as unknown as AggregatorDefinition<unknown>[]
  ).map((d) => [d.type, d]),
);

/** Looks up an aggregator type; `undefined` when unknown. */
export function getAggregator(type: string): AggregatorDefinition<unknown> | undefined {
  return registry.get(type);
}

/** All aggregator type names, in registry order. */
export function aggregatorTypes(): string[] {
  return [...registry.keys()];
}
