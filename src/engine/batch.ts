import { stageBatch } from "../compose/group-stage.js";
import type { Rollout } from "../core/types.js";
import { batchAdvantages } from "./advantage-batch.js";
import type { RolloutScore, Scorer } from "./scorer.js";
import { isRoutedScorer, scoreRoutedBatch } from "./routes.js";
import type { RoutedBatchScore, RoutedScorer } from "./routes.js";

/** Scores of a batch in input order, with advantages computed over the groups present in the batch. */
export interface BatchScore {
  scores: RolloutScore[];
  /** Advantage per rollout, shape [n]; NaN where the reward is null. */
  advantages: Float64Array;
}

/**
 * Scores an in-memory batch (the server's and the library's unit of work) and computes the spec's
 * advantages over the groups present in the batch. A group split across batches is normalized (and its group-stage
 * components, e.g. `group-length`, are scored) per batch: send whole groups.
 */
export async function scoreBatch(scorer: Scorer, rollouts: readonly Rollout[]): Promise<BatchScore>;
/** A routed scorer ({@link createRoutedScorer}): each rollout scored by its route's sub-spec (see {@link scoreRoutedBatch}). */
export async function scoreBatch(scorer: RoutedScorer, rollouts: readonly Rollout[]): Promise<RoutedBatchScore>;
export async function scoreBatch(scorer: Scorer | RoutedScorer, rollouts: readonly Rollout[]): Promise<BatchScore | RoutedBatchScore> {
  if (isRoutedScorer(scorer)) return scoreRoutedBatch(scorer, rollouts);
  const scores = await Promise.all(rollouts.map((r) => scorer.score(r)));
  stageBatch(scorer.spec, rollouts, scores, (step) => scorer.valuesAt(step)); // group-context components see their whole group
  return { scores, advantages: batchAdvantages(scorer.spec, rollouts, scores) };
}
