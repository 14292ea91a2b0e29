import type { TestStatus } from "../../sandbox/types.js";

/** How per-test outcomes become one score in [0, 1]. */
export type ScoreMode = "all" | "fraction" | "weighted";

/** Floor on a test's difficulty weight, so that a test every rollout passes still counts a little. */
export const MIN_WEIGHT = 0.05;

/**
 * VeRPO difficulty weights from per-test pass rates ρ_j (earlier batches, or a first pass over this batch):
 * `w_j = max(1 − ρ_j, MIN_WEIGHT)` — a test few rollouts pass is worth more. Without rates: uniform.
 *
 * Example: `difficultyWeights([1, 0.5, 0])` → `[0.05, 0.5, 1]`.
 */
export function difficultyWeights(passRates: readonly number[]): number[] {
  return passRates.map((p) => Math.max(1 - p, MIN_WEIGHT));
}

/**
 * Scores per-test statuses.
 * - `all`: 1 when every test passes (and there is at least one), else 0.
 * - `fraction`: passed / total.
 * - `weighted` (VeRPO, arXiv 2601.03525): dense term `D = Σ_j w_j·pass_j / Σ_j w_j` over difficulty weights
 *   `w_j`, combined with the global outcome as `score = 1` when every test passes, else `denseScale · D`.
 *   The full pass therefore always beats any partial pass (D < 1 ⇒ score < denseScale ≤ 1), and partial
 *   passes are ranked by how hard the passed tests are.
 *
 * Example: statuses `[pass, fail, pass]`, weights `[0.05, 0.5, 1]`, denseScale 0.5:
 * D = 1.05 / 1.55 = 0.677…, score = 0.339….
 */
export function scoreTests(
  statuses: readonly TestStatus[],
  mode: ScoreMode,
  weights?: readonly number[],
  denseScale = 0.5,
): number {
  const n = statuses.length;
  if (n === 0) return 0;
  let passed = 0;
  for (const s of statuses) if (s === "pass") passed++;
  if (mode === "all") return passed === n ? 1 : 0;
  if (mode === "fraction") return passed / n;
  if (passed === n) return 1;
  const w = weights && weights.length === n ? weights : undefined;
  let num = 0;
  let den = 0;
  for (let j = 0; j < n; j++) {
    const wj = w ? w[j]! : 1;
    den += wj;
    if (statuses[j] === "pass") num += wj;
  }
  return den > 0 ? (denseScale * num) / den : 0;
}
