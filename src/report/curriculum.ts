import { lineChart } from "./charts.js";
import type { Section } from "./html.js";

/** Prompt buckets by the pass rate at the step a prompt was first seen (its starting difficulty). */
const BUCKETS = [
  { label: "unsolved at first (p = 0)", test: (p: number) => p === 0 },
  { label: "hard (0 < p < 0.5)", test: (p: number) => p > 0 && p < 0.5 },
  { label: "medium (0.5 ≤ p < 1)", test: (p: number) => p >= 0.5 && p < 1 },
  { label: "solved at first (p = 1)", test: (p: number) => p === 1 },
];

/** What the section reads of a run's rows (a `RunData` is one). */
export interface CurriculumRows {
  rows: ReadonlyArray<{ group: string; promptId?: string; step: number; reward: number | null }>;
}

/** Per (prompt, step): rollouts, successes, and whether the step's group was flat (≥ 2 rewards, all equal). */
interface Cell {
  n: number;
  ok: number;
  rewards: number[];
}

/**
 * The curriculum section of a run report: the pass rate per step of each prompt bucket (prompts bucketed by their
 * pass rate at the first step they were seen: do the hard ones improve?), and the share of zero-variance groups per
 * step (groups of two or more non-null rewards, all equal: no GRPO signal, what `filter: dapo` drops). A prompt is
 * its rollouts' `prompt_id`, else the group; a success is reward ≥ `success` (default 1).
 * @returns undefined when no group has two rollouts.
 */
export function curriculumSection(d: CurriculumRows, success = 1): Section | undefined {
  const cells = new Map<string, Map<number, Cell>>();
  for (const r of d.rows) {
    const key = r.promptId ?? r.group;
    let byStep = cells.get(key);
    if (!byStep) cells.set(key, (byStep = new Map<number, Cell>()));
    let c = byStep.get(r.step);
    if (!c) byStep.set(r.step, (c = { n: 0, ok: 0, rewards: [] }));
    c.n++;
    if (r.reward !== null && r.reward >= success) c.ok++;
    if (r.reward !== null) c.rewards.push(r.reward);
  }
  const steps = [...new Set(d.rows.map((r) => r.step))].sort((a, b) => a - b);
  const at = new Map(steps.map((s, i) => [s, i]));
  const ok = BUCKETS.map(() => steps.map(() => 0));
  const n = BUCKETS.map(() => steps.map(() => 0));
  const flat = steps.map(() => 0);
  const multi = steps.map(() => 0);
  for (const byStep of cells.values()) {
    const first = byStep.get(Math.min(...byStep.keys()))!;
    const b = BUCKETS.findIndex((x) => x.test(first.ok / first.n));
    for (const [step, c] of byStep) {
      const i = at.get(step)!;
      ok[b]![i]! += c.ok;
      n[b]![i]! += c.n;
      if (c.rewards.length >= 2) {
        multi[i]!++;
        if (Math.min(...c.rewards) === Math.max(...c.rewards)) flat[i]!++;
      }
    }
  }
  if (multi.every((m) => m === 0)) return undefined;
  const round = (x: number): number => Math.round(x * 1e6) / 1e6;
  return {
    id: "curriculum",
    title: "Curriculum: pass rates and zero-variance groups",
    html: `<p>Prompts (their <code>prompt_id</code>, else the group) bucketed by the pass rate at the first step they were seen; a success is reward ≥ ${success}. Zero-variance groups have two or more rewards, all equal: no GRPO signal (<code>filter: dapo</code> drops them; docs/curriculum.md).</p>`,
    charts: [
      lineChart(
        "Pass rate per step by prompt bucket",
        steps,
        BUCKETS.map((bk, k) => ({
          label: bk.label,
          data: steps.map((_, i) => (n[k]![i]! > 0 ? round(ok[k]![i]! / n[k]![i]!) : null)),
        })).filter((s) => s.data.some((v) => v !== null)),
        { y: "pass rate" },
      ),
      lineChart(
        "Share of zero-variance groups per step",
        steps,
        [
          {
            label: "zero-variance share",
            data: steps.map((_, i) => (multi[i]! > 0 ? round(flat[i]! / multi[i]!) : null)),
          },
        ],
        { y: "share of groups" },
      ),
    ],
  };
}
