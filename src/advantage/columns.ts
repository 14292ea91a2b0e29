/** Reads a component score from `{score}` objects or bare numbers; NaN when absent, null or not finite. */
export function componentScore(v: unknown): number {
  const s = v !== null && typeof v === "object" ? (v as { score?: unknown }).score : v;
  return typeof s === "number" && Number.isFinite(s) ? s : NaN;
}

/** A reward as the estimators read it: a finite number or null; `undefined` when it is neither. */
export function readReward(v: unknown): number | null | undefined {
  if (v === null) return null;
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}
