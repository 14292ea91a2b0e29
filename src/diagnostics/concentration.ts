import type { ComponentResult } from "../core/types.js";
import { buildGroupIndex } from "../advantage/groups.js";
import { round6 } from "./stats.js";

/**
 * Posterior-concentration check for likelihood rewards (RLCPR). RLCPR observes that P(reference ∣ reasoning) collapses
 * into a narrow, low-variance band as traces get long, so the rewards of a group become indistinguishable and GRPO's
 * normalized advantages amplify noise. The paper's abstract gives no test, so the rule here is ours:
 *
 *   group g is *collapsed* ⇔ n_g ≥ minGroup scorable rollouts
 *                           ∧ the traces differ in length (max L > min L: identical greedy samples are duplicates,
 *                             already visible as zero-variance groups, not concentration)
 *                           ∧ mean L_g ≥ minLength
 *                           ∧ std_g(score) ≤ maxStd (population std; default 0.01 for probability forms, 0.05 for log forms)
 *
 * Across groups it also reports Spearman's ρ between a group's mean trace length and its score std: ρ < 0 is the
 * RLCPR signature (longer traces, tighter band). The RLPR std filter (`filterStd`) is reported from the same
 * per-group std: groups below it carry too little signal and RLPR drops them from the batch (so does the group stage).
 *
 * Length regularization (RLCPR "concentration-aware regularization": penalize unnecessarily long traces when the
 * posterior rewards collapse) is {@link concentrationPenalty}; the `likelihood` component's group stage adds it to
 * the scores of collapsed groups and applies the RLPR filter (`likelihoodGroupStage`); the summary reports both.
 */

/** Settings of the check for one likelihood component, read from its validated options. */
export interface ConcentrationSettings {
  maxStd: number;
  minGroup: number;
  minLength: number;
  /** λ of the length penalty (0: off). */
  penalty: number;
  /** RLPR std-filter threshold, when set. */
  filterStd?: number;
}

/** Reads the settings from a compiled component; `undefined` for components that are not `likelihood`. */
export function concentrationSettings(
  type: string,
  options: Record<string, unknown>,
): ConcentrationSettings | undefined {
  if (type !== "likelihood") return undefined;
  const num = (k: string): number | undefined => (typeof options[k] === "number" ? options[k] : undefined);
  const probability = options.form === "mean-prob" || options.form === "seq-prob";
  const s: ConcentrationSettings = {
    maxStd: num("collapseStd") ?? (probability ? 0.01 : 0.05),
    minGroup: num("collapseMinGroup") ?? 4,
    minLength: num("collapseMinLength") ?? 0,
    penalty: num("collapsePenalty") ?? 0,
  };
  const f = num("filterStd");
  if (f !== undefined) s.filterStd = f;
  return s;
}

/** Statistics of one group. */
export interface GroupCheck {
  n: number;
  std: number;
  meanLength: number;
  collapsed: boolean;
}

/**
 * Applies the collapse rule to one group.
 * @param scores scorable scores of the group, shape [n].
 * @param lengths trace lengths aligned with `scores`, shape [n].
 */
export function checkGroup(
  scores: readonly number[],
  lengths: readonly number[],
  s: ConcentrationSettings,
): GroupCheck {
  const n = scores.length;
  const mean = n > 0 ? scores.reduce((a, b) => a + b, 0) / n : 0;
  const std = n > 0 ? Math.sqrt(scores.reduce((a, x) => a + (x - mean) ** 2, 0) / n) : 0;
  const meanLength = n > 0 ? lengths.reduce((a, b) => a + b, 0) / n : 0;
  const distinct = n > 0 && Math.max(...lengths) > Math.min(...lengths);
  return { n, std, meanLength, collapsed: n >= s.minGroup && distinct && meanLength >= s.minLength && std <= s.maxStd };
}

