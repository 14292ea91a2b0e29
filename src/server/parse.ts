/** Request rollouts validated with the CLI's rules: one entry per input, an error entry instead of a failed batch. */
import type { Rollout } from "../core/types.js";
import { toRollout } from "../io/rollout.js";
import { isObject } from "./http.js";

/** Per-rollout problem as it appears in a result entry. */
export interface RolloutError {
  field: string;
  message: string;
}

/** One validated rollout, or the problem that kept it out, at its request index. */
export type Parsed =
  { index: number; id: string; rollout: Rollout } | { index: number; id: string; error: RolloutError };

function idOf(record: unknown, index: number): string {
  const id = isObject(record) ? record.id : undefined;
  return typeof id === "string" || typeof id === "number" ? String(id) : String(index);
}

/** Validates `rollouts[i]` with the same rules as the CLI's input; the default id is the index. */
export function parseRollouts(records: readonly unknown[], needs: "score" | "advantages", step?: number): Parsed[] {
  return records.map((record, index) => {
    const id = idOf(record, index);
    const r = toRollout(record, index, {}, needs);
    if ("problem" in r)
      return {
        index,
        id,
        error: {
          field: `rollouts[${index}]${r.problem.field ? "." + r.problem.field : ""}`,
          message: r.problem.message,
        },
      };
    r.rollout.id = id;
    if (step !== undefined && r.rollout.step === undefined) r.rollout.step = step;
    return { index, id, rollout: r.rollout };
  });
}
