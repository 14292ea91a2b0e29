import type { CallUsage } from "../client/types.js";

/**
 * The trace of a scored run: per rollout, the few values its summary is built from, with the input line, so that
 * `rewardkit merge` can replay the rollouts of every shard in input order through the same builders
 * (`engine/run-tally.ts`, `engine/routes-file.ts`) and get the summary of the unsharded run exactly. Plain JSON.
 */

/** A component result as far as the summary reads it: score, reason, and the details the builders look at. */
export interface TracedResult {
  score: number | null;
  reason?: string;
  /** Only the keys the summary builders read (`SUMMARY_DETAILS` in run-tally.ts), and `extracted` for a label disagreement kept as an example. */
  details?: Record<string, unknown>;
}

/** One scored rollout as the summary, the label agreement and the advantage step saw it. */
export interface TracedRollout {
  /** 1-based line of the input (the replay order). */
  line: number;
  group: string;
  /** The reward after group stages; null when undefined. */
  reward: number | null;
  /** The advantage this run wrote (merge checks that the whole batch gives the same); null when none. */
  advantage: number | null;
  /** Component results after group stages, in spec order. */
  results: TracedResult[];
  /** Each component's passThreshold at the rollout's step, when some are scheduled. */
  thresholds?: number[];
  /** Hacking-diagnostics length (tokens: `diagnosticLength`) and training step. */
  length: number;
  step: number;
  /** Response length the estimator reads, tokens; null when unknown. */
  responseLength: number | null;
  /** The stratum key's value, for estimators with strata (absent: missing). */
  stratum?: unknown;
  /** `--label`: the label as a boolean (null: missing or not boolean-like); id and reference when it disagrees. */
  label?: { value: boolean | null; id?: string; reference?: unknown };
}

/** The trace of one plain (unrouted) run: its rollouts and the counters its summary reads. */
export interface RunTrace {
  kind: "plain";
  /** In scoring order (input order). */
  rollouts: TracedRollout[];
  /** Input records parsed (JSON objects), for the `--map` warnings. */
  records: number;
  malformed: number;
  /** `--map` name → records without its source. */
  mapMisses: Record<string, number>;
  judges: Record<string, CallUsage>;
}

/** The trace of a routed run (`engine/routes-file.ts`). */
export interface RoutedTrace {
  kind: "routed";
  /** Route key → the trace of that route's scoring (lines are the input's), or null when no rollout took it here. */
  routes: Record<string, RunTrace | null>;
  /** Every routed rollout, in input order, as the overall summary reads it. */
  rollouts: RoutedRollout[];
  /** Malformed lines and rollouts without a route (as the overall summary counts them). */
  malformed: number;
  /** Rollouts without a route: count, count per value, and the input line where each value first appeared. */
  unrouted: { count: number; values: Record<string, number>; firstLine: Record<string, number> };
}

/** One routed rollout as the overall summary reads it. */
export interface RoutedRollout {
  line: number;
  route: string;
  group: string;
  reward: number | null;
  /** The advantage written (the route's, the batch-wide one, or null for a group split across routes). */
  advantage: number | null;
  /** Did it pass by its route's rule (pass^k)? */
  passed: boolean;
  /** For the routed spec's own (batch-wide) estimator: response length (null: unknown) and stratum value. */
  responseLength?: number | null;
  stratum?: unknown;
}

/** The input every shard of a run reads: how many readable lines, and their digest (`engine/shard.ts`). */
export interface InputFingerprint {
  lines: number;
  digest: string;
}
