import { UserError } from "../core/errors.js";
import { DENSE_FIELDS } from "./dense-fields.js";

/** Reads a dotted path (`labels.peer_correct`, `responses.0`) from a JSON value; `undefined` when absent. */
export function getPath(value: unknown, path: string): unknown {
  let cur: unknown = value;
  for (const key of path.split(".")) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** The rollout fields `--map` can read from another name. */
export const ROLLOUT_FIELDS = [
  "id",
  "group",
  "prompt",
  "completion",
  "reference",
  "step",
  "labels",
  "metadata",
  "reference_logprobs",
  "reference_logprobs_noreason",
  "completion_tokens",
  "completion_ids",
  ...DENSE_FIELDS,
] as const;

/** Fields of a scored record that `rewardkit advantages` reads besides the rollout fields. */
export const SCORED_FIELDS = ["reward", "components"] as const;

/** Edit distance, for "did you mean" hints on short names. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0]!;
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const t = d[j]!;
      d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = t;
    }
  }
  return d[b.length]!;
}

/** The closest of `known` to `name` when it is a likely typo (edit distance ≤ 2), else undefined. */
export function didYouMean(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = 3;
  for (const k of known) {
    const dd = distance(name.toLowerCase(), k.toLowerCase());
    if (dd < bestD) [best, bestD] = [k, dd];
  }
  return best;
}

/**
 * Parses `--map` entries `canonical=source` (e.g. `completion=response`, `reference=answer.value`).
 * @param known the canonical names this command reads (a typo such as `completions=` is an error, not a no-op).
 * @throws UserError naming the entry when it is not of the form `name=path` or names an unknown field.
 */
export function parseFieldMap(
  entries: readonly string[],
  known: readonly string[] = ROLLOUT_FIELDS,
): Record<string, string> {
  const map: Record<string, string> = {};
  for (const e of entries) {
    const m = /^([A-Za-z_]\w*)=(\S+)$/.exec(e);
    if (!m) throw new UserError(`--map ${e}: expected field=source, e.g. completion=response`);
    if (!known.includes(m[1]!)) {
      const hint = didYouMean(m[1]!, known);
      throw new UserError(
        `--map ${e}: "${m[1]}" is not a field rewardkit reads${hint ? ` (did you mean "${hint}"?)` : ""}; known: ${known.join(", ")}`,
      );
    }
    map[m[1]!] = m[2]!;
  }
  return map;
}
