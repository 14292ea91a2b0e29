import { z } from "zod";
import { ok, unscorable } from "../../core/types.js";
import type { ComponentResult, Rollout } from "../../core/types.js";
import type { ReasonCode } from "../../core/reasons.js";
import type { VerifierDefinition, VerifyFn } from "../types.js";
import { AGGREGATE_NAMES, combineOutcome, firstError, STEP_AGGREGATIONS } from "./aggregate.js";
import type { Aggregated } from "./aggregate.js";
import { DEFAULT_MARKER, rolloutSteps } from "./steps.js";
import { rolloutOutcome } from "./outcome.js";
import { monteCarloOption, monteCarloScores } from "./monte-carlo.js";
import { potentialsFor, shapeRewards, shapingOption } from "./shaping.js";

/** Looks a verifier type up (the registry's `getVerifier`, injected so this module does not import the registry). */
export type VerifierLookup = (type: string) => VerifierDefinition<unknown> | undefined;

/** A nested verifier: `{type, ...its options}` (a spec component without the common keys). */
const nested = z.looseObject({ type: z.string().min(1) });

const STEP_NAMES = Object.keys(STEP_AGGREGATIONS) as [string, ...string[]];

const baseOptions = z.strictObject({
  /** How the step scores become the score; see `docs/process.md`. */
  aggregate: z.enum(AGGREGATE_NAMES).default("mean"),
  /** `first-error` (and the `first_error` detail): a step is wrong when its score is below this. */
  threshold: z.number().finite().default(0.5),
  /** η of `clip` / `clip-delta`: the top of the step-score range (1 for probabilities). */
  eta: z.number().finite().default(1),
  /** The process part P of `gated` / `mix` (any step aggregation; default `mean`). */
  base: z.enum(STEP_NAMES).default("mean"),
  /** `gated` / `mix`: the outcome o — `rollout` (the rollout's `outcome`: number, or boolean as 1/0) or a verifier `{type, ...options}` on the whole completion. */
  outcome: z.union([z.literal("rollout"), nested]).default("rollout"),
  /** `gated`: the outcome is right when o ≥ this. */
  outcomeThreshold: z.number().finite().default(1),
  /** `gated` / `mix`: w in o + w·P (schedulable: `{schedule: linear, …}`). */
  processWeight: z.number().finite().default(1),
  /** Score each step with this verifier `{type, ...options}` instead of reading the rollout's `step_scores`. */
  stepVerifier: nested.optional(),
  /** What the step verifier sees: `step` (the step's text) or `prefix` (steps 1..k joined by `stepSeparator`). */
  stepInput: z.enum(["step", "prefix"]).default("step"),
  stepSeparator: z.string().default("\n\n"),
  /** How the completion is split when the rollout has no `steps`. */
  split: z.enum(["blank-line", "newline", "marker", "tag"]).default("blank-line"),
  /** `split: marker`: regular-expression source of a step marker, flags `gim`. */
  marker: z.string().min(1).default(DEFAULT_MARKER),
  /** `split: tag`: `<tag>…</tag>`. */
  tag: z
    .string()
    .regex(/^[A-Za-z][\w:-]*$/, "a tag name")
    .default("step"),
  /** Use the rollout's `steps` array when present (default true). */
  rolloutSteps: z.boolean().default(true),
  /** A step that cannot be scored: `fail` (default: the component is unscorable with that step's reason), `skip` it, or count it as `zero`. */
  onUnscorableStep: z.enum(["fail", "skip", "zero"]).default("fail"),
  /**
   * Step scores from Monte-Carlo continuations (the rollout's `step_rollouts`) instead of `step_scores`: success rate,
   * any-success, or a Beta-Binomial posterior mean, as values or progress (docs/dense.md).
   */
  monteCarlo: monteCarloOption.optional(),
  /**
   * Potential-based shaping of the step rewards: F_k = γΦ(s_k) − Φ(s_{k−1}) added to each step reward (Φ of the
   * terminal state 0); the component score is unchanged (docs/dense.md).
   */
  shaping: shapingOption.optional(),
  /** α in the step advantages A_i + α·Â_{i,k} (see `docs/process.md`); schedulable. */
  advantageWeight: z.number().finite().nonnegative().default(1),
});
export type ProcessOptions = z.infer<typeof baseOptions>;

