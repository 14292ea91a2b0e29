import type { StoreGuard } from "../store/guard.js";
import { fromFields, toFields } from "./stats.js";
import type { PromptStats } from "./stats.js";

/**
 * Per-prompt statistics shared by a fleet through the store: every replica merges each group's statistics into the
 * prompt's item of one index (`c:<spec hash>:prompts`) with one atomic `statsMerge` (counts and Σr, Σr² added,
 * EW counts decayed to the later step), so replicas never overwrite each other (no last-writer-wins) and the sums
 * equal one process's. Reads take the whole index. Through the {@link StoreGuard}: a store failure leaves the
 * replica on its local table, with a warning and `rewardkit_store_errors_total`.
 */
export class FleetStats {
  private readonly index: string;

  constructor(
    private readonly guard: StoreGuard,
    specHash: string,
    private readonly alpha: number,
    private readonly cap: number,
  ) {
    this.index = `c:${specHash}:prompts`;
  }

  /** Merges one group's statistics into prompt `id`. @returns false when the store failed. */
  merge(id: string, delta: PromptStats): Promise<boolean> {
    const { add, decayed } = toFields(delta);
    return this.guard.attempt(
      "curriculum",
      async (s) => {
        await s.statsMerge(this.index, id, { add, decayed, step: delta.lastStep, factor: 1 - this.alpha }, this.cap);
        return true;
      },
      () => false,
    );
  }

  /** Every prompt's fleet-wide statistics, least recently seen first; undefined when the store failed. */
  read(): Promise<Array<[string, PromptStats]> | undefined> {
    return this.guard.attempt(
      "curriculum",
      async (s) =>
        (await s.statsRead(this.index)).map(({ member, fields }): [string, PromptStats] => [
          member,
          fromFields(fields),
        ]),
      () => undefined,
    );
  }
}
