import { defineRegistry } from "../../core/registry.js";
import type { Registry } from "../../core/registry.js";
import { difficultyBins } from "./difficulty-bins.js";
import { knapsack } from "./knapsack.js";
import { successGuided } from "./success-guided.js";
import type { StrategyDefinition } from "./types.js";

/** Curriculum strategies by name (`rewardkit curriculum --strategy`, `/v1/curriculum?strategy=`). */
export const strategies: Registry<StrategyDefinition> = defineRegistry<StrategyDefinition>(
  "curriculum strategy",
  (d) => d.name,
  [successGuided, difficultyBins, knapsack],
);