/** Validates a nested verifier spec against its own options schema; pushes issues under `path`. */
function checkNested(
  lookup: VerifierLookup,
  spec: z.infer<typeof nested>,
  path: string,
  ctx: z.core.$RefinementCtx<ProcessOptions>,
): void {
  const { type, ...rest } = spec;
  if (type === "process") {
    ctx.addIssue({
      code: "custom",
      path: [path, "type"],
      message: "a process component cannot nest another process component",
    });
    return;
  }
  const def = lookup(type);
  if (!def) {
    ctx.addIssue({ code: "custom", path: [path, "type"], message: `unknown verifier type "${type}"` });
    return;
  }
  const r = def.options.safeParse(rest);
  if (!r.success)
    for (const i of r.error.issues)
      ctx.addIssue({
        code: "custom",
        path: [path, ...i.path.map((p) => (typeof p === "symbol" ? String(p) : p))],
        message: i.message,
      });
}

/** Builds the verify function of a nested verifier spec (validated already). */
function build(lookup: VerifierLookup, spec: z.infer<typeof nested>): VerifyFn {
  const { type, ...rest } = spec;
  const def = lookup(type)!;
  return def.create(def.options.parse(rest));
}

async function safely(fn: VerifyFn, input: Parameters<VerifyFn>[0]): Promise<ComponentResult> {
  try {
    return await fn(input);
  } catch (e) {
    return unscorable("worker_error", { error: (e as Error).message });
  }
}

/** The rollout's `step_scores`, checked: numbers (null = unscorable step), `count` of them. */
function givenScores(rollout: Rollout, count: number): { scores: (number | null)[] } | { problem: string } {
  const s = rollout.step_scores;
  if (s === undefined || s === null)
    return { problem: "the rollout has no `step_scores` (and the component has no `stepVerifier`)" };
  if (!Array.isArray(s)) return { problem: "`step_scores` must be an array of numbers" };
  if (s.length !== count) return { problem: `${s.length} step_scores for ${count} steps` };
  for (let k = 0; k < s.length; k++) {
    const x: unknown = s[k];
    if (x !== null && (typeof x !== "number" || !Number.isFinite(x)))
      return { problem: `step_scores[${k}] is not a finite number or null` };
  }
  return { scores: s as (number | null)[] };
}

/**
 * The `process` verifier: scores a solution by its steps. Steps come from the rollout's `steps` or a split of the
 * completion; step scores from the rollout's `step_scores` (a PRM run elsewhere) or a nested `stepVerifier` run on
 * each step (or on each prefix, for a judge or reward model that grades "the solution so far"); the aggregation
 * turns them into one score. `details` records the split, the step scores, the per-step rewards r̃ that
 * `step_advantages` are built from, the first step below `threshold` and why steps were unscorable.
 *
 * Any verifier type in the registry can be a `stepVerifier`, so judge and reward-model components work per step as
 * soon as they are registered: nothing here knows their types. Runs in the worker pool: a nested verifier (a CAS, a
 * user regex) runs K times inside the component's one hard deadline (`timeoutMs`, default 10 s).
 * @param lookup the registry's `getVerifier`.
 */
