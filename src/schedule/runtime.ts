import { UserError } from "../core/errors.js";
import type { ComponentResult } from "../core/types.js";
import type { ScheduleSpec } from "./types.js";
import { PerformanceTracker } from "./performance.js";
import type { PerformanceOptions, PerformanceState } from "./performance.js";
import type { ScheduledOption } from "./types.js";

/** Every scheduled value of a spec at one step. Arrays are in component order. */
export interface ResolvedValues {
  step: number;
  weights: number[];
  thresholds: number[];
  /** For components with a scheduled type option: the options at this step and their cache key (JSON). */
  options: Array<{ key: string; options: Record<string, unknown> } | undefined>;
}

/** Persisted state of a spec's performance schedules (the CLI's `--state` file, the server's snapshot). */
export interface ScheduleState {
  version: 1;
  /** The highest step whose arrival sealed the steps before it (−1: none yet). */
  frontier: number;
  /** Per option path: the tracker's state, and the schedule's options it was made with. */
  schedules: Record<string, PerformanceState & { params: Record<string, unknown> }>;
  /** Results of steps not sealed yet, in arrival order: step and pass (1) / fail (0) per option path. */
  pending: Array<{ step: number; passes: Record<string, number> }>;
}

/** Raised by {@link ScheduleRuntime.restore} for a state that does not belong to this spec. */
export class ScheduleStateError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = "ScheduleStateError";
  }
}

interface Pending {
  step: number;
  seq: number;
  passes: boolean[];
}

/** The fleet-wide part of a {@link ScheduleState}: trackers and frontier (results pending sit in the store). */
export type SharedScheduleState = Omit<ScheduleState, "pending">;

/**
 * What a runtime needs from a fleet to share its performance schedules (implemented by `FleetSchedules` in
 * `schedule/fleet.ts` over the store).
 */
export interface ScheduleShare {
  /** Registers a rollout of `step` in flight for the fleet. */
  enter(step: number): Promise<void>;
  /** A rollout of `step` finished with `passes` (undefined: it failed); `keepLocal` keeps it here if the store fails. */
  leave(step: number, passes: readonly boolean[] | undefined, keepLocal: () => void): Promise<void>;
  /** Brings `rt` to `step` for the fleet. @returns false when the store failed (the runtime seals locally). */
  advance(step: number, rt: ScheduleRuntime): Promise<boolean>;
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v);
}

/**
 * Resolves a spec's schedules at a rollout's step and keeps the state of its `performance` schedules.
 *
 * How steps advance a performance window (deterministic whatever the concurrency): results of step s are held
 * as pending until a rollout of a later step s' > s arrives. That rollout first waits until every rollout of a
 * step below s' that arrived before it has finished, then *seals*: all pending results of steps < s' enter the
 * window in (step, arrival) order and the rule is applied once; a move takes effect from step s'. So the value
 * at step s depends only on results of steps < s and on arrival order, never on timing. A rollout of a step
 * below the latest sealing step (a late one) gets the value that was in force at its step (from the history),
 * and its result is sealed with the next later step.
 *
 * Specs without performance schedules never wait: `resolve(step)` is a pure, cached function of the step.
 */
export class ScheduleRuntime {
  readonly stateful: boolean;
  private readonly trackers: Array<{ schedule: ScheduledOption; tracker: PerformanceTracker }>;
  private readonly trackerOf = new Map<string, PerformanceTracker>();
  private readonly cache = new Map<number, ResolvedValues>();
  private readonly base: { weights: number[]; thresholds: number[]; options: Array<Record<string, unknown>> };
  private readonly optionComponents: number[];
  private frontier = -1;
  private seq = 0;
  private pending: Pending[] = [];
  private readonly inflight = new Map<number, number>();
  private waiters: Array<{ step: number; wake: () => void }> = [];
  private fleet: ScheduleShare | undefined;
  /** Per step, the fleet advance in progress (one per replica and step, however many rollouts wait for it). */
  private readonly advancing = new Map<number, Promise<void>>();

