import type { Rollout } from "../core/types.js";
import { batchAdvantages } from "./advantage-batch.js";
import type { RolloutScore, Scorer } from "./scorer.js";

/** Scores of a batch in input order, with advantages computed over the groups present in the batch. */
export interface BatchScore {
  scores: RolloutScore[];
  /** Advantage per rollout, shape [n]; NaN where the reward is null. */
  advantages: Float64Array;
}

/**
 * Scores an in-memory batch (the server's and the library's unit of work) and computes the spec's
 * advantages over the groups present in the batch. A group split across batches is normalized per batch:
 * send whole groups for GRPO-style advantages.
 */
export async function scoreBatch(scorer: Scorer, rollouts: readonly Rollout[]): Promise<BatchScore> {
  const scores = await Promise.all(rollouts.map((r) => scorer.score(r)));
  return { scores, advantages: batchAdvantages(scorer.spec, rollouts, scores) };
}
