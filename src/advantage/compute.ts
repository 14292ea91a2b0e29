import { buildGroupIndex, GroupIds } from "./groups.js";
import { presetOptions } from "./presets.js";
import { estimatorNames, getEstimator } from "./registry.js";
import type { AdvantageInput, EstimatorDefinition } from "./types.js";

/**
 * Runs an estimator over a batch given per-rollout rewards and dense group ids.
 * @param rewards shape [n], NaN for null rewards.
 * @param groupIds shape [n], dense ids in [0, G).
 * @returns advantages, shape [n], NaN where undefined (null reward).
 */
export function computeAdvantages(
  estimator: EstimatorDefinition<unknown>,
  options: unknown,
  rewards: Float64Array,
  groupIds: ArrayLike<number>,
  extra: Omit<AdvantageInput, "rewards" | "groups"> = {},
): Float64Array {
  return estimator.compute({ rewards, groups: buildGroupIndex(groupIds), ...extra }, options);
}

/** NaN → null for JSON output. */
export function nullable(x: number): number | null {
  return Number.isNaN(x) ? null : x;
}

/** Options of {@link advantages}. */
export interface AdvantagesOptions {
  /** Estimator name (default `grpo`). */
  estimator?: string;
  /** A peer preset for the estimator (`verl`, `trl`, `openrlhf`, `nemo`, `open-instruct` …). */
  preset?: string;
  /** Estimator options; they override the preset's. */
  options?: Record<string, unknown>;
}

/** A batch for {@link advantages}: plain arrays accepted, `null` = null reward. */
export interface AdvantagesBatch {
  /** Reward per rollout, shape [n]. */
  rewards: ArrayLike<number | null>;
  /** Group key per rollout (prompt id), shape [n]. */
  groups: ArrayLike<string | number>;
  /** Component scores by name, each shape [n] (null = unscorable). */
  components?: Record<string, ArrayLike<number | null>>;
  /** Response length per rollout, shape [n]. */
  lengths?: ArrayLike<number>;
  /** Stratum key per rollout, shape [n] (for `stratified`). */
  strata?: ArrayLike<string | number>;
}

const toF64 = (xs: ArrayLike<number | null>): Float64Array => Float64Array.from({ length: xs.length }, (_, i) => xs[i] ?? NaN);
const dense = (keys: ArrayLike<string | number>): Int32Array => {
  const ids = new GroupIds();
  return Int32Array.from({ length: keys.length }, (_, i) => ids.idOf(String(keys[i])));
};

/**
 * Library entry point: advantages for a batch, by estimator name, preset and options.
 * @example advantages({ rewards: [1, 0, 0, 1], groups: ["p", "p", "p", "p"] }, { estimator: "grpo", preset: "verl" })
 * @returns advantages, shape [n] (NaN where the reward is null or the rollout was filtered out).
 * @throws Error on an unknown estimator or preset, invalid options, or a missing input the estimator needs.
 */
export function advantages(batch: AdvantagesBatch, o: AdvantagesOptions = {}): Float64Array {
  const name = o.estimator ?? "grpo";
  const est = getEstimator(name);
  if (!est) throw new Error(`unknown estimator "${name}"; known: ${estimatorNames().join(", ")}`);
  const raw = { ...(o.preset ? presetOptions(est.name, o.preset) : {}), ...(o.options ?? {}) };
  const parsed = est.options.safeParse(raw);
  if (!parsed.success) throw new Error(`estimator ${est.name} options: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  const n = batch.rewards.length;
  for (const [what, xs] of [["groups", batch.groups], ["lengths", batch.lengths], ["strata", batch.strata], ...Object.entries(batch.components ?? {})] as const) {
    if (xs && xs.length !== n) throw new RangeError(`${what}: length ${xs.length}, expected ${n}`);
  }
  const input: AdvantageInput = { rewards: toF64(batch.rewards), groups: buildGroupIndex(dense(batch.groups)) };
  if (batch.components) input.components = { names: Object.keys(batch.components), scores: Object.values(batch.components).map(toF64) };
  if (batch.lengths) input.lengths = Float64Array.from(batch.lengths);
  if (batch.strata) input.strata = dense(batch.strata);
  return est.compute(input, parsed.data);
}
