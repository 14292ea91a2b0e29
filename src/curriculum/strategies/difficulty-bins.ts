import { performanceSchedule } from "../../schedule/performance.js";
import type { PromptRow } from "../stats.js";
import { normalize } from "./types.js";
import type { StrategyDefinition } from "./types.js";

/** The `performance` schedule's defaults (window W = 100, pass rate 0.8): one meaning of "ready" in rewardkit. */
const PERF = performanceSchedule.options.parse({ from: 0, to: 1, increment: 1 });

/**
 * Stages of a difficulty-bins curriculum: prompts sorted from easy to hard (pass rate descending, then id) and cut
 * into `bins` stages of equal size (the first ones one larger). @returns each row's stage (0 = easiest).
 */
export function stagesOf(rows: readonly PromptRow[], bins: number, smooth = false): number[] {
  const p = (r: PromptRow): number => (smooth ? r.posterior_mean : r.pass_rate);
  const order = rows
    .map((_, i) => i)
    .sort((a, b) => p(rows[b]!) - p(rows[a]!) || (rows[a]!.prompt_id < rows[b]!.prompt_id ? -1 : 1));
  const stage = new Array<number>(rows.length).fill(0);
  const k = Math.max(1, Math.min(bins, rows.length));
  const base = Math.floor(rows.length / k);
  const extra = rows.length % k;
  let at = 0;
  for (let s = 0; s < k; s++) for (let j = 0; j < base + (s < extra ? 1 : 0); j++) stage[order[at++]!] = s;
  return stage;
}

/**
 * The current stage, advanced by measured performance with the `performance` schedule's two readiness conditions
 * (window full, pass rate reached): stage s is passed when its prompts together have ≥ `window` attempts and an
 * attempt-weighted EW pass rate ≥ `passRate`; the current stage is the first one not passed (the last when all are).
 * The `performance` tracker itself needs the ordered pass/fail sequence, which the state does not keep (only
 * counts), so the rule is applied to the counts; its defaults are the tracker's.
 */
export function currentStage(
  rows: readonly PromptRow[],
  stage: readonly number[],
  o: { window: number; passRate: number },
): number {
  const k = Math.max(0, ...stage) + 1;
  for (let s = 0; s < k - 1; s++) {
    let att = 0;
    let ew = 0;
    rows.forEach((r, i) => {
      if (stage[i] !== s) return;
      att += r.attempts;
      ew += r.ew_pass_rate * r.attempts;
    });
    if (att < o.window || ew / att < o.passRate) return s;
  }
  return k - 1;
}

/**
 * `difficulty-bins`: stages from easy to hard ({@link stagesOf}); the current stage's prompts weigh 1, passed stages'
 * prompts `review` (default 0.1, so what was learnt is revisited), later stages 0 — until measured performance
 * moves the stage ({@link currentStage}). Sources: curriculum by difficulty (Bengio et al. 2009; AdaRFT, Shi et al.
 * 2025; MedLoc-R1's performance-aware schedule for the advance rule). Extra column: `stage`.
 */
export const difficultyBins: StrategyDefinition = {
  name: "difficulty-bins",
  summary: "easy → hard stages; the next stage opens when the current one's pass rate reaches passRate",
  weigh(rows, params) {
    const stage = stagesOf(rows, params.bins ?? 3, params.smooth);
    const cur = currentStage(rows, stage, {
      window: params.window ?? PERF.window,
      passRate: params.passRate ?? PERF.passRate,
    });
    const review = params.review ?? 0.1;
    const raw = stage.map((s) => (s === cur ? 1 : s < cur ? review : 0));
    return normalize(raw).map((weight, i) => ({ weight, extra: { stage: stage[i]!, current_stage: cur } }));
  },
};
