import { createHash } from "node:crypto";
import { availableParallelism } from "node:os";
import { computeReward } from "../compose/reward.js";
import { applyGroupStages, collectMembers, stagedComponents } from "../compose/group-stage.js";
import { completionText } from "../core/completion.js";
import type { ComponentResult, Rollout } from "../core/types.js";
import { unscorable } from "../core/types.js";
import { ScheduleRuntime, ScheduleStateError } from "../schedule/runtime.js";
import type { ResolvedValues, ScheduleState } from "../schedule/runtime.js";
import type { CompiledSpec } from "../spec/types.js";
import type { VerifierInput, VerifyFn } from "../verifiers/types.js";
import type { CallUsage } from "../client/types.js";
import { BoundedCache } from "../core/cache.js";
import { VerifierPool } from "./pool.js";
import type { StepOptions } from "./pool.js";
import { runInline } from "./inline.js";
import { getPath } from "../io/fields.js";
import { codeDigest, SharedVerdicts } from "./shared-verdicts.js";
import type { StoreGuard } from "../store/guard.js";
import { FleetSchedules } from "../schedule/fleet.js";

/** One rollout's verdicts: component results in spec order, and the aggregated reward. */
export interface RolloutScore {
  results: ComponentResult[];
  reward: number | null;
  /**
   * Specs with group-stage components: each staged component's member for this rollout (sparse, by component
   * index). `results` and `reward` are then those of the rollout as a group of one; batch callers re-run the stages
   * over whole groups with {@link applyGroupStages}.
   */
  members?: unknown[];
}

export interface ScorerOptions {
  /** Worker threads for worker-isolated verifiers (default: available parallelism). */
  concurrency?: number;
  /** Result-cache capacity in component verdicts (default 100 000; 0 disables the cache). */
  cacheSize?: number;
  /**
   * The fleet's shared store (`rewardkit serve --store`): a second verdict-cache tier behind the in-process one, for
   * the components worth a store round trip (those that run in the worker pool or time themselves: math CAS, code
   * sandbox, …), and the performance schedules' fleet-wide state ({@link FleetSchedules}).
   */
  store?: StoreGuard;
  /** How long a verdict stays in the shared store, ms (default 24 h: `DEFAULT_VERDICT_TTL_MS`). */
  storeTtlMs?: number;
  /** Start the worker pool at once (a server) instead of when a rollout first needs a worker (default). */
  prestart?: boolean;
}

/** Counters of a scorer, for summaries and `/metrics`. */
export interface ScorerStats {
  cacheHits: number;
  cacheMisses: number;
  cacheSize: number;
  /** Verdicts found in the shared store after a local miss (0 without one). */
  sharedHits: number;
  /** Shared-store lookups that found nothing. */
  sharedMisses: number;
}

/** Scores rollouts against a compiled spec. Holds a worker pool: call `close()` when done. */
export interface Scorer {
  readonly spec: CompiledSpec;
  /** Scores one rollout at its `step` (default 0): every scheduled weight, threshold and option is resolved there. */
  score(rollout: Rollout): Promise<RolloutScore>;
  /** Scheduled values at a step (undefined for a spec without schedules). */
  valuesAt(step: number): ResolvedValues | undefined;
  /** The performance schedules' state (JSON-ready; `schedules` is empty when there are none). Take it between batches. */
  snapshot(): ScheduleState;
  /** Resumes performance schedules from a snapshot. @throws {ScheduleStateError} for a state of another spec. */
  restore(state: ScheduleState): void;
  stats(): ScorerStats;
  /** Model-call accounting per component that calls a model (judges, reward models); empty when none does. */
  usage(): Record<string, CallUsage>;
  close(): Promise<void>;
}

/** Verdicts that say something about the machine, not the rollout: never cached. */
const TRANSIENT: ReadonlySet<string> = new Set(["timeout", "worker_error", "sandbox_error", "judge_error"]);
function transient(r: ComponentResult): boolean {
  return r.reason !== undefined && TRANSIENT.has(r.reason);
}

/**
 * Builds a scorer: inline verifiers run on this thread, worker verifiers in a {@link VerifierPool} under
 * each component's hard deadline (`timeoutMs`). A verifier that throws yields `unscorable("worker_error")`;
 * one that passes its deadline yields `unscorable("timeout")`. Never rejects for a single bad rollout.
 *
 * Identical work is computed once: verdicts are cached (bounded LRU) under the component, the completion text,
 * the reference and every other rollout field the verifier declares in `reads`. Non-cacheable verifiers and
 * transient verdicts (timeouts, crashes) are not cached.
 *
 * Schedules: the rollout's `step` resolves every scheduled value ({@link ScheduleRuntime}). A component with a
 * scheduled type option runs an instance made from its options at that step (instances cached by the options'
 * JSON, 64 per component; workers do the same), and the options are part of its verdict-cache key. A spec without
 * schedules takes none of these paths.
 */
