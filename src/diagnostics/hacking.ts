import type { ComponentResult } from "../core/types.js";
import { round6 } from "./stats.js";

/** Streaming co-moments of (x, y) (Welford's bivariate update): Pearson correlation without storing the pairs. */
export class CoMoments {
  n = 0;
  private mx = 0;
  private my = 0;
  private sxx = 0;
  private syy = 0;
  private sxy = 0;

  push(x: number, y: number): void {
    this.n++;
    const dx = x - this.mx;
    this.mx += dx / this.n;
    const dy = y - this.my;
    this.my += dy / this.n;
    this.sxx += dx * (x - this.mx);
    this.syy += dy * (y - this.my);
    this.sxy += dx * (y - this.my);
  }

  /** Pearson r in [−1, 1]; null with fewer than 2 pairs or when either side is constant. */
  get r(): number | null {
    if (this.n < 2 || this.sxx <= 1e-300 || this.syy <= 1e-300) return null;
    return Math.max(-1, Math.min(1, this.sxy / Math.sqrt(this.sxx * this.syy)));
  }
}

/** Reward-hacking diagnostics of one set of rollouts (a run, or one step of it). */
export interface HackingStats {
  /** Rollouts counted. */
  n: number;
  /** Mean reward over non-null rewards (null when none). */
  meanReward: number | null;
  /**
   * Pearson correlation of completion length with the reward (`reward`) and with each component's score, over the
   * rollouts where both are numbers; null when undefined (constant score). Length: `completion_tokens` when the
   * rollout has it, else ceil(characters / 4). A reward that grows with length invites padding.
   */
  lengthCorrelation: Record<string, number | null>;
  /**
   * Component dominance: the share of the reward's variance each component explains alone, corr(score, reward)²
   * in [0, 1] (the R² of a one-component linear fit). One component near 1 while the others sit near 0 means the
   * reward is that component: a hack of it is a hack of the whole reward. Shares can sum above 1 when components
   * move together.
   */
  dominance: Record<string, number | null>;
}

/** {@link HackingStats} of the run, and per training `step` when the rollouts span more than one (drift). */
export interface HackingDiagnostics extends HackingStats {
  /** Per step, ascending; absent when every rollout has the same step. */
  bySteps?: Array<HackingStats & { step: number }>;
}

class StepStats {
  n = 0;
  sum = 0;
  nonNull = 0;
  readonly len: CoMoments[];
  readonly dom: CoMoments[];
  readonly rewardLen = new CoMoments();
  constructor(k: number) {
    this.len = Array.from({ length: k }, () => new CoMoments());
    this.dom = Array.from({ length: k }, () => new CoMoments());
  }
  add(results: readonly ComponentResult[], reward: number | null, length: number): void {
    this.n++;
    if (reward !== null) {
      this.sum += reward;
      this.nonNull++;
      this.rewardLen.push(length, reward);
    }
    results.forEach((r, i) => {
      if (r.score === null) return;
      this.len[i]!.push(length, r.score);
      if (reward !== null) this.dom[i]!.push(r.score, reward);
    });
  }
  finish(names: readonly string[]): HackingStats {
    const r2 = (m: CoMoments): number | null => {
      const r = m.r;
      return r === null ? null : round6(r * r);
    };
    return {
      n: this.n,
      meanReward: this.nonNull > 0 ? round6(this.sum / this.nonNull) : null,
      lengthCorrelation: {
        reward: round6(this.rewardLen.r),
        ...Object.fromEntries(names.map((n, i) => [n, round6(this.len[i]!.r)])),
      },
      dominance: Object.fromEntries(names.map((n, i) => [n, r2(this.dom[i]!)])),
    };
  }
}

/** The length of a rollout the diagnostics use: its `completion_tokens`, else ceil(characters / 4). */
export function diagnosticLength(completionTokens: unknown, chars: number): number {
  return typeof completionTokens === "number" && Number.isFinite(completionTokens)
    ? completionTokens
    : Math.ceil(chars / 4);
}

/** Accumulates {@link HackingDiagnostics} while rollouts stream by (moments only, per step). */
export class HackingCollector {
  private readonly all: StepStats;
  private readonly steps = new Map<number, StepStats>();
  constructor(private readonly names: readonly string[]) {
    this.all = new StepStats(names.length);
  }
  /** Adds one scored rollout: its component results (spec order), reward, length and step. */
  add(results: readonly ComponentResult[], reward: number | null, length: number, step: number): void {
    this.all.add(results, reward, length);
    let s = this.steps.get(step);
    if (!s) this.steps.set(step, (s = new StepStats(this.names.length)));
    s.add(results, reward, length);
  }
  finish(): HackingDiagnostics {
    const out: HackingDiagnostics = this.all.finish(this.names);
    if (this.steps.size > 1)
      out.bySteps = [...this.steps.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([step, s]) => ({ step, ...s.finish(this.names) }));
    return out;
  }
}
