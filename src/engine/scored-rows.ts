import { componentScore, readReward } from "../advantage/columns.js";
import { zeroVarianceGroups } from "../advantage/filter.js";
import { buildGroupIndex, StringIds } from "../advantage/groups.js";
import { resolveEstimator } from "../advantage/resolve.js";
import type { AdvantageInput, EstimatorDefinition } from "../advantage/types.js";
import { completionText } from "../core/completion.js";
import type { Rollout } from "../core/types.js";
import { getPath } from "../io/fields.js";
import type { CompiledSpec } from "../spec/types.js";

/**
 * The ONE road from scored rows to advantages, shared by the score job (`engine/advantage-batch.ts`),
 * `rewardkit advantages` (`engine/advantages-file.ts`) and `POST /v1/advantages`: one reading rule per field
 * (reward, components, response length, stratum), one collector, one meaning of `onUnscorable` and `filter`.
 */

/** What to compute and how to read the rows. */
export interface AdvantagePlan {
  estimator: EstimatorDefinition<unknown>;
  /** Validated options (preset applied, defaults filled in). */
  options: Record<string, unknown>;
  /**
   * `zero`: an unscorable component of a rollout whose reward is a number is a scored 0 (the reward counted it as
   * 0: `onUnscorable: zero`), so multi-component estimators see exactly what a scored 0 would give.
   * `exclude`: it stays unscorable (NaN): left out of that component's group statistics, adding 0 (TRL's nansum);
   * a rollout with no scorable component is left out of batch statistics and gets 0.
   */
  onUnscorable: "zero" | "exclude";
  /** Dotted field holding the stratum key, for estimators that need strata. */
  stratumKey?: string;
}

/** Components of a spec that count in its reward, with their weights (the multi-component default). */
type Counting = readonly { name: string; weight: number }[];

/**
 * Fills a multi-component estimator's `components` and `weights` with the components that count in the spec's
 * reward (weight ≠ 0) and the spec's weights, unless the options name their own, so the advantage decomposes the
 * reward the spec defines. Other estimators' options are returned unchanged.
 */
export function withSpecComponents(
  estimator: EstimatorDefinition<unknown>,
  options: Record<string, unknown>,
  counting: Counting,
): Record<string, unknown> {
  if (!(estimator.needs ?? []).includes("components")) return options;
  const weights = options.weights as Record<string, number> | undefined;
  return {
    ...options,
    components: options.components ?? counting.map((c) => c.name),
    weights:
      weights && Object.keys(weights).length > 0
        ? weights
        : Object.fromEntries(counting.map((c) => [c.name, c.weight])),
  };
}

/** The spec's own advantage step: its estimator and options, its counting components, its `onUnscorable`. */
export function planFromSpec(spec: CompiledSpec): AdvantagePlan {
  const { estimator } = spec.advantage;
  const options = withSpecComponents(
    estimator,
    spec.advantage.options,
    spec.components.filter((c) => c.weight !== 0),
  );
  return { estimator, options, onUnscorable: spec.onUnscorable, ...stratum(estimator, options) };
}

/**
 * A plan from an estimator name, preset and options (the `advantages` command, `/v1/advantages`).
 * @param spec when given (the server), multi-component defaults come from its counting components.
 * @throws {UserError} on an unknown estimator or preset, or invalid options.
 */
export function planFor(
  name: string,
  preset: string | undefined,
  options: Record<string, unknown>,
  onUnscorable: "zero" | "exclude",
  spec?: CompiledSpec,
): AdvantagePlan {
  const r = resolveEstimator(name, preset, options);
  const opts = spec
    ? withSpecComponents(
        r.estimator,
        r.options,
        spec.components.filter((c) => c.weight !== 0),
      )
    : r.options;
  return { estimator: r.estimator, options: opts, onUnscorable, ...stratum(r.estimator, opts) };
}

function stratum(estimator: EstimatorDefinition<unknown>, options: Record<string, unknown>): { stratumKey?: string } {
  if (!(estimator.needs ?? []).includes("strata")) return {};
  return { stratumKey: typeof options.key === "string" ? options.key : "stratum" };
}

/**
 * Response length in tokens, one rule for every path: the sampler's count when it is a finite number ≥ 0, else
 * ceil(characters / 4) of the completion text (the approximation `overlong` uses too), else NaN (unknown).
 */
export function responseLength(tokens: unknown, completion: unknown): number {
  if (typeof tokens === "number" && Number.isFinite(tokens) && tokens >= 0) return tokens;
  if (typeof completion === "string" || Array.isArray(completion))
    return Math.ceil(completionText(completion as Rollout["completion"]).length / 4);
  return NaN;
}

