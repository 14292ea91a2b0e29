/**
 * Group advantages: the library API. `advantages(batch, {estimator, preset, options})` is the one-call entry
 * point; the estimator functions below are pure functions over Float64Array rewards and a {@link GroupIndex}.
 * See docs/advantages.md.
 */
export { advantages, computeAdvantages, nullable } from "./compute.js";
export type { AdvantagesBatch, AdvantagesOptions } from "./compute.js";
export { buildGroupIndex, GroupIds, segmentStats } from "./groups.js";
export type { GroupIndex, SegmentStats } from "./groups.js";
export type { AdvantageInput, EstimatorDefinition, EstimatorNeed } from "./types.js";
export { estimatorNames, getEstimator, MULTI_COMPONENT, SINGLE_REWARD } from "./registry.js";
export { presetNames, presetOptions } from "./presets.js";
export { dropZeroVariance, whitenInPlace, zeroVarianceGroups } from "./common.js";
export { drGrpoEstimator, grpo, grpoEstimator, grpoOptions } from "./grpo.js";
export { rloo, rlooOptions } from "./rloo.js";
export { reinforcePpBaseline, reinforcePpBaselineOptions } from "./reinforce-pp.js";
export { opo, opoOptions } from "./opo.js";
export { grpoPassk, grpoPasskOptions } from "./passk.js";
export { gpg, gpgOptions } from "./gpg.js";
export { rank, rankOptions } from "./rank.js";
export { stratified, stratifiedOptions } from "./stratified.js";
export { gdpo, gdpoOptions } from "./gdpo.js";
export { corrGrpo, corrGrpoOptions, moGrpo, moGrpoOptions, rdpo, rdpoOptions } from "./multi.js";
