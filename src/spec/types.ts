import type { EstimatorDefinition } from "../advantage/types.js";
import type { CompiledTokenAdvantages } from "./token-advantages.js";
import type { Aggregator } from "../compose/types.js";
import type { ScheduledOption } from "../schedule/types.js";
import type { GroupStage, VerifierDefinition } from "../verifiers/types.js";
import type { LoadedPlugin } from "../plugins/define.js";
import type { CurriculumOptions, FilterOptions, ReplayOptions } from "../curriculum/options.js";

/** A component ready to run: validated options and resolved verifier. */
export interface CompiledComponent {
  name: string;
  type: string;
  weight: number;
  passThreshold: number;
  /** Index (into `components`) of the gate component, if any. */
  gate?: number;
  timeoutMs: number;
  /** Dotted rollout path of this component's reference answer, when not `reference`. */
  referencePath?: string;
  /** Validated type options, defaults filled in (plain data, sent to workers). */
  options: Record<string, unknown>;
  definition: VerifierDefinition<unknown>;
  /** Absolute path of the plugin module defining this component's type (workers load it); absent for built-ins. */
  module?: string;
  /** The component's group-context stage, when it has one (see `src/compose/group-stage.ts`). */
  stage?: GroupStage;
}

/** A validated, resolved spec. `plain` is the normalized spec as plain data (what `check` prints, what workers get). */
export interface CompiledSpec {
  name: string;
  /** First 16 hex digits of the SHA-256 of the normalized spec (stable across key order and formatting). */
  hash: string;
  components: CompiledComponent[];
  aggregate: CompiledAggregate;
  /** Every scheduled value (empty for a spec without schedules). Component fields hold the step-0 values. */
  schedules: ScheduledOption[];
  onUnscorable: "zero" | "exclude";
  advantage: {
    estimator: EstimatorDefinition<unknown>;
    options: Record<string, unknown>;
    /** `advantage.tokens`: per-token advantages from dense components' token rewards (docs/dense.md). */
    tokens?: CompiledTokenAdvantages;
  };
  /** Per-prompt statistics settings (defaults when the spec has no `curriculum:`). */
  curriculum: CurriculumOptions;
  /** `filter: dapo`, when given. */
  filter?: FilterOptions;
  /** `replay:`, when given. */
  replay?: ReplayOptions;
  plain: PlainSpec;
  /** The plugin modules the spec loaded (`plugins:`), with what each defines; empty when none. */
  plugins: LoadedPlugin[];
}

/** The spec's aggregator, compiled. */
export interface CompiledAggregate {
  /** Aggregator type (`weighted-sum`, `formula` …). */
  type: string;
  /** Validated options, defaults filled. */
  options: Record<string, unknown>;
  aggregate: Aggregator;
  /** Per component: does the aggregator read it? */
  uses: boolean[];
  /** Do component weights enter the reward (a weight-0 component is then reported only)? */
  weighted: boolean;
  /** The reward as a formula of component names, for `rewardkit check`. */
  describe: string;
}

/** The normalized spec as plain JSON data. */
export interface PlainSpec {
  name: string;
  /** The spec's `plugins:` as written; absent when none. */
  plugins?: string[];
  components: Array<{
    name: string;
    type: string;
    weight: number;
    passThreshold: number;
    gate?: string;
    timeoutMs: number;
    reference?: string;
    options: Record<string, unknown>;
  }>;
  /** The aggregator's type, or `{type, ...options}` when it has options. */
  aggregate: string | ({ type: string } & Record<string, unknown>);
  /** Scheduled values by option path (`components.format.weight`) → `{schedule, ...options}`; absent when none. */
  schedules?: Record<string, Record<string, unknown>>;
  onUnscorable: string;
  advantage: {
    estimator: string;
    options: Record<string, unknown>;
    tokens?: { components: Record<string, number>; returns: boolean };
  };
  /** The `curriculum:`, `filter:` and `replay:` blocks with defaults filled; each absent when the spec has none. */
  curriculum?: CurriculumOptions;
  filter?: FilterOptions;
  replay?: ReplayOptions;
}
