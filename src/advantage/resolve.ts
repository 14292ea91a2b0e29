import { UserError } from "../core/errors.js";
import { presetOptions } from "./presets.js";
import { estimatorNames, getEstimator } from "./registry.js";
import type { EstimatorDefinition } from "./types.js";

/** An estimator with validated options (defaults filled in). */
export interface ResolvedEstimator {
  estimator: EstimatorDefinition<unknown>;
  options: Record<string, unknown>;
}

/**
 * Looks up an estimator and validates its options: a peer preset's options first, then `options` over them.
 * Shared by the spec's `advantage:` block, `rewardkit advantages` and the server's `/v1/advantages`.
 * @throws {UserError} naming the unknown estimator or preset (with the known ones) or each invalid option.
 */
export function resolveEstimator(
  name: string,
  preset?: string,
  options: Record<string, unknown> = {},
): ResolvedEstimator {
  const estimator = getEstimator(name);
  if (!estimator) throw new UserError(`estimator: unknown "${name}"; known: ${estimatorNames().join(", ")}`);
  let raw = options;
  if (preset !== undefined) {
    try {
      raw = { ...presetOptions(estimator.name, preset), ...options };
    } catch (e) {
      throw new UserError(`preset: ${(e as Error).message}`);
    }
  }
  const r = estimator.options.safeParse(raw);
  if (!r.success)
    throw new UserError(
      `estimator ${estimator.name} options: ${r.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`,
    );
  return { estimator, options: r.data as Record<string, unknown> };
}
