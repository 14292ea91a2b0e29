/**
 * rewardkit library API. Everything here is also what the CLI uses.
 * @packageDocumentation
 */
export type { ChatMessage, ComponentResult, ComponentStatus, Rollout, ScoredFields } from "./core/types.js";
export { ok, unscorable } from "./core/types.js";
export { REASONS, UNSCORABLE_REASONS } from "./core/reasons.js";
export type { ReasonCode } from "./core/reasons.js";
export { completionText } from "./core/completion.js";

export { loadSpec, parseSpec } from "./spec/load.js";
export { SpecError, formatProblem } from "./spec/errors.js";
export type { Problem } from "./spec/errors.js";
export type { CompiledSpec, CompiledComponent, PlainSpec } from "./spec/types.js";

export { getVerifier, verifierTypes } from "./verifiers/registry.js";
export type { CallUsage } from "./client/types.js";
export type { VerifierDefinition, VerifierInput, VerifyFn } from "./verifiers/types.js";

export { defineVerifier, defineAggregator, defineEstimator, defineSchedule } from "./plugins/define.js";
export type { VerifierPlugin, PluginDefinition, PluginKind } from "./plugins/define.js";
export type { LoadedPlugin } from "./plugins/catalog.js";
export type {
  AggregatorDefinition,
  AggregateTerm,
  AggregateContext,
  CompiledAggregator,
  Aggregator,
} from "./compose/types.js";
export type { ScheduleDefinition, StepFn } from "./schedule/types.js";
export type { GroupStage, GroupStageContext } from "./verifiers/types.js";
export { defineRegistry, DuplicateNameError } from "./core/registry.js";
export type { Registry } from "./core/registry.js";

export { computeReward, passes, gateOpen } from "./compose/reward.js";

export { getEstimator, estimatorNames } from "./advantage/registry.js";
export { computeAdvantages } from "./advantage/compute.js";
export { buildGroupIndex, GroupIds } from "./advantage/groups.js";
export type { GroupIndex } from "./advantage/groups.js";
export type { AdvantageInput, EstimatorDefinition, EstimatorNeed } from "./advantage/types.js";

export { createScorer } from "./engine/scorer.js";
export type { Scorer, ScorerOptions, RolloutScore } from "./engine/scorer.js";
export { scoreFile, InputError } from "./engine/score-file.js";
export type { ScoreFileOptions } from "./engine/score-file.js";
export type { Summary } from "./diagnostics/summary.js";
export { formatSummary } from "./diagnostics/format.js";
export { scoreBatch } from "./engine/batch.js";
export type { BatchScore } from "./engine/batch.js";
export type { ScorerStats } from "./engine/scorer.js";
export { UserError } from "./core/errors.js";
export * as advantage from "./advantage/index.js";
export { advantages } from "./advantage/index.js";
export { AdvantageBatch, rolloutLength } from "./engine/advantage-batch.js";
export { advantageDiagnostics } from "./diagnostics/advantages.js";
export type { AdvantageDiagnostics } from "./diagnostics/advantages.js";
export * as processRewards from "./process/index.js";
// reward-hacking probes, diagnostics, reward-model evaluation and HTML reports (docs/probe.md)
export { runProbes } from "./probe/run.js";
export type { ProbeReport, ProbeResult, ProbeOptions } from "./probe/run.js";
export { PROBES } from "./probe/registry.js";
export type { ProbeDefinition } from "./probe/types.js";
export type { HackingDiagnostics } from "./diagnostics/hacking.js";
export { evaluateRm } from "./rm-eval/evaluate.js";
export type { RmEvaluation } from "./rm-eval/evaluate.js";
export { readScored, runReportHtml } from "./report/run.js";
export { probeReportHtml } from "./report/probe.js";
export { rmReportHtml } from "./report/rm.js";

// routed specs: one spec, a sub-spec per value of a rollout field (docs/routing.md)
export { loadAnySpec, parseAnySpec, isRoutedSpec, chooseRoute, DEFAULT_ROUTE } from "./spec/routes.js";
export type { RoutedSpec, PlainRoutedSpec, RouteChoice } from "./spec/routes.js";
export { createRoutedScorer, scoreRoutedBatch, isRoutedScorer } from "./engine/routes.js";
export type { RoutedScorer, RoutedBatchScore, RouteProblem } from "./engine/routes.js";
export { scoreRoutedFile } from "./engine/routes-file.js";
export type { RoutedSummary } from "./engine/routes-file.js";
export { shardOf, shardRefusal } from "./engine/shard.js";
export type { Shard } from "./engine/shard.js";
export { checkPartials, mergePartials } from "./engine/merge.js";
export { PARTIAL_FORMAT, partialSummaryText, readPartial, shardInfo } from "./engine/partial.js";
export type { PartialFile, ShardInfo, ShardOptions } from "./engine/partial.js";
export type { InputFingerprint, RoutedRollout, RoutedTrace, RunTrace, TracedRollout } from "./engine/trace.js";
export { formatRoutedSummary } from "./diagnostics/routes.js";
