import { formatSummary, table } from "./format.js";
import type { Summary } from "./summary.js";

/** The summary of a routed run: the overall figures, plus a full {@link Summary} per route. */
export interface RoutedSummary extends Summary {
  /** Route key → that route's summary, exactly as `rewardkit score` with the route's sub-spec alone would give it. */
  routes: Record<string, Summary>;
  /** Rollouts no route took (no default route): how many, and how many per value of the routing field. */
  unrouted: { count: number; values: Record<string, number> };
}

function num(x: number | null): string {
  return x === null ? "-" : x.toFixed(4);
}

/**
 * Human-readable summary of a routed run: a table of the routes (rollouts, reward, groups, estimator), then the
 * overall summary (components keyed `<route>/<component>`), then the unrouted rollouts.
 */
export function formatRoutedSummary(s: RoutedSummary): string {
  const rows = [["route", "spec", "rollouts", "reward mean", "std", "null", "groups", "advantage"]];
  for (const [key, r] of Object.entries(s.routes)) {
    rows.push([
      key,
      r.spec.name,
      String(r.count),
      num(r.reward.mean),
      num(r.reward.std),
      String(r.reward.nullCount),
      String(r.groups.count),
      r.advantage.estimator,
    ]);
  }
  const lines = [formatSummary(s), table(rows)];
  if (s.unrouted.count > 0)
    lines.push(
      `no route: ${s.unrouted.count} rollouts skipped (${Object.entries(s.unrouted.values)
        .map(([v, n]) => `${v}: ${n}`)
        .join(", ")})`,
    );
  return lines.join("\n");
}