/**
 * Length regularization for a collapsed group: the shortest trace keeps its reward, the longest loses λ, linear in
 * between: penaltyᵢ = −λ · (Lᵢ − L_min) / (L_max − L_min), in [−λ, 0]. Among indistinguishable rewards the only
 * signal left is cost, so shorter traces are preferred (RLCPR's regularizer; the linear form is our choice).
 * Example: λ = 0.1, L = [100, 200, 300] → [0, −0.05, −0.1].
 * @param lengths trace lengths of the group, shape [n]; all equal → all 0.
 */
export function concentrationPenalty(lengths: readonly number[], lambda: number): number[] {
  const lo = Math.min(...lengths);
  const hi = Math.max(...lengths);
  return lengths.map((l) => (hi > lo && lambda > 0 && l > lo ? -(lambda * (l - lo)) / (hi - lo) : 0));
}

/** Spearman's rank correlation (average ranks for ties); `null` below 3 points or with a constant side. */
export function spearman(x: readonly number[], y: readonly number[]): number | null {
  if (x.length < 3) return null;
  const rank = (v: readonly number[]): number[] => {
    const idx = v.map((_, i) => i).sort((a, b) => v[a]! - v[b]!);
    const r = new Array<number>(v.length);
    for (let i = 0; i < idx.length;) {
      let j = i;
      while (j + 1 < idx.length && v[idx[j + 1]!] === v[idx[i]!]) j++;
      for (let k = i; k <= j; k++) r[idx[k]!] = (i + j) / 2;
      i = j + 1;
    }
    return r;
  };
  const rx = rank(x);
  const ry = rank(y);
  const m = (rx.length - 1) / 2;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < rx.length; i++) {
    sxy += (rx[i]! - m) * (ry[i]! - m);
    sxx += (rx[i]! - m) ** 2;
    syy += (ry[i]! - m) ** 2;
  }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : null;
}

/** What the summary reports for one likelihood component. */
export interface ComponentConcentration {
  settings: ConcentrationSettings;
  /** Groups with ≥ minGroup scorable rollouts carrying a trace length. */
  groupsChecked: number;
  collapsedGroups: number;
  /** Share of checked groups that collapsed (null when none was checked). */
  collapsedFraction: number | null;
  /** Spearman ρ between group mean trace length and group score std over checked groups (ρ < 0: RLCPR signature). */
  lengthStdCorrelation: number | null;
  /** Groups (≥ 2 scorable rollouts) whose std is below `filterStd` (RLPR filter), when it is set. */
  filteredGroups?: number;
  /** Mean penalty over rollouts of collapsed groups when `collapsePenalty` > 0 (applied to the scores at the group stage). */
  meanPenalty?: number;
  /** Up to 5 collapsed groups: 0-based index of the group's first rollout in the input, size, std, mean length. */
  examples: Array<{ firstRollout: number; n: number; std: number; meanLength: number }>;
}

/**
 * Collects, per likelihood component, each rollout's score and trace length (`details.traceLength`, set by the
 * `likelihood` verifier) while rollouts stream by; numbers only. {@link finish} groups them.
 */
export class ConcentrationCollector {
  private readonly tracked: Array<{
    index: number;
    name: string;
    settings: ConcentrationSettings;
    scores: number[];
    lengths: number[];
  }> = [];

  constructor(spec: { components: ReadonlyArray<{ name: string; type: string; options: Record<string, unknown> }> }) {
    spec.components.forEach((c, index) => {
      const settings = concentrationSettings(c.type, c.options);
      if (settings) this.tracked.push({ index, name: c.name, settings, scores: [], lengths: [] });
    });
  }

  /** Whether any component is tracked (no likelihood component: nothing to report). */
  get active(): boolean {
    return this.tracked.length > 0;
  }

