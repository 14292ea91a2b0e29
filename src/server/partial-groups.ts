/**
 * Groups stay together: a group-level component (`group-length`, `cosine-length`'s correctness, likelihood's group
 * filters: any component with a group stage) scores a rollout from its whole group, and the server stages the groups
 * present in one request. A rollout that says how large its group is (`group_size`) while the request holds fewer
 * (or more) of that group would get a reward computed from part of the group: it is answered with an error entry
 * instead, naming the group, the counts and the component, never with a silently different reward.
 */
import type { Rollout } from "../core/types.js";
import type { CompiledSpec } from "../spec/types.js";
import { stagedComponents } from "../compose/group-stage.js";
import type { Parsed, RolloutError } from "./parse.js";
import type { ServerContext } from "./context.js";
import { partition } from "../engine/routes.js";

/**
 * Per rollout of `rollouts` (request index `indexes[k]`), the problem that keeps it from being scored, or undefined.
 * Only specs with group-stage components check; rollouts without `group_size` are taken as whole groups.
 */
export function partialGroups(
  spec: CompiledSpec,
  rollouts: readonly Rollout[],
  indexes: readonly number[],
): Array<RolloutError | undefined> {
  const staged = stagedComponents(spec);
  const out = new Array<RolloutError | undefined>(rollouts.length);
  if (staged.length === 0 || !rollouts.some((r) => r.group_size !== undefined)) return out;
  const counts = new Map<string, number>();
  for (const r of rollouts) counts.set(r.group, (counts.get(r.group) ?? 0) + 1);
  const names = staged.map((i) => `${spec.components[i]!.name} (${spec.components[i]!.type})`).join(", ");
  rollouts.forEach((r, k) => {
    const want = r.group_size;
    const got = counts.get(r.group)!;
    if (want === undefined || want === got) return;
    out[k] = {
      field: `rollouts[${indexes[k]}].group_size`,
      message:
        `${got < want ? "partial" : "oversized"} group: ${got} of ${want} rollouts of group ${JSON.stringify(r.group)} in this request, ` +
        `and ${names} score${staged.length === 1 ? "s" : ""} a whole group; send every rollout of a group in one request ` +
        "(the Python client keeps groups together)",
    };
  });
  return out;
}

/**
 * `parsed` with every rollout of a partial group (per {@link partialGroups}, by its route's spec on a routed server)
 * turned into an error entry.
 */
export function groupProblems(ctx: ServerContext, parsed: Parsed[]): Parsed[] {
  const valid = parsed.filter((p): p is Extract<Parsed, { rollout: Rollout }> => "rollout" in p);
  if (!valid.some((p) => p.rollout.group_size !== undefined)) return parsed;
  const problems = new Map<number, RolloutError>();
  const check = (spec: CompiledSpec, idx: readonly number[]): void => {
    const errs = partialGroups(
      spec,
      idx.map((i) => valid[i]!.rollout),
      idx.map((i) => valid[i]!.index),
    );
    errs.forEach((e, k) => e && problems.set(valid[idx[k]!]!.index, e));
  };
  if (ctx.routed) {
    const { parts } = partition(
      ctx.routed.spec,
      valid.map((p) => p.rollout),
    );
    for (const [key, idx] of parts) check(ctx.routed.routes.get(key)!.spec, idx);
  } else
    check(
      ctx.spec,
      valid.map((_, i) => i),
    );
  if (problems.size === 0) return parsed;
  return parsed.map((p) => {
    const e = problems.get(p.index);
    return e ? { index: p.index, id: p.id, error: e } : p;
  });
}
