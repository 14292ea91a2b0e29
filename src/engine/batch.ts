import type { Rollout } from "../core/types.js";
import { scorePlainBatch } from "./plain-batch.js";
import type { BatchScore } from "./plain-batch.js";
import type { Scorer } from "./scorer.js";
import { isRoutedScorer, scoreRoutedBatch } from "./routes.js";
import type { RoutedBatchScore, RoutedScorer } from "./routes.js";

export type { BatchScore } from "./plain-batch.js";

/**
 * Scores an in-memory batch (the server's and the library's unit of work) and computes the spec's
 * advantages over the groups present in the batch. A group split across batches is normalized (and its group-stage
 * components, e.g. `group-length`, are scored) per batch: send whole groups.
 */
export async function scoreBatch(scorer: Scorer, rollouts: readonly Rollout[]): Promise<BatchScore>;
/** A routed scorer ({@link createRoutedScorer}): each rollout scored by its route's sub-spec (see {@link scoreRoutedBatch}). */
export async function scoreBatch(scorer: RoutedScorer, rollouts: readonly Rollout[]): Promise<RoutedBatchScore>;
export async function scoreBatch(
  scorer: Scorer | RoutedScorer,
  rollouts: readonly Rollout[],
): Promise<BatchScore | RoutedBatchScore> {
  if (isRoutedScorer(scorer)) return scoreRoutedBatch(scorer, rollouts);
  return scorePlainBatch(scorer, rollouts);
}
