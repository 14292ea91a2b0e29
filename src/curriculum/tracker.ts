import type { StoreGuard } from "../store/guard.js";
import { dapoFilter } from "./dapo.js";
import type { DapoReport } from "./dapo.js";
import { FleetStats } from "./fleet.js";
import type { ScoredGroup } from "./groups.js";
import type { CurriculumSpec } from "./options.js";
import { ReplayBuffer } from "./replay.js";
import type { ReplayGroup } from "./replay.js";
import { groupStats } from "./stats.js";
import type { PromptStats, Thresholds } from "./stats.js";
import { CurriculumStateError, PromptTable } from "./table.js";
import type { PromptTableState } from "./table.js";
import type { StrategyParams } from "./strategies/types.js";
import { curriculumRows } from "./weights.js";
import type { CurriculumRow } from "./weights.js";

/** The `curriculum` member of a `--state` file: the prompt table, and the replay buffer when the spec has one. */
export interface CurriculumState extends PromptTableState {
  /** The spec's Beta prior (what `rewardkit curriculum` smooths with). */
  prior: { a: number; b: number };
  replay?: ReplayGroup[];
}

/** What recording a batch of groups gives back. */
export interface Recorded {
  /** With `filter: dapo`: one flag per group (true: kept) and the batch report. */
  filter?: { keep: boolean[]; report: DapoReport };
}

/**
 * A spec's curriculum state: per-prompt statistics (a bounded {@link PromptTable}, shared through the store with
 * {@link share}), the `filter: dapo` decision per batch, and the `replay:` buffer. One per scoring run or server.
 */
export class CurriculumTracker {
  readonly table: PromptTable;
  readonly replay: ReplayBuffer | undefined;
  /** Component names in spec order (what {@link scoredGroups} takes). */
  readonly names: readonly string[];
  private readonly thresholds: Thresholds;
  private fleet: FleetStats | undefined;
  /** Store merges not yet answered (read before the fleet's statistics are). */
  private readonly merging = new Set<Promise<void>>();

  constructor(readonly spec: CurriculumSpec) {
    const o = spec.curriculum;
    this.table = new PromptTable(o.alpha, o.maxPrompts);
    this.replay = spec.replay ? new ReplayBuffer(spec.replay) : undefined;
    this.names = spec.components.map((c) => c.name);
    this.thresholds = {
      success: o.success,
      components: Object.fromEntries(spec.components.map((c) => [c.name, c.passThreshold])),
    };
  }

  /** Shares the statistics with a fleet through the store (reads then come from the store). */
  share(guard: StoreGuard): void {
    this.fleet = new FleetStats(guard, this.spec.hash, this.spec.curriculum.alpha, this.spec.curriculum.maxPrompts);
  }

  /** Applies `filter: dapo` to a batch's groups (no state changes). */
  filter(groups: readonly ScoredGroup[]): Recorded["filter"] {
    return this.spec.filter ? dapoFilter(groups, this.spec.filter) : undefined;
  }

  /**
   * Records a batch's groups: each group's statistics merge into its prompt's (here and, when shared, in the store),
   * and groups with signal that the filter kept (`keep`, default all) are offered to the replay buffer. This
   * process's table and the replay buffer are updated before it returns its promise; the promise settles when the
   * store has the merges too (a server does not wait for that: {@link prompts} does).
   */
  record(groups: readonly ScoredGroup[], keep?: readonly boolean[]): Promise<void> {
    const merges: Array<Promise<boolean>> = [];
    for (const [i, g] of groups.entries()) {
      const s = groupStats(g, this.thresholds);
      this.table.add(g.key, s);
      if (this.fleet) merges.push(this.fleet.merge(g.key, s));
      if (keep?.[i] === false) continue;
      this.replay?.offer({
        group: g.group,
        prompt_id: g.key,
        step: g.step,
        ...(g.prompt !== undefined ? { prompt: g.prompt } : {}),
        rollouts: g.rollouts,
      });
    }
    if (merges.length === 0) return Promise.resolve();
    // the store's guard turns a failure into `false`: nothing here rejects
    const done = Promise.all(merges).then(() => {
      this.merging.delete(done);
    });
    this.merging.add(done);
    return done;
  }

  /** Resolves once every store merge started so far has been answered (or failed: the guard's fallback). */
  async settled(): Promise<void> {
    if (this.merging.size > 0) await Promise.all(this.merging);
  }

  /**
   * Every prompt's statistics: the fleet's when shared and the store answers (after this process's own merges still
   * on their way), else this process's.
   */
  async prompts(): Promise<Array<[string, PromptStats]>> {
    await this.settled();
    return (await this.fleet?.read()) ?? this.table.entries();
  }

  /** The prompts weighed by a strategy (see `curriculumRows`). */
  async rows(strategy: string, params: StrategyParams = {}): Promise<CurriculumRow[]> {
    return curriculumRows(await this.prompts(), this.spec.curriculum.prior, strategy, params);
  }

  snapshot(): CurriculumState {
    return {
      ...this.table.snapshot(),
      prior: this.spec.curriculum.prior,
      ...(this.replay ? { replay: this.replay.snapshot() } : {}),
    };
  }

  /**
   * Resumes from a `--state` file's `curriculum` member.
   * @throws {CurriculumStateError} naming the field when it is malformed.
   */
  restore(state: unknown): void {
    this.table.restore(state);
    const replay = (state as { replay?: unknown }).replay;
    if (replay === undefined || !this.replay) return;
    if (!Array.isArray(replay)) throw new CurriculumStateError("curriculum.replay: expected an array of groups");
    replay.forEach((g: unknown, i) => {
      const o = g as Partial<ReplayGroup> | null;
      if (o === null || typeof o !== "object" || typeof o.group !== "string" || !Array.isArray(o.rollouts))
        throw new CurriculumStateError(`curriculum.replay[${i}]: expected {group, prompt_id, step, score, rollouts}`);
    });
    this.replay.restore(replay as ReplayGroup[]);
  }
}
