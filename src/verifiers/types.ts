import type { z } from "zod";
import type { ComponentResult, Rollout } from "../core/types.js";
import type { CallUsage } from "../client/types.js";

/** What a verifier sees for one rollout. */
export interface VerifierInput {
  /** Completion text; for chat completions, the assistant turns joined by blank lines. */
  completion: string;
  /** The rollout's `reference`, `undefined` when absent. */
  reference: unknown;
  /** The whole rollout (labels, metadata, log-probs, step). */
  rollout: Rollout;
  /** Aborts when the component's deadline (`timeoutMs`) passes: HTTP verifiers stop their requests and retries. */
  signal?: AbortSignal;
}

/**
 * A ready verifier: pure function of one rollout. May be async (sandboxes, HTTP judges). A verifier that calls a
 * model endpoint exposes its client's accounting as `usage()` (reported as `summary.judges.<component>`).
 */
export type VerifyFn = ((input: VerifierInput) => ComponentResult | Promise<ComponentResult>) & {
  usage?: () => CallUsage;
};

/**
 * A verifier type, registered by its kebab-case name and instantiated from a spec component's options.
 * `options` validates the component's type options (camelCase keys); unknown keys are rejected.
 */
export interface VerifierDefinition<O = unknown> {
  /** kebab-case type name used in specs (`think-format`). */
  type: string;
  /** One line saying what it computes, printed by `rewardkit check`. */
  summary: string;
  /** Options schema (zod), applied to the component's type options. */
  options: z.ZodType<O>;
  /**
   * `worker`: runs in the worker pool under a hard deadline (anything that can be slow: CAS, user regexes).
   * `inline`: linear-time by construction; runs on the main thread.
   */
  isolation: "worker" | "inline";
  /** Default `passThreshold` for components of this type (default 1); e.g. 0 for penalties in (−∞, 0]. */
  defaultPassThreshold?: number;
  /** Default hard deadline per rollout, milliseconds (overridable by the component's `timeoutMs`). */
  defaultTimeoutMs: number;
  /**
   * Rollout fields the verifier reads besides the completion text and `reference` (e.g. `completion_tokens`,
   * `reference_logprobs`). They are part of the result-cache key, so list every one.
   */
  reads?: readonly string[];
  /**
   * An `inline` verifier whose async work enforces its own deadline (a sandbox with a process-group kill, an HTTP
   * call with an abort timer) and may legitimately wait in its own queue. Any other inline verifier that returns a
   * promise is raced against `timeoutMs` by the engine, so nothing it awaits can hang a run.
   */
  selfTimed?: boolean;
  /**
   * An `inline`, not `selfTimed` verifier that stops its own work when `input.signal` aborts (the engine then makes
   * one per call and aborts it at the component's deadline): HTTP judges and reward models.
   */
  abortable?: boolean;
  /** `false` for verifiers whose verdict is not a pure function of their inputs (state, time, remote models): never cached. */
  cacheable?: boolean;
  /** Builds the verify function from validated options. Called once per worker / engine. */
  create(options: O): VerifyFn;
  /**
   * A `worker` verifier's inline fast path, built once per engine from validated options: run on the engine's
   * thread before a rollout is sent to the pool, it returns exactly the result `create`'s function would (a sound
   * subset: only what it can decide with certainty, in linear time, without the slow machinery) or `undefined` to
   * hand the rollout over to a worker. It saves the thread hop and the worker start-up on the common cases.
   */
  fastPath?(options: O): (input: VerifierInput) => ComponentResult | undefined;
  /**
   * Whether this host can run the verifier with these options at all (the code sandbox's self-test), for
   * `rewardkit check --health` and the server's `/readyz`. Resolves undefined when it can, else why not (one line);
   * never rejects. Results may be cached per process. Absent: nothing to check. `sample`: rollouts of the task set
   * (`rewardkit check --rollouts`), for checks that depend on the data (the code verifier: modules the programs and
   * tests import that the sandbox lacks).
   */
  health?(options: O, sample?: readonly Rollout[]): Promise<string | undefined>;
  /**
   * The component's group-context stage, when it has one for these options: it is scored (or its per-rollout score
   * adjusted) after every per-rollout component, from what {@link GroupStage.member} kept of each rollout of the
   * group. Compiled on the engine's thread; `undefined` for none. Issues go through `ctx.issue`.
   */
  group?(options: O, ctx: GroupStageContext): GroupStage | undefined;
}

/**
 * What a group stage sees of the spec when it is compiled. Names resolve to component indexes; a stage reads the
 * *per-rollout* results of the components it names (never another stage's), so stages do not depend on each other.
 */
export interface GroupStageContext {
  /** This component's index in the spec. */
  index: number;
  /** Component names in spec order. */
  names: readonly string[];
  /** Each component's passThreshold (its fixed value). */
  passThresholds: readonly number[];
  /** Index of the component named `name` (read by this stage's option `key`); records an issue and returns −1 when there is none. */
  component(name: string, key: string): number;
  /** Records a problem with option `key`. */
  issue(key: string, message: string): void;
}

/**
 * A component's group-context stage: composition's second pass, after every per-rollout verdict (see
 * `src/compose/group-stage.ts`). Pure: the results are a function of the members.
 */
export interface GroupStage<M = unknown> {
  /** Per rollout: the small, JSON-ready data the stage needs later (`results`: the per-rollout verdicts, spec order). */
  member(input: VerifierInput, results: readonly ComponentResult[]): M;
  /** This component's results for one group, aligned with `members` (a lone rollout is a group of one). */
  score(members: readonly M[]): ComponentResult[];
}
