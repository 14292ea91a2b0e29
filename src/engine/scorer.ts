import { availableParallelism } from "node:os";
import { computeReward } from "../compose/reward.js";
import { completionText } from "../core/completion.js";
import type { ComponentResult, Rollout } from "../core/types.js";
import { unscorable } from "../core/types.js";
import type { CompiledSpec } from "../spec/types.js";
import type { VerifierInput, VerifyFn } from "../verifiers/types.js";
import { VerifierPool } from "./pool.js";

/** One rollout's verdicts: component results in spec order, and the aggregated reward. */
export interface RolloutScore {
  results: ComponentResult[];
  reward: number | null;
}

export interface ScorerOptions {
  /** Worker threads for worker-isolated verifiers (default: available parallelism). */
  concurrency?: number;
}

/** Scores rollouts against a compiled spec. Holds a worker pool: call `close()` when done. */
export interface Scorer {
  readonly spec: CompiledSpec;
  score(rollout: Rollout): Promise<RolloutScore>;
  close(): Promise<void>;
}

function guard(fn: VerifyFn, input: VerifierInput): Promise<ComponentResult> {
  try {
    return Promise.resolve(fn(input)).catch((e: unknown) => unscorable("worker_error", { error: String((e as Error)?.message ?? e) }));
  } catch (e) {
    return Promise.resolve(unscorable("worker_error", { error: (e as Error).message }));
  }
}

/**
 * Builds a scorer: inline verifiers run on this thread, worker verifiers in a {@link VerifierPool} under
 * each component's hard deadline (`timeoutMs`). A verifier that throws yields `unscorable("worker_error")`;
 * one that passes its deadline yields `unscorable("timeout")`. Never rejects for a single bad rollout.
 */
export function createScorer(spec: CompiledSpec, options: ScorerOptions = {}): Scorer {
  const threads = Math.max(1, options.concurrency ?? availableParallelism());
  const inline = new Map<number, VerifyFn>();
  const workerComponents = spec.components
    .map((c, index) => ({ index, type: c.type, options: c.options, isolation: c.definition.isolation }))
    .filter((c) => c.isolation === "worker")
    .map(({ index, type, options }) => ({ index, type, options }));
  spec.components.forEach((c, i) => {
    if (c.definition.isolation === "inline") inline.set(i, c.definition.create(c.options));
  });
  const pool = workerComponents.length > 0 ? new VerifierPool(workerComponents, threads) : undefined;

  return {
    spec,
    async score(rollout) {
      const input: VerifierInput = { completion: completionText(rollout.completion), reference: rollout.reference, rollout };
      const results = await Promise.all(
        spec.components.map((c, i) => {
          const fn = inline.get(i);
          return fn ? guard(fn, input) : pool!.run(i, input, c.timeoutMs);
        }),
      );
      return { results, reward: computeReward(spec, results) };
    },
    async close() {
      await pool?.close();
    },
  };
}