/** Response length of a rollout ({@link responseLength} of `completion_tokens` and `completion`). */
export function rolloutLength(rollout: Rollout): number {
  return responseLength(rollout.completion_tokens, rollout.completion);
}

const MISSING = "\u0000missing";

/**
 * The stratum a raw key value names, one rule for every path: a missing or null key is its own stratum ("missing",
 * never the string "null"); strings, numbers and booleans are compared by type and value (`"1"` ≠ `1`); objects
 * and arrays by their JSON text (never `"[object Object]"`).
 */
export function stratumOf(value: unknown): string {
  if (value === undefined || value === null) return MISSING;
  if (typeof value === "string") return `s:${value}`;
  return JSON.stringify(value);
}

/** One scored rollout as the estimators read it. */
export interface ScoredRow {
  group: string;
  /** A finite number, or null (no advantage; left out of every statistic). */
  reward: number | null;
  /**
   * Component scores: an array aligned with the names given to {@link ScoredRows}' constructor (null/NaN =
   * unscorable), or `{name: {score} | number}` as a scored file writes them (new names are added).
   */
  components?: readonly (number | null)[] | Record<string, unknown>;
  /** Response length in tokens; NaN or absent = unknown. */
  length?: number;
  /** The raw stratum key value (absent or null = missing). */
  stratum?: unknown;
}

/** Where a scored record's fields are read from. */
export interface ScoredFields {
  /** `--map` canonical name → dotted source path. */
  map?: Record<string, string>;
  /** Dotted path of the response length (default `completion_tokens`; `map.completion_tokens` wins). */
  lengthField?: string;
  /** Dotted path of the stratum key (estimators that need strata). */
  stratumKey?: string;
}

/**
 * Reads one scored record (`rewardkit score` output, or any `{group, reward, components?}` object) into a
 * {@link ScoredRow}; `group` comes from `toRollout`, which validated it.
 * @returns the row, or the field and problem that keep the record out (reported with file and line by the caller).
 */
export function readScoredRecord(
  record: Record<string, unknown>,
  group: string,
  f: ScoredFields,
): { row: ScoredRow } | { problem: { field: string; message: string } } {
  const map = f.map ?? {};
  const rewardField = map.reward ?? "reward";
  const reward = readReward(getPath(record, rewardField));
  if (reward === undefined) return { problem: { field: rewardField, message: "expected a number or null" } };
  const components = getPath(record, map.components ?? "components");
  const row: ScoredRow = {
    group,
    reward,
    length: responseLength(
      getPath(record, map.completion_tokens ?? f.lengthField ?? "completion_tokens"),
      getPath(record, map.completion ?? "completion"),
    ),
  };
  if (components !== null && typeof components === "object" && !Array.isArray(components))
    row.components = components as Record<string, unknown>;
  if (f.stratumKey !== undefined) row.stratum = getPath(record, f.stratumKey);
  return { row };
}

/** The batch's advantages with what they were computed from, and what a user should know about the run. */
export interface ScoredResult {
  input: AdvantageInput;
  /** Shape [n], NaN = null (null reward, or filtered out). */
  advantages: Float64Array;
  /** Rollouts with a reward whose advantage is null because `filter: zero_variance` dropped their group. */
  filtered: number;
  /** What a user should be told: rollouts without a response length under `whiten: auto`, without a stratum key. */
  warnings: string[];
  /** How batch statistics were weighted, for estimators with a batch step: `token`, `rollout`, or undefined (none). */
  whitened?: "token" | "rollout";
}

/**
 * Collects scored rows (numbers only: O(n · components) memory) and computes the plan's advantages over the whole
 * batch. Rows keep their order; every row added gets exactly one advantage (null where undefined).
 */
export class ScoredRows {
  private readonly rewards: number[] = [];
  private readonly groupIds: number[] = [];
  private readonly groups = new StringIds();
  private readonly names = new Map<string, number>();
  private readonly cols: number[][] = [];
  private readonly lengths: number[] = [];
  private unknownLengths = 0;
  private readonly strata: number[] = [];
  private strataIds: StringIds | undefined; // only for estimators that read strata
  private missingStrata = 0;

  /** @param componentNames the names array-valued `components` are aligned with (the spec's components). */
  constructor(
    readonly plan: AdvantagePlan,
    componentNames: readonly string[] = [],
  ) {
    for (const n of componentNames) this.column(n);
  }

  private column(name: string): number[] {
    let j = this.names.get(name);
    if (j === undefined) {
      j = this.names.size;
      this.names.set(name, j);
      this.cols.push([]);
    }
    return this.cols[j]!;
  }

