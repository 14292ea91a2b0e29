/**
 * Group advantages: the library API. `advantages(batch, {estimator, preset, options})` is the one-call entry
 * point; the estimator functions below are pure functions over Float64Array rewards and a {@link GroupIndex}.
 * See docs/advantages.md.
 */
export { advantages, computeAdvantages, nullable } from "./compute.js";
export type { AdvantagesBatch, AdvantagesOptions } from "./compute.js";
export { buildGroupIndex, GroupIds, refineGroups, segmentStats } from "./groups.js";
export type { GroupIndex, SegmentStats } from "./groups.js";
export { flatGroups, groupStats } from "./group-stats.js";
export type { GroupStats } from "./group-stats.js";
export { centerScale } from "./kernel.js";
export type { CenterScaleOptions } from "./kernel.js";
export type { AdvantageInput, EstimatorDefinition, EstimatorNeed } from "./types.js";
export { estimatorNames, getEstimator, MULTI_COMPONENT, SINGLE_REWARD } from "./registry.js";
export { presetNames, presetOptions } from "./presets.js";
export { dropZeroVariance, zeroVarianceGroups } from "./filter.js";
export { whitenInPlace } from "./whiten.js";
export type { WhitenOptions } from "./whiten.js";
export { grpo, grpoEstimator, grpoOptions } from "./grpo.js";
export { drGrpoEstimator } from "./dr-grpo.js";
export { rloo, rlooOptions } from "./rloo.js";
export { reinforcePpBaseline, reinforcePpBaselineOptions } from "./reinforce-pp.js";
export { opo, opoOptions } from "./opo.js";
export { grpoPassk, grpoPasskOptions } from "./passk.js";
export { gpg, gpgOptions } from "./gpg.js";
export { rank, rankOptions } from "./rank.js";
export { stratified, stratifiedOptions } from "./stratified.js";
export { gdpo, gdpoOptions } from "./gdpo.js";
export { moGrpo, moGrpoOptions } from "./mo-grpo.js";
export { corrGrpo, corrGrpoOptions } from "./corr-grpo.js";
export { rdpo, rdpoOptions } from "./rdpo.js";