  /**
   * Adds one rollout's component results (in spec order). The check reads the score before the group stage changed
   * it (`details.unpenalizedScore` after the collapse penalty, `details.filteredScore` after the std filter), so it
   * reports the same groups whether or not the penalty and the filter are on.
   */
  add(results: readonly ComponentResult[]): void {
    for (const t of this.tracked) {
      const r = results[t.index];
      const len = r?.details?.traceLength;
      const before = r?.details?.unpenalizedScore ?? r?.details?.filteredScore ?? r?.score;
      const ok = r !== undefined && typeof before === "number" && typeof len === "number";
      t.scores.push(ok ? before : NaN);
      t.lengths.push(ok ? len : NaN);
    }
  }

  /**
   * @param groupIds dense group id per rollout in the order of {@link add}, shape [n].
   * @returns the report per component name, or `undefined` when no component is tracked.
   */
  finish(groupIds: Int32Array): Record<string, ComponentConcentration> | undefined {
    if (!this.active) return undefined;
    const gi = buildGroupIndex(groupIds);
    const out: Record<string, ComponentConcentration> = {};
    for (const t of this.tracked) {
      const s = t.settings;
      let checked = 0;
      let collapsed = 0;
      let filtered = 0;
      let penaltySum = 0;
      let penalized = 0;
      const lens: number[] = [];
      const stds: number[] = [];
      const examples: ComponentConcentration["examples"] = [];
      for (let g = 0; g < gi.count; g++) {
        const scores: number[] = [];
        const lengths: number[] = [];
        let first = Infinity;
        for (let k = gi.offsets[g]!; k < gi.offsets[g + 1]!; k++) {
          const i = gi.order[k]!;
          first = Math.min(first, i);
          if (!Number.isNaN(t.scores[i]!)) {
            scores.push(t.scores[i]!);
            lengths.push(t.lengths[i]!);
          }
        }
        const c = checkGroup(scores, lengths, s);
        if (s.filterStd !== undefined && c.n >= 2 && c.std < s.filterStd) filtered++;
        if (c.n < s.minGroup) continue;
        checked++;
        lens.push(c.meanLength);
        stds.push(c.std);
        if (!c.collapsed) continue;
        collapsed++;
        if (examples.length < 5)
          examples.push({ firstRollout: first, n: c.n, std: round6(c.std)!, meanLength: round6(c.meanLength)! });
        if (s.penalty > 0) {
          for (const p of concentrationPenalty(lengths, s.penalty)) penaltySum += p;
          penalized += lengths.length;
        }
      }
      const rho = spearman(lens, stds);
      const rep: ComponentConcentration = {
        settings: s,
        groupsChecked: checked,
        collapsedGroups: collapsed,
        collapsedFraction: checked > 0 ? round6(collapsed / checked) : null,
        lengthStdCorrelation: rho === null ? null : round6(rho),
        examples,
      };
      if (s.filterStd !== undefined) rep.filteredGroups = filtered;
      if (s.penalty > 0) rep.meanPenalty = penalized > 0 ? round6(penaltySum / penalized)! : 0;
      out[t.name] = rep;
    }
    return out;
  }
}

/** Text lines for the human-readable summary. */
export function formatConcentration(report: Record<string, ComponentConcentration>): string[] {
  return Object.entries(report).map(([name, c]) => {
    const s = c.settings;
    const parts = [
      `concentration ${name}: ${c.collapsedGroups}/${c.groupsChecked} groups collapsed (std <= ${s.maxStd}, >= ${s.minGroup} traces of differing length${s.minLength > 0 ? `, mean length >= ${s.minLength}` : ""})`,
      `length~std rho ${c.lengthStdCorrelation === null ? "-" : c.lengthStdCorrelation.toFixed(3)}`,
    ];
    if (c.filteredGroups !== undefined)
      parts.push(`RLPR filter: ${c.filteredGroups} groups std < ${s.filterStd} dropped`);
    if (c.meanPenalty !== undefined) parts.push(`length penalty (lambda ${s.penalty}, applied): mean ${c.meanPenalty}`);
    if (c.examples.length > 0)
      parts.push(`e.g. groups at rollouts ${c.examples.map((e) => e.firstRollout).join(", ")}`);
    return parts.join("  ");
  });
}
