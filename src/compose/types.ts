import type { z } from "zod";
import type { GroupStage } from "../verifiers/types.js";

/** One component's input to an aggregator, after gates are applied. */
export interface AggregateTerm {
  name: string;
  /** The component's weight at this rollout's step. */
  weight: number;
  /** The component's score; `null` when unscorable. */
  score: number | null;
  /** False when the component's gate is closed: it must not contribute. */
  open: boolean;
  /** Score ≥ the component's passThreshold at this step (false when unscorable). */
  passed: boolean;
}

/** Combines component terms (in spec order) into one reward. Returns `null` only when the reward is undefined (a non-finite formula). */
export type Aggregator = (terms: readonly AggregateTerm[]) => number | null;

/** The score a term contributes: its score when open and scorable, else 0 (no credit). */
export function termValue(t: AggregateTerm): number {
  return t.open && t.score !== null ? t.score : 0;
}

/** What an aggregator's compile step knows of the spec's components. */
export interface AggregateContext {
  /** Component names in spec order. */
  names: readonly string[];
  /** Gate component index per component (undefined: no gate). */
  gates: ReadonlyArray<number | undefined>;
}

/** An aggregator ready to run, and what `check` says about it. */
export interface CompiledAggregator {
  aggregate: Aggregator;
  /** Components the aggregator reads (the others are reported only). Default: all. */
  uses?: boolean[];
  /** One line: the reward as a formula of component names, for `rewardkit check`. */
  describe: string;
}

/** An issue found while compiling the aggregate, with its path inside the `aggregate` block. */
export interface AggregateIssue {
  path: PropertyKey[];
  message: string;
}

/**
 * An aggregator type, registered by its kebab-case name. Written in a spec as `aggregate: <type>` or
 * `aggregate: {type: <type>, ...options}`.
 */
export interface AggregatorDefinition<O = unknown> {
  type: string;
  /** One line for `rewardkit check`. */
  summary: string;
  /** Options schema (everything in the `aggregate` block except `type`); unknown keys are errors. */
  options: z.ZodType<O>;
  /** True when component weights enter the reward: a component with weight 0 is reported only. */
  weighted: boolean;
  /** Validates options against the components and builds the aggregate function. */
  compile(options: O, ctx: AggregateContext): CompiledAggregator | { issues: AggregateIssue[] };
}

/**
 * What composition reads of a compiled spec (a `CompiledSpec` is one): each component's name, weight, pass
 * threshold, gate and group stage, the aggregate and the unscorable policy. Composition depends on this, not on the
 * spec compiler.
 */
export interface RewardSpec {
  components: ReadonlyArray<{ name: string; weight: number; passThreshold: number; gate?: number; stage?: GroupStage }>;
  aggregate: { aggregate: Aggregator; uses: readonly boolean[]; weighted: boolean };
  onUnscorable: "zero" | "exclude";
}
