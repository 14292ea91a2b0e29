import { z } from "zod";

/**
 * The spec's `curriculum:` block: how per-prompt statistics are kept (docs/curriculum.md). Every key has a default,
 * so a spec without the block still records statistics with `score --state` and the server.
 */
export const curriculumBlock = z.strictObject({
  /** A rollout succeeds when its reward is ≥ this (default 1: a verifiable reward's "correct"). */
  success: z.number().finite().default(1),
  /**
   * α of the exponentially weighted pass rate, per training step (default 0.1): a rollout seen at step s weighs
   * (1 − α)^(T − s) at the last step T, so the weights halve every ln 2 / −ln(1 − α) ≈ 6.6 steps.
   */
  alpha: z.number().gt(0).lt(1).default(0.1),
  /** Beta(a, b) prior of each prompt's success probability (default Beta(1, 1): uniform, Laplace's rule). */
  prior: z
    .strictObject({ a: z.number().positive().finite().default(1), b: z.number().positive().finite().default(1) })
    .default({ a: 1, b: 1 }),
  /** Most prompts kept (default 100 000; past it the least recently seen prompt is forgotten). */
  maxPrompts: z.number().int().min(1).max(10_000_000).default(100_000),
});
export type CurriculumOptions = z.infer<typeof curriculumBlock>;

/** The statistics settings when a spec has no `curriculum:` block. */
export const DEFAULT_CURRICULUM: CurriculumOptions = curriculumBlock.parse({});

const dapoObject = z.strictObject({
  type: z.literal("dapo"),
  /** Judge a group by this component's scores instead of the reward (verl's `filter_groups.metric`, e.g. `acc`). */
  component: z.string().min(1).optional(),
  /**
   * Prompts the trainer wants per batch (verl's `train_batch_size`); default: the number of groups in the batch, so
   * `need` = the groups dropped.
   */
  batchSize: z.number().int().positive().optional(),
});

/** The spec's `filter:` key: `dapo` or `{type: dapo, component?, batchSize?}`. */
export type FilterOptions = z.infer<typeof dapoObject>;
export const filterBlock = z
  .union([z.literal("dapo"), dapoObject])
  .transform((v): FilterOptions => (typeof v === "string" ? { type: "dapo" } : v));

/** The spec's `replay:` key. */
export const replayBlock = z.strictObject({
  /** K: the most groups kept. */
  size: z.number().int().min(1).max(100_000),
  /**
   * `recent` (default): the K most recent groups with signal. `score`: the K groups with the highest
   * σ · Σ|A| (TRL's `GRPOWithReplayBufferTrainer` rule).
   */
  keep: z.enum(["recent", "score"]).default("recent"),
});
export type ReplayOptions = z.infer<typeof replayBlock>;

/** What the curriculum code reads of a compiled spec (a `CompiledSpec` is one). */
export interface CurriculumSpec {
  hash: string;
  components: ReadonlyArray<{ name: string; passThreshold: number }>;
  curriculum: CurriculumOptions;
  filter?: FilterOptions;
  replay?: ReplayOptions;
}
