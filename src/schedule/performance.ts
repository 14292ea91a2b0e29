import { z } from "zod";
import type { ScheduleDefinition } from "./types.js";

const performanceOptions = z
  .strictObject({
    /** Value before any move (e.g. a lenient IoU threshold). */
    from: z.number().finite(),
    /** The target the value moves towards and never passes (e.g. a strict IoU threshold). */
    to: z.number().finite(),
    /** Size of one move towards `to`. */
    increment: z.number().finite().positive(),
    /** Window size W: the number of most recent pass/fail results the rule looks at (default 100). */
    window: z.number().int().min(2).max(1_000_000).default(100),
    /** Condition 2: the window's pass rate must reach this (default 0.8). */
    passRate: z.number().min(0).max(1).default(0.8),
    /** Condition 3: the newer half's pass rate may trail the older half's by at most this (default 0.05). */
    tolerance: z.number().min(0).max(1).default(0.05),
    /** Component whose pass rate is tracked (default: the component that owns the scheduled option). */
    component: z.string().min(1).optional(),
  })
  .refine((o) => o.from !== o.to, { message: "from and to are equal: use a number", path: ["to"] });
export type PerformanceOptions = z.infer<typeof performanceOptions>;

/**
 * `{schedule: performance, from: 0.5, to: 0.9, increment: 0.1, window: 200, passRate: 0.8}` — MedLoc-R1's
 * performance-aware reward schedule (methods catalog T89, list 003#001): a sliding window over a component's pass
 * results moves a threshold from a lenient to a strict value as the model becomes ready. The paper does not
 * publish its conditions; rewardkit's documented rule, checked each time a step is sealed (see
 * {@link PerformanceTracker}):
 * 1. the window is full (W results since the last move),
 * 2. its pass rate is ≥ `passRate`,
 * 3. it is not regressing: pass rate of the newer half ≥ pass rate of the older half − `tolerance`,
 * 4. the value has not reached `to`.
 * Then the value moves one `increment` towards `to` (clamped at `to`) and the window is cleared, so the next move
 * needs W results under the new value. At most one move per sealed step.
 */
export const performanceSchedule: ScheduleDefinition<PerformanceOptions> = {
  name: "performance",
  summary: "moves one increment towards `to` when the tracked component's windowed pass rate is high and steady",
  options: performanceOptions,
  extremes: (o) => [o.from, o.to],
  at: (o) => () => o.from,
  stateful: true,
};

/** A tracker's persisted state (JSON). */
export interface PerformanceState {
  value: number;
  moves: number;
  /** Results in the window, oldest first: 1 pass, 0 fail. */
  window: number[];
  /** `[step, value]` from that step on, increasing steps; the first is `[0, from]`. */
  history: Array<[number, number]>;
}

/**
 * The state of one performance schedule: a ring buffer of the last W pass/fail results and the current value.
 * Pure bookkeeping; {@link ScheduleRuntime} decides when results are observed.
 */
export class PerformanceTracker {
  private ring: Uint8Array;
  private head = 0;
  private count = 0;
  value: number;
  moves = 0;
  private history: Array<[number, number]>;

  constructor(readonly options: PerformanceOptions) {
    this.ring = new Uint8Array(options.window);
    this.value = options.from;
    this.history = [[0, options.from]];
  }

  /** The value in force at `step` (the last move at or before it). */
  valueAt(step: number): number {
    const h = this.history;
    for (let k = h.length - 1; k > 0; k--) if (h[k]![0] <= step) return h[k]![1];
    return h[0]![1];
  }

  private push(pass: boolean): void {
    const w = this.ring.length;
    this.ring[(this.head + this.count) % w] = pass ? 1 : 0;
    if (this.count < w) this.count++;
    else this.head = (this.head + 1) % w;
  }

  /** Pass counts of the older and newer halves of a full window (older half has ⌊W/2⌋ results). */
  private halves(): { older: number; newer: number; olderN: number; newerN: number } {
    const w = this.ring.length;
    const olderN = Math.floor(w / 2);
    let older = 0;
    let newer = 0;
    for (let k = 0; k < w; k++) {
      const v = this.ring[(this.head + k) % w]!;
      if (k < olderN) older += v;
      else newer += v;
    }
    return { older, newer, olderN, newerN: w - olderN };
  }

  /**
   * Adds the pass/fail results of one sealed step (in order), then applies the rule once.
   * @param effectiveStep the first step that sees a move made now.
   * @returns true when the value moved.
   */
  observe(passes: readonly boolean[], effectiveStep: number): boolean {
    for (const p of passes) this.push(p);
    const o = this.options;
    if (this.value === o.to || this.count < this.ring.length) return false;
    const { older, newer, olderN, newerN } = this.halves();
    if ((older + newer) / this.ring.length < o.passRate) return false;
    if (newer / newerN < older / olderN - o.tolerance) return false;
    const dir = Math.sign(o.to - o.from);
    const next = this.value + dir * o.increment;
    this.value = dir > 0 ? Math.min(next, o.to) : Math.max(next, o.to);
    // Round away binary noise (0.5 + 0.1 + 0.1 → 0.7, not 0.7000000000000001) so values print and compare cleanly.
    this.value = Number(this.value.toPrecision(12));
    this.moves++;
    this.count = 0;
    this.head = 0;
    const last = this.history[this.history.length - 1]!;
    if (last[0] === effectiveStep) last[1] = this.value;
    else this.history.push([effectiveStep, this.value]);
    return true;
  }

  snapshot(): PerformanceState {
    const window: number[] = [];
    for (let k = 0; k < this.count; k++) window.push(this.ring[(this.head + k) % this.ring.length]!);
    return { value: this.value, moves: this.moves, window, history: this.history.map(([s, v]) => [s, v]) };
  }

  restore(s: PerformanceState): void {
    this.ring = new Uint8Array(this.options.window);
    this.head = 0;
    this.count = 0;
    for (const v of s.window.slice(-this.ring.length)) this.push(v === 1);
    this.value = s.value;
    this.moves = s.moves;
    this.history = s.history.map(([st, v]) => [st, v]);
  }
}