export function createProcessVerifier(lookup: VerifierLookup): VerifierDefinition<ProcessOptions> {
  const options = baseOptions.superRefine((o, ctx) => {
    if (o.stepVerifier) checkNested(lookup, o.stepVerifier, "stepVerifier", ctx);
    if (o.stepVerifier && o.monteCarlo)
      ctx.addIssue({ code: "custom", path: ["monteCarlo"], message: "give stepVerifier or monteCarlo, not both" });
    if (typeof o.outcome === "object") checkNested(lookup, o.outcome, "outcome", ctx);
    if (o.split === "marker") {
      try {
        new RegExp(o.marker, "gim");
      } catch (e) {
        ctx.addIssue({
          code: "custom",
          path: ["marker"],
          message: `invalid regular expression: ${(e as Error).message}`,
        });
      }
    }
  });
  return {
    type: "process",
    summary:
      "process reward: step scores (rollout step_scores, a per-step verifier or Monte-Carlo step_rollouts) aggregated by min, product, last, mean, sum, first-error, clip-delta, gated or mix",
    options: options,
    isolation: "worker",
    defaultTimeoutMs: 10_000,
    // a nested verifier may read any rollout field, so no cache key could list them all
    cacheable: false,
    create(o) {
      const stepFn = o.stepVerifier ? build(lookup, o.stepVerifier) : undefined;
      const outcomeFn = typeof o.outcome === "object" ? build(lookup, o.outcome) : undefined;
      const kind = o.aggregate === "gated" || o.aggregate === "mix" ? o.aggregate : undefined;
      const agg = STEP_AGGREGATIONS[kind ? o.base : o.aggregate]!;
      return async ({ completion, reference, rollout }) => {
        const split = rolloutSteps(rollout, completion, o);
        if ("problem" in split) return unscorable("invalid_steps", { problem: split.problem });
        const { steps } = split;
        const details: Record<string, unknown> = { split: split.source, steps: steps.length };
        if (split.spans) details.step_spans = split.spans;
        if (steps.length === 0)
          return completion.trim() === "" && split.source !== "rollout"
            ? unscorable("no_completion", details)
            : unscorable("invalid_steps", { ...details, problem: "no steps" });

        // 1. step scores, with the reason of every step that has none
        let scores: (number | null)[];
        let reasons: (ReasonCode | null)[];
        if (stepFn) {
          const results = await Promise.all(
            steps.map((s, k) =>
              safely(stepFn, {
                completion: o.stepInput === "step" ? s : steps.slice(0, k + 1).join(o.stepSeparator),
                reference,
                rollout,
              }),
            ),
          );
          scores = results.map((r) => r.score);
          reasons = results.map((r) => (r.score === null ? (r.reason ?? "worker_error") : null));
        } else if (o.monteCarlo) {
          const mc = monteCarloScores(rollout.step_rollouts, steps.length, o.monteCarlo);
          if ("problem" in mc) return unscorable("invalid_steps", { ...details, problem: mc.problem });
          details.mc_values = mc.values;
          scores = mc.scores;
          reasons = scores.map((s) => (s === null ? "invalid_steps" : null));
        } else {
          const g = givenScores(rollout, steps.length);
          if ("problem" in g) return unscorable("invalid_steps", { ...details, problem: g.problem });
          scores = g.scores;
          reasons = scores.map((s) => (s === null ? "invalid_steps" : null));
        }
        details.step_scores = scores;
        if (reasons.some((r) => r !== null)) details.step_reasons = reasons;
        details.first_error = firstError(scores, o.threshold);

        // 2. unscorable steps
        const firstBad = reasons.findIndex((r) => r !== null);
        if (firstBad >= 0 && o.onUnscorableStep === "fail")
          return unscorable(reasons[firstBad]!, { ...details, unscorable_step: firstBad });
        const positions: number[] = [];
        const kept: number[] = [];
        scores.forEach((s, k) => {
          if (s !== null) {
            positions.push(k);
            kept.push(s);
          } else if (o.onUnscorableStep === "zero") {
            positions.push(k);
            kept.push(0);
          }
        });
        if (kept.length === 0)
          return unscorable(reasons[firstBad]!, { ...details, problem: "no step could be scored" });

        // 3. aggregation over the kept steps; step rewards back at their step positions
        let result: Aggregated & { gateOpen?: boolean } = agg.aggregate(kept, { threshold: o.threshold, eta: o.eta });
        if (o.aggregate === "first-error")
          result = { ...result, score: result.score < 0 ? -1 : positions[result.score]! };
        if (kind) {
          let outcome: number | undefined;
          if (outcomeFn) {
            const r = await safely(outcomeFn, { completion, reference, rollout });
            if (r.score === null)
              return unscorable(r.reason ?? "worker_error", { ...details, outcome: null, outcome_details: r.details });
            outcome = r.score;
          } else outcome = rolloutOutcome(rollout);
          if (outcome === undefined) return unscorable("no_outcome", details);
          details.outcome = outcome;
          details.process = result.score;
          result = combineOutcome(kind, result, outcome, o);
          if (result.gateOpen !== undefined) details.gate_open = result.gateOpen;
        }
        const rewards: (number | null)[] = steps.map(() => null);
        positions.forEach((p, j) => (rewards[p] = result.stepRewards[j]!));
        details.step_rewards = rewards;
        if (o.shaping) {
          const phi = potentialsFor(o.shaping, rollout.step_potentials, scores);
          if ("problem" in phi) return unscorable("invalid_steps", { ...details, problem: phi.problem });
          const shaped = shapeRewards(rewards, phi, o.shaping.gamma);
          details.shaping = { gamma: o.shaping.gamma, potentials: phi, terms: shaped.terms, unshaped: rewards };
          details.step_rewards = shaped.rewards;
        }
        details.advantage_weight = o.advantageWeight;
        return ok(result.score, undefined, details);
      };
    },
  };
}
