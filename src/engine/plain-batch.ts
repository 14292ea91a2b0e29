import { stageBatch } from "../compose/group-stage.js";
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
 * Scores an in-memory batch with one spec's scorer and computes its advantages over the groups present in the
 * batch (group-stage components see their whole group). {@link scoreBatch} (engine/batch.ts) is the public entry
 * that also takes a routed scorer; routes call this one per route.
 */
export async function scorePlainBatch(scorer: Scorer, rollouts: readonly Rollout[]): Promise<BatchScore> {
  const scores = await Promise.all(rollouts.map((r) => scorer.score(r)));
  stageBatch(scorer.spec, rollouts, scores, (step) => scorer.valuesAt(step)); // group-context components see their whole group
  return { scores, advantages: batchAdvantages(scorer.spec, rollouts, scores) };
}
