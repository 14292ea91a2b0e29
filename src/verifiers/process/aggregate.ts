/**
 * Step-score aggregations of the `process` verifier: how K step scores r_1..r_K become one component score, and
 * which per-step rewards r̃_k the trainer sees (the `step_rewards` that step-level advantages are built from).
 * One entry per name in {@link STEP_AGGREGATIONS}; adding one is one entry.
 */

/** What an aggregation needs besides the step scores. */
export interface AggregationContext {
  /** `first-error`: a step is wrong when its score is below this. */
  threshold: number;
  /** η of Clipping (Gao et al. 2024): the upper end of the step-score range (default 1). */
  eta: number;
}

/** One aggregation's result: the component score and the per-step rewards r̃ (same length as the scores). */
export interface Aggregated {
  score: number;
  stepRewards: number[];
}

/** A named aggregation over the scores of the scorable steps (K ≥ 1, all finite). */
export interface StepAggregation {
  name: string;
  /** One line for `rewardkit check` and the docs, with the source. */
  summary: string;
  aggregate(scores: readonly number[], ctx: AggregationContext): Aggregated;
}

/** Index (0-based) of the first score below `threshold`, −1 when none is (ProcessBench's "first error"). */
export function firstError(scores: readonly (number | null)[], threshold: number): number {
  for (let k = 0; k < scores.length; k++) {
    const s = scores[k];
    if (s !== null && s !== undefined && s < threshold) return k;
  }
  return -1;
}

/** Clipping (Gao et al. 2024, §4.1): r̃ = min(r − η, 0) ≤ 0, so adding steps never adds reward. */
export function clipReward(r: number, eta: number): number {
  const v = Math.min(r - eta, 0);
  return v === 0 ? 0 : v; // no −0
}

/**
 * Delta (Gao et al. 2024, §4.2): r̃_k = r_k − r_{k+1} for k < K and r̃_K = r_K, so the return from step k,
 * Σ_{j ≥ k} r̃_j, telescopes to r_k: every step's return-to-go is its own score and the total is r_1 whatever K is.
 * (The paper's figure leaves the last step's delta out; keeping r_K makes a one-step solution still scored and the
 * bound the same.)
 */
export function deltaRewards(r: readonly number[]): number[] {
  return r.map((x, k) => (k + 1 < r.length ? x - r[k + 1]! : x));
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

/** The aggregations by name. Scores are those of the scorable steps, in order. */
export const STEP_AGGREGATIONS: Record<string, StepAggregation> = {
  min: {
    name: "min",
    summary: "min_k r_k: a solution is as good as its worst step (PRM800K / Lightman et al. 2023 ORM-from-PRM)",
    aggregate: (r) => ({ score: Math.min(...r), stepRewards: [...r] }),
  },
  product: {
    name: "product",
    summary:
      "Π_k r_k: the probability that every step is right, when r_k are independent step-correctness probabilities",
    aggregate: (r) => ({ score: r.reduce((a, b) => a * b, 1), stepRewards: [...r] }),
  },
  last: {
    name: "last",
    summary: "r_K: the last step's score (Math-Shepherd, Wang et al. 2024, use the last/min)",
    aggregate: (r) => ({ score: r[r.length - 1]!, stepRewards: [...r] }),
  },
  mean: {
    name: "mean",
    summary: "(1/K) Σ_k r_k",
    aggregate: (r) => ({ score: sum(r) / r.length, stepRewards: [...r] }),
  },
  sum: {
    name: "sum",
    summary: "Σ_k r_k — unbounded in K: a policy gains by adding steps (Gao et al. 2024, §3); prefer clip-delta",
    aggregate: (r) => ({ score: sum(r), stepRewards: [...r] }),
  },
  "first-error": {
    name: "first-error",
    summary: "0-based index of the first step with r_k < threshold, −1 when none (ProcessBench's prediction)",
    aggregate: (r, c) => ({ score: firstError(r, c.threshold), stepRewards: [...r] }),
  },
  clip: {
    name: "clip",
    summary: "Σ_k min(r_k − η, 0) ∈ [−Kη, 0]: Clipping alone (Gao et al. 2024, §4.1); more steps never pay more",
    aggregate: (r, c) => {
      const s = r.map((x) => clipReward(x, c.eta));
      return { score: sum(s), stepRewards: s };
    },
  },
  delta: {
    name: "delta",
    summary: "Σ_k r̃_k with r̃_k = r_k − r_{k+1}, r̃_K = r_K: telescopes to r_1 (Delta alone, Gao et al. 2024, §4.2)",
    aggregate: (r) => {
      const s = deltaRewards(r);
      return { score: sum(s), stepRewards: s };
    },
  },
  "clip-delta": {
    name: "clip-delta",
    summary:
      "Delta over clipped scores: r̃_k = c_k − c_{k+1}, r̃_K = c_K, c = min(r − η, 0); total = c_1 ∈ [−η, 0] for any K (Gao et al. 2024, §4.3)",
    aggregate: (r, c) => {
      const s = deltaRewards(r.map((x) => clipReward(x, c.eta)));
      // the sum telescopes to c_1; computing it as such avoids rounding drift over long solutions
      return { score: clipReward(r[0]!, c.eta), stepRewards: s };
    },
  },
};

/** Aggregations that combine the step scores with the outcome. */
export const OUTCOME_AGGREGATIONS = ["gated", "mix"] as const;

/** Every `aggregate` value a `process` component accepts. */
export const AGGREGATE_NAMES = [...Object.keys(STEP_AGGREGATIONS), ...OUTCOME_AGGREGATIONS] as string[] as [
  string,
  ...string[],
];

/**
 * Outcome-combining aggregations, given the process part P = base(r) and the outcome o:
 * - `gated` (G-RA, Sun et al. 2025, *Stabilizing Long-term Multi-turn RL with Gated Rewards*): o + 𝟙[o ≥ τ_o]·w·P —
 *   step credit accrues only when the outcome is right, so a wrong answer cannot be paid for its steps;
 * - `mix`: o + w·P, w schedulable (anneal the process weight as training proceeds).
 * The step rewards are the base's, times w, and zeroed for `gated` when the gate is closed.
 */
export function combineOutcome(
  kind: (typeof OUTCOME_AGGREGATIONS)[number],
  base: Aggregated,
  outcome: number,
  o: { outcomeThreshold: number; processWeight: number },
): Aggregated & { gateOpen?: boolean } {
  const w = o.processWeight;
  if (kind === "mix") return { score: outcome + w * base.score, stepRewards: base.stepRewards.map((x) => w * x) };
  const open = outcome >= o.outcomeThreshold;
  return {
    score: outcome + (open ? w * base.score : 0),
    stepRewards: base.stepRewards.map((x) => (open ? w * x : 0)),
    gateOpen: open,
  };
}
