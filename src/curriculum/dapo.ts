import type { FilterOptions } from "./options.js";
import type { GroupObservation } from "./stats.js";

/** The filter's answer for one batch (snake_case: it goes out as JSON). */
export interface DapoReport {
  /** Groups (prompts) in the batch. */
  groups: number;
  kept: number;
  dropped: number;
  /** The batch size aimed at: `batchSize`, else the number of groups. */
  batch_size: number;
  /** Kept prompts still missing: max(0, batch_size − kept). */
  need: number;
  /**
   * Prompts to sample to fill the batch at this batch's keep rate q = kept / groups: ⌈need / q⌉ (0 when nothing
   * is needed; null when q = 0, no rate to go by).
   */
  sample: number | null;
  /** The component judged, or null for the reward. */
  metric: string | null;
  /** Ids of the dropped groups, in batch order. */
  dropped_groups: string[];
}

/**
 * DAPO's dynamic sampling (Yu et al. 2025, arXiv 2503.14476, §3.2 "keep 0 < #correct < G"), decided as verl's
 * reference does (`recipe/dapo/dapo_ray_trainer.py` up to verl 246cac4, `_dapo_filtered_keys` in
 * `verl/trainer/ppo/v1/replay_buffer.py` since): a group is dropped when it has two or more values and they are all
 * equal; a group of one is kept. The values are the rewards, or the named component's scores (verl's
 * `filter_groups.metric`); null values are left out, and a group with none at all is dropped. Equality is exact
 * (min = max), where verl tests `np.std(values) > 0` — the same decision except for equal non-dyadic values whose
 * floating-point std is not exactly 0 (see docs/curriculum.md).
 * @returns one flag per group (true: kept) and the batch report.
 */
export function dapoFilter(
  groups: readonly GroupObservation[],
  o: FilterOptions,
): { keep: boolean[]; report: DapoReport } {
  const keep = groups.map((g) => {
    const raw = o.component !== undefined ? (g.components[o.component] ?? []) : g.rewards;
    const vals = raw.filter((v): v is number => v !== null && !Number.isNaN(v));
    if (vals.length === 0) return false;
    if (vals.length === 1) return true;
    return Math.min(...vals) !== Math.max(...vals);
  });
  const kept = keep.filter(Boolean).length;
  const batch = o.batchSize ?? groups.length;
  const need = Math.max(0, batch - kept);
  const q = groups.length > 0 ? kept / groups.length : 0;
  return {
    keep,
    report: {
      groups: groups.length,
      kept,
      dropped: groups.length - kept,
      batch_size: batch,
      need,
      sample: need === 0 ? 0 : q > 0 ? Math.ceil(need / q - 1e-9) : null,
      metric: o.component ?? null,
      dropped_groups: groups.filter((_, i) => !keep[i]).map((g) => g.group),
    },
  };
}