  /** Adds one row; returns its position in the batch. */
  add(row: ScoredRow): number {
    const k = this.rewards.length;
    this.rewards.push(row.reward ?? NaN);
    this.groupIds.push(this.groups.idOf(row.group));
    const c = row.components;
    if (Array.isArray(c)) c.forEach((v: number | null, j: number) => (this.cols[j]![k] = v ?? NaN));
    else if (c) for (const [name, v] of Object.entries(c)) this.column(name)[k] = componentScore(v);
    const len = row.length ?? NaN;
    if (!(len >= 0)) this.unknownLengths++;
    this.lengths.push(len);
    if (this.plan.stratumKey !== undefined) {
      if (row.stratum === undefined || row.stratum === null) this.missingStrata++;
      this.strata.push((this.strataIds ??= new StringIds()).idOf(stratumOf(row.stratum)));
    }
    return k;
  }

  /**
   * Replaces row k's reward and array-valued component scores (a group stage rescored it after {@link add}).
   * @throws RangeError when row k was never added.
   */
  set(k: number, reward: number | null, components: readonly (number | null)[]): void {
    if (!(k >= 0 && k < this.rewards.length)) throw new RangeError(`row ${k} of ${this.rewards.length}`);
    this.rewards[k] = reward ?? NaN;
    components.forEach((v, j) => (this.cols[j]![k] = v ?? NaN));
  }

  /** Rows added. */
  get size(): number {
    return this.rewards.length;
  }

  /** Groups seen. */
  get groupCount(): number {
    return this.groups.size;
  }

  /**
   * The estimator's input: rewards, groups, every component column (unscorable → 0 on rows with a reward under
   * `onUnscorable: zero`; a row without a component counts as unscorable there), response lengths when every row
   * has one, strata when the estimator needs them.
   */
  input(): AdvantageInput {
    const n = this.rewards.length;
    const rewards = Float64Array.from(this.rewards);
    const zero = this.plan.onUnscorable === "zero";
    const scores = this.cols.map((col) => {
      const s = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const v = col[i];
        s[i] = v === undefined || v !== v ? (zero && rewards[i] === rewards[i] ? 0 : NaN) : v;
      }
      return s;
    });
    const input: AdvantageInput = {
      rewards,
      groups: buildGroupIndex(this.groupIds),
      components: { names: [...this.names.keys()], scores },
    };
    if (this.unknownLengths === 0) input.lengths = Float64Array.from(this.lengths);
    if (this.plan.stratumKey !== undefined) input.strata = Int32Array.from(this.strata);
    return input;
  }

  /**
   * Advantages of the batch.
   * @throws Error from the estimator (a missing input it needs, an unknown component …), prefixed with its name.
   */
  compute(): ScoredResult {
    const input = this.input();
    const { estimator, options } = this.plan;
    let advantages: Float64Array;
    try {
      advantages = estimator.compute(input, options);
    } catch (e) {
      throw new Error(`estimator ${estimator.name}: ${(e as Error).message}`);
    }
    let filtered = 0;
    if (options.filter === "zero_variance") {
      const flat = zeroVarianceGroups(input.rewards, input.groups);
      const { order, offsets } = input.groups;
      for (let g = 0; g < input.groups.count; g++) {
        if (flat[g])
          for (let k = offsets[g]!; k < offsets[g + 1]!; k++)
            if (input.rewards[order[k]!] === input.rewards[order[k]!]) filtered++;
      }
    }
    return { input, advantages, filtered, warnings: this.warnings(), ...this.whitened(input) };
  }

  private whitened(input: AdvantageInput): { whitened?: "token" | "rollout" } {
    const o = this.plan.options;
    if (o.whiten === undefined || o.batchNorm === "none") return {};
    return {
      whitened: o.whiten === "token" || (o.whiten === "auto" && input.lengths !== undefined) ? "token" : "rollout",
    };
  }

  private warnings(): string[] {
    const out: string[] = [];
    if (this.plan.options.whiten === "auto" && this.plan.options.batchNorm !== "none" && this.unknownLengths > 0) {
      out.push(
        `${this.unknownLengths} rollouts have no response length (completion_tokens or completion): batch statistics are per rollout, not per token as the peers whiten`,
      );
    }
    if (this.plan.stratumKey !== undefined && this.missingStrata > 0)
      out.push(
        `${this.missingStrata} rollouts lack the stratum key ${this.plan.stratumKey}: each group's such rollouts form one "missing" stratum`,
      );
    return out;
  }
}
