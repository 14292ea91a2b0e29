import { expect } from "vitest";
import { presetOptions } from "./presets.js";
import { getEstimator } from "./registry.js";
import type { AdvantageInput } from "./types.js";

/** Runs estimator `name` with a preset's options (if any) under `opts`. Test helper. */
export function run(
  name: string,
  input: AdvantageInput,
  preset?: string,
  opts: Record<string, unknown> = {},
): Float64Array {
  const est = getEstimator(name)!;
  return est.compute(input, est.options.parse({ ...(preset ? presetOptions(name, preset) : {}), ...opts }));
}

/** Asserts `got` equals `want` to 1e-12 (NaN matches NaN). Test helper. */
export function close(got: Float64Array, want: number[]): void {
  expect(got.length).toBe(want.length);
  want.forEach((w, i) => {
    if (Number.isNaN(w)) expect(got[i], `index ${i}`).toBeNaN();
    else expect(Math.abs(got[i]! - w), `index ${i}: got ${got[i]}, want ${w}`).toBeLessThanOrEqual(1e-12);
  });
}
