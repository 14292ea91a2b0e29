import type { Rollout } from "../core/types.js";
import { UserError } from "../core/errors.js";
import { scoreBatch } from "../engine/batch.js";
import { createScorer } from "../engine/scorer.js";
import type { CompiledSpec } from "../spec/types.js";

/**
 * Scores rollouts with a spec and returns one number per rollout: the reward, or with `component` that component's
 * score; null where it is unscorable (or the reward null). Rollouts are scored in chunks of 512 (advantages and
 * group stages see the groups of a chunk: callers keep a group's rollouts together).
 * @throws {UserError} for a `component` the spec does not have.
 */
export async function scoreValues(
  spec: CompiledSpec,
  rollouts: readonly Rollout[],
  o: { component?: string; concurrency?: number; onProgress?: (done: number) => void } = {},
): Promise<Array<number | null>> {
  const ci = o.component === undefined ? -1 : spec.components.findIndex((c) => c.name === o.component);
  if (o.component !== undefined && ci < 0)
    throw new UserError(
      `--component ${o.component}: no such component; known: ${spec.components.map((c) => c.name).join(", ")}`,
    );
  const scorer = createScorer(spec, o.concurrency === undefined ? {} : { concurrency: o.concurrency });
  const out: Array<number | null> = [];
  try {
    for (let i = 0; i < rollouts.length; i += 512) {
      const { scores } = await scoreBatch(scorer, rollouts.slice(i, i + 512));
      for (const s of scores) out.push(ci < 0 ? s.reward : s.results[ci]!.score);
      o.onProgress?.(out.length);
    }
  } finally {
    await scorer.close();
  }
  return out;
}