  constructor(private readonly spec: ScheduleSpec) {
    this.base = {
      weights: spec.components.map((c) => c.weight),
      thresholds: spec.components.map((c) => c.passThreshold),
      options: spec.components.map((c) => c.options),
    };
    this.optionComponents = [...new Set(spec.schedules.filter((s) => s.target === "option").map((s) => s.component))];
    this.trackers = spec.schedules
      .filter((s) => s.tracks !== undefined)
      .map((schedule) => ({
        schedule,
        tracker: new PerformanceTracker(schedule.params as unknown as PerformanceOptions),
      }));
    for (const t of this.trackers) this.trackerOf.set(t.schedule.path, t.tracker);
    this.stateful = this.trackers.length > 0;
  }

  /** Every scheduled value at `step` (cached per step; the cache is cleared when a performance value moves). */
  resolve(step: number): ResolvedValues {
    const hit = this.cache.get(step);
    if (hit) return hit;
    const weights = this.base.weights.slice();
    const thresholds = this.base.thresholds.slice();
    const opts: Array<Record<string, unknown> | undefined> = [];
    for (const s of this.spec.schedules) {
      const tracker = this.trackerOf.get(s.path);
      const v = tracker ? tracker.valueAt(step) : s.at(step);
      if (s.target === "weight") weights[s.component] = v;
      else if (s.target === "passThreshold") thresholds[s.component] = v;
      else (opts[s.component] ??= { ...this.base.options[s.component] })[s.key] = v;
    }
    const options: ResolvedValues["options"] = [];
    for (const c of this.optionComponents) options[c] = { key: JSON.stringify(opts[c]), options: opts[c]! };
    const r: ResolvedValues = { step, weights, thresholds, options };
    if (this.cache.size >= 4096) this.cache.clear();
    this.cache.set(step, r);
    return r;
  }

  /** Values of every scheduled option path at each step, in spec order (what `check --steps` prints). */
  table(steps: readonly number[]): Record<string, number[]> {
    const out: Record<string, number[]> = {};
    for (const s of this.spec.schedules) {
      const tracker = this.trackerOf.get(s.path);
      out[s.path] = steps.map((st) => (tracker ? tracker.valueAt(st) : s.at(st)));
    }
    return out;
  }

  private lowestInflight(): number {
    let m = Infinity;
    for (const k of this.inflight.keys()) if (k < m) m = k;
    return m;
  }

  /**
   * Starts a rollout at `step`: registers it (synchronously), waits for earlier-step rollouts when a performance
   * window must be sealed, and returns the values in force. Pair every call with {@link end}.
   */
  async begin(step: number): Promise<{ seq: number; values: ResolvedValues }> {
    const seq = this.seq++;
    this.inflight.set(step, (this.inflight.get(step) ?? 0) + 1);
    if (this.fleet) await this.fleet.enter(step);
    if (step > this.frontier) {
      while (this.lowestInflight() < step) await new Promise<void>((wake) => this.waiters.push({ step, wake }));
      if (step > this.frontier) {
        if (this.fleet) await this.advanceFleet(step);
        else this.seal(step);
      }
    }
    return { seq, values: this.resolve(step) };
  }

  /**
   * Shares the performance schedules with a fleet of replicas through a store (`FleetSchedules`): results go to the
   * store, and a step is sealed once for the whole fleet from the union of every replica's results.
   */
  share(fleet: ScheduleShare): void {
    if (this.stateful) this.fleet = fleet;
  }

  private advanceFleet(step: number): Promise<void> {
    let p = this.advancing.get(step);
    if (!p) {
      const fleet = this.fleet!;
      p = fleet.advance(step, this).then((ok) => {
        this.advancing.delete(step);
        if (!ok && step > this.frontier) this.seal(step); // the store failed: seal from this replica's own results
      });
      this.advancing.set(step, p);
    }
    return p;
  }

  /**
   * Finishes a rollout started with {@link begin}: records its pass/fail for each performance schedule. In a fleet
   * ({@link share}) the result goes to the store: await the promise before answering.
   */
  end(seq: number, values: ResolvedValues, results: readonly ComponentResult[] | undefined): Promise<void> | void {
    let passes: boolean[] | undefined;
    if (results) {
      passes = this.trackers.map(({ schedule }) => {
        const i = schedule.tracks!;
        const s = results[i]?.score;
        return s !== null && s !== undefined && s >= values.thresholds[i]!;
      });
      if (!this.fleet) this.pending.push({ step: values.step, seq, passes });
    }
    const n = (this.inflight.get(values.step) ?? 1) - 1;
    if (n <= 0) this.inflight.delete(values.step);
    else this.inflight.set(values.step, n);
    const low = this.lowestInflight();
    const ready = this.waiters.filter((w) => low >= w.step);
    if (ready.length > 0) {
      this.waiters = this.waiters.filter((w) => low < w.step);
      for (const w of ready) w.wake();
    }
    if (this.fleet) {
      const p = passes;
      return this.fleet.leave(values.step, p, () => p && this.pending.push({ step: values.step, seq, passes: p }));
    }
  }

