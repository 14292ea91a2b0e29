import { createHash } from "node:crypto";
import { availableParallelism } from "node:os";
import { computeReward } from "../compose/reward.js";
import { completionText } from "../core/completion.js";
import type { ComponentResult, Rollout } from "../core/types.js";
import { unscorable } from "../core/types.js";
import type { CompiledSpec } from "../spec/types.js";
import type { VerifierInput, VerifyFn } from "../verifiers/types.js";
import { LruCache } from "./cache.js";
import { VerifierPool } from "./pool.js";

/** One rollout's verdicts: component results in spec order, and the aggregated reward. */
export interface RolloutScore {
  results: ComponentResult[];
  reward: number | null;
}

export interface ScorerOptions {
  /** Worker threads for worker-isolated verifiers (default: available parallelism). */
  concurrency?: number;
  /** Result-cache capacity in component verdicts (default 100 000; 0 disables the cache). */
  cacheSize?: number;
}

/** Counters of a scorer, for summaries and `/metrics`. */
export interface ScorerStats {
  cacheHits: number;
  cacheMisses: number;
  cacheSize: number;
}

/** Scores rollouts against a compiled spec. Holds a worker pool: call `close()` when done. */
export interface Scorer {
  readonly spec: CompiledSpec;
  score(rollout: Rollout): Promise<RolloutScore>;
  stats(): ScorerStats;
  close(): Promise<void>;
}

function guard(fn: VerifyFn, input: VerifierInput): Promise<ComponentResult> {
  try {
    return Promise.resolve(fn(input)).catch((e: unknown) => unscorable("worker_error", { error: String((e as Error)?.message ?? e) }));
  } catch (e) {
    return Promise.resolve(unscorable("worker_error", { error: (e as Error).message }));
  }
}

/** Verdicts that say something about the machine, not the rollout: never cached. */
function transient(r: ComponentResult): boolean {
  return r.reason === "timeout" || r.reason === "worker_error";
}

/**
 * Builds a scorer: inline verifiers run on this thread, worker verifiers in a {@link VerifierPool} under
 * each component's hard deadline (`timeoutMs`). A verifier that throws yields `unscorable("worker_error")`;
 * one that passes its deadline yields `unscorable("timeout")`. Never rejects for a single bad rollout.
 *
 * Identical work is computed once: verdicts are cached (bounded LRU) under the component, the completion text,
 * the reference and every other rollout field the verifier declares in `reads`. Non-cacheable verifiers and
 * transient verdicts (timeouts, crashes) are not cached.
 */
export function createScorer(spec: CompiledSpec, options: ScorerOptions = {}): Scorer {
  const threads = Math.max(1, options.concurrency ?? availableParallelism());
  const cache = new LruCache<ComponentResult>(options.cacheSize ?? 100_000);
  const inline = new Map<number, VerifyFn>();
  const workerComponents = spec.components
    .map((c, index) => ({ index, type: c.type, options: c.options, isolation: c.definition.isolation }))
    .filter((c) => c.isolation === "worker")
    .map(({ index, type, options }) => ({ index, type, options }));
  spec.components.forEach((c, i) => {
    if (c.definition.isolation === "inline") inline.set(i, c.definition.create(c.options));
  });
  const pool = workerComponents.length > 0 ? new VerifierPool(workerComponents, threads) : undefined;
  const cached = spec.components.map((c) => c.definition.cacheable !== false && cache.capacity > 0);

  function keyOf(i: number, base: string, rollout: Rollout): string {
    const reads = spec.components[i]!.definition.reads;
    if (!reads || reads.length === 0) return `${i}:${base}`;
    return `${i}:${base}:${JSON.stringify(reads.map((f) => rollout[f] ?? null))}`;
  }

  async function one(i: number, input: VerifierInput, base: string | undefined): Promise<ComponentResult> {
    const key = base === undefined || !cached[i] ? undefined : keyOf(i, base, input.rollout);
    if (key !== undefined) {
      const hit = cache.get(key);
      if (hit) return hit;
    }
    const fn = inline.get(i);
    const r = fn ? await guard(fn, input) : await pool!.run(i, input, spec.components[i]!.timeoutMs);
    if (key !== undefined && !transient(r)) cache.set(key, r);
    return r;
  }

  return {
    spec,
    async score(rollout) {
      const completion = completionText(rollout.completion);
      const input: VerifierInput = { completion, reference: rollout.reference, rollout };
      const base = cache.capacity > 0 ? createHash("sha1").update(completion).update("\u0000").update(JSON.stringify(rollout.reference ?? null)).digest("base64") : undefined;
      const results = await Promise.all(spec.components.map((_, i) => one(i, input, base)));
      return { results, reward: computeReward(spec, results) };
    },
    stats() {
      return { cacheHits: cache.hits, cacheMisses: cache.misses, cacheSize: cache.size };
    },
    async close() {
      await pool?.close();
    },
  };
}
