/**
 * What one request can already tell about its held rollouts (those with `group_size`, which wait in the group
 * barrier for the rest of their group, src/server/held-groups.ts), before anything waits:
 * - a group (same `group`, same step) with more distinct ids in this request than its `group_size`: the extra ones
 *   could only wait until `--group-wait-ms` and end partial, so every rollout of that group in the request is
 *   answered with an error at once, naming the group and the counts;
 * - rollouts of one group disagreeing on `group_size`: the same;
 * - a held rollout without an `id`: its group is counted by distinct ids over requests, so it needs one.
 * Never a silently different reward, and never a request that hangs on a count that cannot be reached.
 */
import type { Rollout } from "../core/types.js";
import type { Parsed, RolloutError } from "./parse.js";

/**
 * `parsed` with every rollout of an oversized or inconsistent held group, and every held rollout without an `id`,
 * turned into an error entry.
 * @param raw the request's rollouts as sent (to tell an `id` given from one numbered by position).
 */
export function groupProblems(parsed: Parsed[], raw: readonly unknown[]): Parsed[] {
  const valid = parsed.filter((p): p is Extract<Parsed, { rollout: Rollout }> => "rollout" in p);
  if (!valid.some((p) => p.rollout.group_size !== undefined)) return parsed;
  const groups = new Map<string, { ids: Set<string>; sizes: Set<number>; group: string }>();
  const keyOf = (r: Rollout): string => `${r.step ?? ""}\u0000${r.group}`;
  for (const { rollout: r } of valid) {
    if (r.group_size === undefined) continue;
    let g = groups.get(keyOf(r));
    if (!g) groups.set(keyOf(r), (g = { ids: new Set(), sizes: new Set(), group: r.group }));
    g.ids.add(r.id);
    g.sizes.add(r.group_size);
  }
  const problems = new Map<number, RolloutError>();
  for (const p of valid) {
    const r = p.rollout;
    if (r.group_size === undefined) continue;
    const g = groups.get(keyOf(r))!;
    const step = r.step === undefined ? "" : ` at step ${r.step}`;
    let message: string | undefined;
    const given = (raw[p.index] as { id?: unknown } | undefined)?.id;
    if (given === undefined || given === null)
      message =
        "a rollout with group_size needs an id, distinct within its group: its group is counted by ids over requests " +
        "(a position in one request would collide with the same position in another)";
    else if (g.sizes.size > 1)
      message = `group ${JSON.stringify(g.group)}${step}: its rollouts say group_size ${[...g.sizes].join(" and ")}; every rollout of a group must give the same`;
    else if (g.ids.size > r.group_size)
      message =
        `oversized group: ${g.ids.size} distinct ids of group ${JSON.stringify(g.group)}${step} in this request, ` +
        `more than its group_size ${r.group_size}`;
    if (message !== undefined)
      problems.set(p.index, { field: `rollouts[${p.index}].${given == null ? "id" : "group_size"}`, message });
  }
  if (problems.size === 0) return parsed;
  return parsed.map((p) => {
    const e = problems.get(p.index);
    return e ? { index: p.index, id: p.id, error: e } : p;
  });
}