  private seal(step: number): void {
    const now = this.pending.filter((p) => p.step < step).sort((a, b) => a.step - b.step || a.seq - b.seq);
    this.pending = this.pending.filter((p) => p.step >= step);
    this.sealWith(step, now);
  }

  /**
   * Seals `step` with `results` (in the order they enter the windows: by step, then arrival): applies each
   * performance rule once and sets the frontier. The fleet calls it under its lock with every replica's results.
   */
  sealWith(step: number, now: ReadonlyArray<{ passes: readonly boolean[] }>): void {
    this.frontier = Math.max(this.frontier, step);
    if (now.length === 0) return;
    let moved = false;
    this.trackers.forEach(({ tracker }, k) => {
      if (
        tracker.observe(
          now.map((p) => p.passes[k]!),
          step,
        )
      )
        moved = true;
    });
    if (moved) this.cache.clear();
  }

  /** The trackers and frontier, for the fleet's store (results pending are kept there, not here). */
  sharedSnapshot(): SharedScheduleState {
    const { pending: _, ...rest } = this.snapshot();
    return rest;
  }

  /** Takes the fleet's trackers and frontier (what another replica sealed); this replica's own pending results stay. */
  loadShared(state: SharedScheduleState): void {
    for (const { schedule, tracker } of this.trackers) {
      const s = state.schedules[schedule.path];
      if (s) tracker.restore(s);
    }
    this.frontier = Math.max(this.frontier, state.frontier);
    this.cache.clear();
  }

  /** The performance schedules' state as JSON-ready data. Take it when no rollout is in flight. */
  snapshot(): ScheduleState {
    const schedules: ScheduleState["schedules"] = {};
    for (const { schedule, tracker } of this.trackers)
      schedules[schedule.path] = { ...tracker.snapshot(), params: schedule.params };
    const paths = this.trackers.map((t) => t.schedule.path);
    const pending = [...this.pending]
      .sort((a, b) => a.seq - b.seq)
      .map((p) => ({ step: p.step, passes: Object.fromEntries(paths.map((path, k) => [path, p.passes[k] ? 1 : 0])) }));
    return { version: 1, frontier: this.frontier, schedules, pending };
  }

  /**
   * Resumes from a snapshot (a restart continues exactly where the snapshot was taken).
   * @throws {ScheduleStateError} when the state names a schedule this spec lacks, or one with other options.
   */
  restore(state: ScheduleState): void {
    const pendingOk = (p: unknown): boolean =>
      typeof (p as { step?: unknown })?.step === "number" &&
      typeof (p as { passes?: unknown }).passes === "object" &&
      (p as { passes: unknown }).passes !== null;
    if (
      state?.version !== 1 ||
      typeof state.schedules !== "object" ||
      state.schedules === null ||
      (state.pending !== undefined && !(Array.isArray(state.pending) && state.pending.every(pendingOk)))
    ) {
      throw new ScheduleStateError("not a rewardkit schedule state (version 1)");
    }
    for (const path of Object.keys(state.schedules)) {
      if (!this.trackerOf.has(path))
        throw new ScheduleStateError(`state has a performance schedule at ${path}, which this spec does not have`);
    }
    for (const { schedule, tracker } of this.trackers) {
      const s = state.schedules[schedule.path];
      if (!s) continue; // a schedule added since the state was saved starts fresh
      if (canonical(s.params) !== canonical(schedule.params)) {
        throw new ScheduleStateError(
          `${schedule.path}: the state was saved with other schedule options (${canonical(s.params)}); delete the state file to start over`,
        );
      }
      tracker.restore(s);
    }
    this.frontier = typeof state.frontier === "number" ? state.frontier : -1;
    const paths = this.trackers.map((t) => t.schedule.path);
    this.pending = (state.pending ?? []).map((p) => ({
      step: p.step,
      seq: this.seq++,
      passes: paths.map((path) => p.passes[path] === 1),
    }));
    this.cache.clear();
  }
}