export function createScorer(spec: CompiledSpec, options: ScorerOptions = {}): Scorer {
  const threads = Math.max(1, options.concurrency ?? availableParallelism());
  const cache = new BoundedCache<ComponentResult>(options.cacheSize ?? 100_000);
  const inline = new Map<number, VerifyFn>();
  const workerComponents = spec.components
    .map((c, index) => ({
      index,
      type: c.type,
      options: c.options,
      isolation: c.definition.isolation,
      module: c.module,
    }))
    .filter((c) => c.isolation === "worker")
    .map(({ index, type, options, module }) => ({ index, type, options, ...(module !== undefined ? { module } : {}) }));
  // A worker verifier's inline fast path decides what it can on this thread; the rest goes to the pool.
  const fast = new Map<number, (input: VerifierInput) => ComponentResult | undefined>();
  spec.components.forEach((c, i) => {
    if (c.definition.isolation === "inline") inline.set(i, c.definition.create(c.options));
    else if (c.definition.fastPath) fast.set(i, c.definition.fastPath(c.options));
  });
  // The pool starts when a rollout first needs it (a file the fast paths decide whole never starts a worker), or
  // at once with `prestart` (a server: the first request should not wait for workers to load).
  let pool: VerifierPool | undefined;
  const poolOf = (): VerifierPool => (pool ??= new VerifierPool(workerComponents, threads));
  if (options.prestart && workerComponents.length > 0) poolOf();
  const cached = spec.components.map((c) => c.definition.cacheable !== false && cache.capacity > 0);
  const anyCached = cached.some(Boolean); // else no rollout needs its cache key hashed
  const shared = options.store ? new SharedVerdicts(options.store, options.storeTtlMs) : undefined;
  // the shared tier's namespace: the spec and the code that computes its verdicts (plugins included)
  const sharedNs = shared
    ? `${spec.hash}:${codeDigest(spec.components.flatMap((c) => (c.module !== undefined ? [c.module] : [])))}`
    : "";
  // a store round trip pays off for work in the pool or a sandbox, not for a regex on this thread
  const sharedFor = spec.components.map(
    (c, i) =>
      shared !== undefined && cached[i]! && (c.definition.isolation === "worker" || c.definition.selfTimed === true),
  );
  const runtime = spec.schedules.length > 0 ? new ScheduleRuntime(spec) : undefined;
  const fleet = runtime?.stateful && options.store ? new FleetSchedules(options.store, spec.hash) : undefined;
  if (fleet) runtime!.share(fleet);
  // Per component with scheduled options: instances by options key, each with a digest of its options for
  // verdict-cache keys (the same in every replica). `fn` is set for inline verifiers and for options that fail
  // validation; worker verifiers run in the pool.
  const stepped = spec.components.map(() => new BoundedCache<{ id: string; fn?: VerifyFn }>(64));
  const staged = stagedComponents(spec);
  let sharedHits = 0;
  let sharedMisses = 0;

  /** The verdicts and reward of a rollout, its group-stage components scored as a group of one. */
  function finish(input: VerifierInput, results: ComponentResult[], values?: ResolvedValues): RolloutScore {
    if (staged.length === 0) return { results, reward: computeReward(spec, results, values) };
    const members = collectMembers(spec, staged, input, results);
    const one = { group: input.rollout.group, results, members, reward: null, ...(values ? { values } : {}) };
    applyGroupStages(spec, staged, [one]);
    return { results, reward: one.reward, members };
  }

  function keyOf(i: number, base: string, rollout: Rollout, variant: string): string {
    const reads = spec.components[i]!.definition.reads;
    if (!reads || reads.length === 0) return `${i}${variant}:${base}`;
    const extra = JSON.stringify(reads.map((f) => rollout[f] ?? null));
    // long fields (a prompt) enter the key as a digest: the cache holds keys, not prompts
    return `${i}${variant}:${base}:${extra.length > 64 ? createHash("sha1").update(extra).digest("base64") : extra}`;
  }

  /** The instance of component i for options at a step; a failure to build it is a `worker_error` verdict. */
  function instance(i: number, so: StepOptions): { id: string; fn?: VerifyFn } {
    let inst = stepped[i]!.get(so.key);
    if (!inst) {
      const def = spec.components[i]!.definition;
      let fn: VerifyFn | undefined;
      try {
        const o = def.options.parse(so.options);
        if (def.isolation === "inline") fn = def.create(o);
      } catch (e) {
        const error = `scheduled options are invalid: ${(e as Error).message}`;
        fn = () => unscorable("worker_error", { error });
      }
      inst = { id: createHash("sha1").update(so.key).digest("base64").slice(0, 16), fn };
      stepped[i]!.set(so.key, inst);
    }
    return inst;
  }

  async function one(
    i: number,
    input0: VerifierInput,
    base0: string | undefined,
    so?: StepOptions,
  ): Promise<ComponentResult> {
    const inst = so ? instance(i, so) : undefined;
    const path = spec.components[i]!.referencePath;
    // A component with its own reference path sees that value as its reference; the cache key carries it.
    const input = path === undefined ? input0 : { ...input0, reference: getPath(input0.rollout, path) };
    const base =
      path === undefined || base0 === undefined ? base0 : `${base0}:${path}:${JSON.stringify(input.reference ?? null)}`;
    const key = base === undefined || !cached[i] ? undefined : keyOf(i, base, input.rollout, inst ? `#${inst.id}` : "");
    if (key !== undefined) {
      const hit = cache.get(key);
      if (hit) return hit;
      if (sharedFor[i]) {
        const far = await shared!.get(`${sharedNs}:${key}`);
        if (far) sharedHits++;
        else sharedMisses++;
        if (far) {
          cache.set(key, far);
          return far;
        }
      }
    }
    const fn = inst ? inst.fn : inline.get(i);
    const c = spec.components[i]!;
    const quick = fn || so ? undefined : fast.get(i)?.(input);
    const r = fn
      ? await runInline(fn, input, c.timeoutMs, c.definition.selfTimed === true, c.definition.abortable === true)
      : (quick ?? (await poolOf().run(i, input, c.timeoutMs, so)));
    if (key !== undefined && !transient(r)) {
      cache.set(key, r);
      if (sharedFor[i]) shared!.set(`${sharedNs}:${key}`, r);
    }
    return r;
  }

  async function scheduled(
    rt: ScheduleRuntime,
    rollout: Rollout,
    input: VerifierInput,
    base: string | undefined,
  ): Promise<RolloutScore> {
    const step = rollout.step ?? 0;
    if (!rt.stateful) {
      const values = rt.resolve(step);
      const results = await Promise.all(spec.components.map((_, i) => one(i, input, base, values.options[i])));
      return finish(input, results, values);
    }
    const { seq, values } = await rt.begin(step);
    let results: ComponentResult[] | undefined;
    try {
      results = await Promise.all(spec.components.map((_, i) => one(i, input, base, values.options[i])));
      return finish(input, results, values);
    } finally {
      await rt.end(seq, values, results);
    }
  }

  return {
    spec,
    async score(rollout) {
      const completion = completionText(rollout.completion);
      const input: VerifierInput = { completion, reference: rollout.reference, rollout };
      const base = anyCached
        ? createHash("sha1")
            .update(completion)
            .update("\u0000")
            .update(JSON.stringify(rollout.reference ?? null))
            .digest("base64")
        : undefined;
      if (runtime) return scheduled(runtime, rollout, input, base);
      const results = await Promise.all(spec.components.map((_, i) => one(i, input, base)));
      return finish(input, results);
    },
    valuesAt(step) {
      return runtime?.resolve(step);
    },
    snapshot() {
      return runtime ? runtime.snapshot() : { version: 1, frontier: -1, schedules: {}, pending: [] };
    },
    restore(state) {
      if (runtime) runtime.restore(state);
      else if (Object.keys(state?.schedules ?? {}).length > 0)
        throw new ScheduleStateError("the state holds performance schedules, but this spec has none");
    },
    stats() {
      return {
        cacheHits: cache.hits,
        cacheMisses: cache.misses,
        cacheSize: cache.size,
        sharedHits,
        sharedMisses,
      };
    },
    usage() {
      const out: Record<string, CallUsage> = {};
      spec.components.forEach((c, i) => {
        // the component's instance, plus those made for scheduled options at other steps
        const fns = [inline.get(i), ...stepped[i]!.values().map((s) => s.fn)].filter(
          (f): f is VerifyFn => typeof f?.usage === "function",
        );
        if (fns.length === 0) return;
        const total = fns
          .map((f) => f.usage!())
          .reduce((a, b) => {
            const sum = { ...a };
            for (const k of Object.keys(b) as (keyof CallUsage)[]) sum[k] = a[k] + b[k];
            return sum;
          });
        out[c.name] = total;
      });
      return out;
    },
    async close() {
      fleet?.close();
      await pool?.close();
    },
  };
}
