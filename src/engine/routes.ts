/**
 * Scoring a mixed batch through a routed spec (src/spec/routes.ts): each rollout goes to the sub-spec its `by`
 * field names and is scored exactly as that sub-spec alone would score it; advantages are computed by each route's
 * own estimator over that route's rollouts, so group statistics are per group as usual and batch statistics
 * (whitening, batch std) are per route. See docs/routing.md.
 */
import type { Rollout } from "../core/types.js";
import { getPath } from "../io/fields.js";
import { chooseRoute } from "../spec/routes.js";
import type { RoutedSpec } from "../spec/routes.js";
import type { CompiledSpec } from "../spec/types.js";
import type { CallUsage } from "../client/types.js";
import { scorePlainBatch } from "./plain-batch.js";
import { planFor, rolloutLength, ScoredRows } from "./scored-rows.js";
import type { ScoredRow } from "./scored-rows.js";
import { createScorer } from "./scorer.js";
import type { RolloutScore, Scorer, ScorerOptions, ScorerStats } from "./scorer.js";

/** Why a rollout has no route (its `by` field and the value it holds). */
export interface RouteProblem {
  field: string;
  message: string;
}

/** One scorer per route over a routed spec. Call `close()` when done. */
export interface RoutedScorer {
  readonly routed: RoutedSpec;
  /** Route key → the scorer of its sub-spec (worker pools are made only for routes with worker verifiers). */
  readonly scorers: ReadonlyMap<string, Scorer>;
  stats(): ScorerStats;
  /** Model-call accounting per `route/component`. */
  usage(): Record<string, CallUsage>;
  close(): Promise<void>;
}

/** Is this a routed scorer? */
export function isRoutedScorer(s: Scorer | RoutedScorer): s is RoutedScorer {
  return (s as RoutedScorer).routed !== undefined;
}

/** Builds one {@link createScorer} per route (the options apply to each). */
export function createRoutedScorer(routed: RoutedSpec, options: ScorerOptions = {}): RoutedScorer {
  const scorers = new Map<string, Scorer>();
  for (const [key, spec] of routed.routes) scorers.set(key, createScorer(spec, options));
  return {
    routed,
    scorers,
    stats() {
      const s: ScorerStats = { cacheHits: 0, cacheMisses: 0, cacheSize: 0, sharedHits: 0, sharedMisses: 0 };
      for (const x of scorers.values()) {
        const t = x.stats();
        for (const k of Object.keys(s) as (keyof ScorerStats)[]) s[k] += t[k];
      }
      return s;
    },
    usage() {
      const out: Record<string, CallUsage> = {};
      for (const [key, x] of scorers) for (const [name, u] of Object.entries(x.usage())) out[`${key}/${name}`] = u;
      return out;
    },
    async close() {
      await Promise.all([...scorers.values()].map((x) => x.close()));
    },
  };
}

/** The route of each rollout (key, or null with the problem), and the rollouts of each route by batch index. */
export interface Partition {
  keys: (string | null)[];
  problems: (RouteProblem | undefined)[];
  parts: Map<string, number[]>;
}

/** Routes every rollout of a batch by `routed.by` (see {@link chooseRoute}). */
export function partition(routed: RoutedSpec, rollouts: readonly Rollout[]): Partition {
  const keys: (string | null)[] = [];
  const problems: (RouteProblem | undefined)[] = [];
  const parts = new Map<string, number[]>();
  rollouts.forEach((r, i) => {
    const c = chooseRoute(routed, getPath(r, routed.by));
    if ("key" in c) {
      keys.push(c.key);
      problems.push(undefined);
      let p = parts.get(c.key);
      if (!p) parts.set(c.key, (p = []));
      p.push(i);
    } else {
      keys.push(null);
      problems.push({ field: c.field, message: c.message });
    }
  });
  return { keys, problems, parts };
}

/**
 * Groups whose rollouts fall in more than one route: group → the routes, in order of appearance. A group is one
 * prompt, and the route field belongs to the prompt, so such a group is a data error: its rollouts keep their
 * rewards (each scored by its own route) but get no advantage, and a warning names the group.
 */
export function splitGroups(groups: ArrayLike<string>, keys: ArrayLike<string | null>): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  for (let i = 0; i < groups.length; i++) {
    const k = keys[i];
    if (k === null || k === undefined) continue;
    const g = groups[i]!;
    const list = seen.get(g);
    if (!list) seen.set(g, [k]);
    else if (!list.includes(k)) list.push(k);
  }
  for (const [g, list] of seen) if (list.length < 2) seen.delete(g);
  return seen;
}

