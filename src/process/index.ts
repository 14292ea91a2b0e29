/** Process rewards: step aggregations, step splitting, step-level advantages and ProcessBench metrics. See docs/process.md. */
export {
  STEP_AGGREGATIONS,
  AGGREGATE_NAMES,
  firstError,
  clipReward,
  deltaRewards,
  combineOutcome,
} from "../verifiers/process/aggregate.js";
export type { Aggregated, AggregationContext, StepAggregation } from "../verifiers/process/aggregate.js";
export { splitSteps, rolloutSteps, DEFAULT_MARKER } from "../verifiers/process/steps.js";
export type { SplitMode, SplitOptions, StepSplit } from "../verifiers/process/steps.js";
export { checkEquations } from "../verifiers/process/arithmetic.js";
export { StepAdvantages, tokenSpans, processComponent, STEP_EPSILON } from "./step-advantages.js";
export type { StepAdvantageFields } from "./step-advantages.js";
export {
  loadProcessBench,
  loadPredictions,
  processBenchMetrics,
  thresholdSweep,
  alignPredictions,
  DEFAULT_THRESHOLDS,
} from "./processbench.js";
export type { ProcessBenchMetrics, ProcessBenchRecord, SideAccuracy, SweepRow } from "./processbench.js";
