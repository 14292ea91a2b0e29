import { z } from "zod";
import { curriculumBlock, filterBlock, replayBlock } from "../curriculum/options.js";

/** Keys every component has; everything else on a component is an option of its `type`. */
export const componentBase = z.object({
  /** Unique name; becomes the key in the output's `components`. */
  name: z.string().regex(/^[A-Za-z_][\w.-]*$/, "use letters, digits, _ . - (starting with a letter or _)"),
  /** Verifier type, kebab-case (`math`, `think-format`). */
  type: z.string().min(1),
  /** Weight in the aggregate (default 1; 0 reports the component without counting it). May be a schedule. */
  weight: z.number().finite().default(1),
  /** The component passes when its score >= passThreshold (default 1, or the type's own default). Used by gates, pass rates and labels. May be a schedule. */
  passThreshold: z.number().finite().optional(),
  /** Name of another component; this one counts only when that one passes. */
  gate: z.string().min(1).optional(),
  /** Hard deadline per rollout in milliseconds (default: the verifier's own). */
  timeoutMs: z.number().int().positive().max(600_000).optional(),
  /** Dotted path in the rollout to this component's reference answer (`labels.schema`, `reference.answer`); default `reference`. */
  reference: z.string().min(1).optional(),
});
export const COMPONENT_BASE_KEYS = new Set(Object.keys(componentBase.shape));
/** Component keys that cannot hold a schedule (`{schedule: ...}`): they are not numbers, or not per-step. */
export const UNSCHEDULABLE_KEYS = new Set(["name", "type", "gate", "timeoutMs", "reference"]);

/** The `advantage:` block: estimator name, an optional peer preset, plus its options (which override the preset's). */
export const advantageBlock = z.looseObject({
  /** Estimator name as verl spells it (`grpo`, `dr_grpo`, `rloo`, `gdpo` …; see docs/advantages.md). */
  estimator: z.string().min(1).default("grpo"),
  /** A peer's convention for the estimator (`verl`, `trl`, `openrlhf`, `nemo`, `open-instruct`). */
  preset: z.string().min(1).optional(),
});

/** The top level of a reward spec (component options are validated per type afterwards). */
export const specSchema = z.strictObject({
  /** Spec name, reported in summaries and by the server; default: the file's base name. */
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  /** Modules defining verifiers, aggregators, estimators or schedules (`defineVerifier` …), paths relative to the spec. */
  plugins: z.array(z.string().min(1)).optional(),
  components: z.array(z.looseObject(componentBase.shape)).min(1, "a spec needs at least one component"),
  /**
   * How components combine: an aggregator type (`weighted-sum`, the default) or `{type: <type>, ...options}`,
   * e.g. `{type: formula, formula: "0.8 * accuracy + 0.2 * format"}`. Options are validated by the aggregator.
   */
  aggregate: z.union([z.string().min(1), z.looseObject({ type: z.string().min(1) })]).default("weighted-sum"),
  /**
   * What an unscorable component costs: `zero` (default) — it contributes 0 and `reward` stays a number;
   * `exclude` — the rollout's `reward` and `advantage` become null (left out of its group's statistics).
   * Only components that count (weight ≠ 0, gate passed) matter.
   */
  onUnscorable: z.enum(["zero", "exclude"]).default("zero"),
  advantage: advantageBlock.optional(),
  /** Per-prompt statistics settings: success threshold, EW α, Beta prior, most prompts kept (docs/curriculum.md). */
  curriculum: curriculumBlock.optional(),
  /** `dapo`: DAPO's dynamic sampling, groups whose rewards (or a component's scores) are all equal are dropped. */
  filter: filterBlock.optional(),
  /** `{size: K, keep: recent | score}`: a buffer of the K groups with signal, handed back on request. */
  replay: replayBlock.optional(),
});
export type SpecInput = z.input<typeof specSchema>;