/** The warning for groups split across routes (undefined when none is). */
export function splitWarning(split: ReadonlyMap<string, string[]>): string | undefined {
  if (split.size === 0) return undefined;
  const shown = [...split.entries()].slice(0, 5).map(([g, ks]) => `${JSON.stringify(g)} (${ks.join(", ")})`);
  return `${split.size} group${split.size > 1 ? "s span" : " spans"} several routes: ${shown.join(", ")}${split.size > 5 ? " …" : ""}; their rollouts are scored by their own routes but get no advantage (a group is one prompt: route on a field of the prompt)`;
}

/**
 * A routed spec's batch-wide advantages (its own `advantage:` block): one estimator over every row given, in order,
 * so batch statistics (whitening, a batch std) span all routes. Rows carry group, reward, response length and, for
 * estimators with strata, the stratum key's value.
 * @returns advantages, shape [rows.length] (NaN where none), and the estimator's warnings.
 */
export function batchWideAdvantages(
  routed: RoutedSpec,
  rows: readonly ScoredRow[],
): { advantages: Float64Array; warnings: string[] } {
  const a = routed.advantage!;
  const collector = new ScoredRows(planFor(a.estimator.name, undefined, a.options, "zero"));
  for (const r of rows) collector.add(r);
  const out = collector.compute();
  return { advantages: out.advantages, warnings: out.warnings };
}

/** The stratum key of the routed spec's batch-wide estimator, when it needs strata. */
export function batchStratumKey(routed: RoutedSpec): string | undefined {
  const a = routed.advantage;
  if (!a || !(a.estimator.needs ?? []).includes("strata")) return undefined;
  return typeof a.options.key === "string" ? a.options.key : "stratum";
}

/**
 * Replaces per-route advantages with the batch-wide ones when the routed spec has its own `advantage:` block (the
 * rollouts with a score, in order); a no-op otherwise. @returns the estimator's warnings.
 */
export function applyBatchWide(
  routed: RoutedSpec,
  rollouts: readonly Rollout[],
  scores: readonly (RolloutScore | null)[],
  advantages: Float64Array,
): string[] {
  if (!routed.advantage) return [];
  const key = batchStratumKey(routed);
  const idx = scores.map((s, i) => (s ? i : -1)).filter((i) => i >= 0);
  const { advantages: adv, warnings } = batchWideAdvantages(
    routed,
    idx.map((i) => ({
      group: rollouts[i]!.group,
      reward: scores[i]!.reward,
      length: rolloutLength(rollouts[i]!),
      ...(key !== undefined ? { stratum: getPath(rollouts[i], key) } : {}),
    })),
  );
  idx.forEach((i, j) => (advantages[i] = adv[j]!));
  return warnings;
}

/** Scores of a mixed batch in input order. */
export interface RoutedBatchScore {
  /** Per rollout: its route key, or null when no route took it (then `scores[i]` is null and `problems[i]` says why). */
  routes: (string | null)[];
  /** Per rollout: its route's verdicts (components in that route's order) and reward; null without a route. */
  scores: (RolloutScore | null)[];
  /** Per rollout: its route's sub-spec; null without a route. */
  specs: (CompiledSpec | null)[];
  /** Advantage per rollout, shape [n], from its route's estimator over its route's rollouts; NaN where none. */
  advantages: Float64Array;
  problems: (RouteProblem | undefined)[];
  warnings: string[];
}

/**
 * Scores an in-memory mixed batch: every route's rollouts through {@link scorePlainBatch} with that route's scorer (the
 * routes run concurrently), then put back in input order. A rollout without a route gets `scores[i] = null` and its
 * problem; the rest is scored. A group split across routes gets no advantage (see {@link splitGroups}).
 */
export async function scoreRoutedBatch(scorer: RoutedScorer, rollouts: readonly Rollout[]): Promise<RoutedBatchScore> {
  const { keys, problems, parts } = partition(scorer.routed, rollouts);
  const n = rollouts.length;
  const scores: (RolloutScore | null)[] = new Array<RolloutScore | null>(n).fill(null);
  const specs: (CompiledSpec | null)[] = new Array<CompiledSpec | null>(n).fill(null);
  const advantages = new Float64Array(n).fill(NaN);
  await Promise.all(
    [...parts.entries()].map(async ([key, idx]) => {
      const s = scorer.scorers.get(key)!;
      const b = await scorePlainBatch(
        s,
        idx.map((i) => rollouts[i]!),
      );
      idx.forEach((i, j) => {
        scores[i] = b.scores[j]!;
        specs[i] = s.spec;
        advantages[i] = b.advantages[j]!;
      });
    }),
  );
  const warnings = applyBatchWide(scorer.routed, rollouts, scores, advantages);
  const split = splitGroups(
    rollouts.map((r) => r.group),
    keys,
  );
  if (split.size > 0) rollouts.forEach((r, i) => split.has(r.group) && (advantages[i] = NaN));
  const w = splitWarning(split);
  return { routes: keys, scores, specs, advantages, problems, warnings: [...warnings, ...(w ? [w] : [])] };
}
