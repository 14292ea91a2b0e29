import { randomBytes } from "node:crypto";
import type { StoreGuard } from "../store/guard.js";
import type { ScheduleRuntime, ScheduleShare, SharedScheduleState } from "./runtime.js";

/** Settings of {@link FleetSchedules}. */
export interface FleetOptions {
  /** This replica's id in the store (default: random). */
  replica?: string;
  /** A replica's in-flight counts expire this long after its last heartbeat, ms (default 10 000). */
  leaseMs?: number;
  /**
   * Longest wait for other replicas' rollouts of lower steps before a step is sealed without them, ms (default
   * 30 000: the server's rollout deadline). Their results are then sealed with the next step, as late rollouts are.
   */
  maxWaitMs?: number;
  /** Poll interval while waiting for other replicas, ms (default 20). */
  pollMs?: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Performance schedules shared by a fleet of replicas through the store, so a schedule advances once per step for the
 * whole fleet, from the union of every replica's results, at the same step on every replica.
 *
 * The single-process rule of {@link ScheduleRuntime} (results of step s are sealed into the windows when the first
 * rollout of a later step arrives, after every earlier-step rollout has finished) carried to the fleet:
 * - each replica counts its rollouts in flight per step in the store (`registryAdd`, with a heartbeat: the counts of
 *   a replica that dies expire after `leaseMs`) and appends each finished rollout's pass/fail to the step's list;
 * - the first replica to see a step s' above the fleet's frontier waits until no replica has a rollout of a lower
 *   step in flight (at most `maxWaitMs`), takes the fleet lock, and seals: the trackers' state from the store, every
 *   pending result of steps < s' in (step, arrival) order, the rule applied once, the new state and frontier s'
 *   written back; every other replica reads that state instead of sealing;
 * - the value at a step is read from the trackers' history, which every replica shares: a move made when s' was
 *   sealed applies from s' on, on every replica.
 * A store that fails returns `false` from {@link advance}: the replica seals from its own results (degraded, with a
 * warning and `rewardkit_store_errors_total`), and takes the fleet's state again when the store answers.
 */
export class FleetSchedules implements ScheduleShare {
  private readonly replica: string;
  private readonly leaseMs: number;
  private readonly maxWaitMs: number;
  private readonly pollMs: number;
  private readonly keys: {
    state: string;
    lock: string;
    index: string;
    inflight: string;
    pending: (s: number) => string;
  };
  private readonly heartbeat: NodeJS.Timeout;
  private warnedWait = false;

  constructor(
    private readonly guard: StoreGuard,
    specHash: string,
    o: FleetOptions = {},
  ) {
    this.replica = o.replica ?? randomBytes(8).toString("hex");
    this.leaseMs = o.leaseMs ?? 10_000;
    this.maxWaitMs = o.maxWaitMs ?? 30_000;
    this.pollMs = o.pollMs ?? 20;
    const ns = `s:${specHash}:`;
    this.keys = {
      state: `${ns}state`,
      lock: `${ns}lock`,
      index: `${ns}pending`,
      inflight: `${ns}inflight`,
      pending: (s) => `${ns}pending:${s}`,
    };
    this.heartbeat = setInterval(
      () =>
        void this.guard.attempt(
          "schedule",
          (st) => st.registryTouch(this.keys.inflight, this.replica, this.leaseMs),
          () => undefined,
        ),
      Math.max(100, Math.floor(this.leaseMs / 4)),
    );
    this.heartbeat.unref();
  }

  /** Registers a rollout of `step` in flight (awaited: a replica sealing a later step must see it). */
  async enter(step: number): Promise<void> {
    await this.guard.attempt(
      "schedule",
      (s) => s.registryAdd(this.keys.inflight, this.replica, String(step), 1, this.leaseMs),
      () => undefined,
    );
  }

  /**
   * A rollout of `step` finished: its pass/fail per performance schedule (undefined when it failed) goes to the
   * step's list, then its in-flight count is dropped (in that order: a sealer that sees the count gone sees the
   * result). When the store fails, `keepLocal` keeps the result in this replica's own pending list. Awaited by the
   * scorer: a rollout's result is in the store before its answer leaves, so results enter the windows in the order
   * the trainer saw them answered.
   */
  async leave(step: number, passes: readonly boolean[] | undefined, keepLocal: () => void): Promise<void> {
    await (async () => {
      if (passes) {
        const pushed = await this.guard.attempt(
          "schedule",
          async (s) => {
            await s.appendIndexed(
              this.keys.pending(step),
              passes.map((p) => (p ? 1 : 0)).join(""),
              this.keys.index,
              step,
            );
            return true;
          },
          () => false,
        );
        if (!pushed) keepLocal();
      }
      await this.guard.attempt(
        "schedule",
        (s) => s.registryAdd(this.keys.inflight, this.replica, String(step), -1, this.leaseMs),
        () => undefined,
      );
    })();
  }

  private async readState(): Promise<SharedScheduleState | undefined> {
    const [v] = await this.guard.store.getMany([this.keys.state]);
    return v === undefined ? undefined : (JSON.parse(v) as SharedScheduleState);
  }

  /**
   * Brings `rt` to `step` for the fleet: reads the fleet's state when another replica sealed it already, else waits
   * for lower steps in flight anywhere, seals under the fleet lock and writes the state back.
   * @returns false when the store failed (the caller seals locally).
   */
  async advance(step: number, rt: ScheduleRuntime): Promise<boolean> {
    const t0 = Date.now();
    const store = this.guard.store;
    try {
      for (;;) {
        const st = await this.readState();
        if (st && st.frontier >= step) {
          rt.loadShared(st);
          return true;
        }
        const inflight = await store.registrySum(this.keys.inflight);
        const lower = Object.entries(inflight).some(([s, n]) => Number(s) < step && n > 0);
        if (lower && Date.now() - t0 < this.maxWaitMs) {
          await sleep(this.pollMs);
          continue;
        }
        if (lower && !this.warnedWait) {
          this.warnedWait = true;
          process.stderr.write(
            `rewardkit: warning: sealing schedule step ${step} while other replicas still hold rollouts of lower steps after ${this.maxWaitMs} ms; their results count from the next step\n`,
          );
        }
        const token = `${this.replica}:${randomBytes(4).toString("hex")}`;
        if (!(await store.setIfAbsent(this.keys.lock, token, 10_000))) {
          await sleep(this.pollMs);
          continue;
        }
        try {
          const cur = await this.readState();
          if (cur) rt.loadShared(cur);
          if (!cur || cur.frontier < step) {
            const results: Array<{ passes: boolean[] }> = [];
            for (const s of await store.indexBelow(this.keys.index, step))
              for (const e of await store.takeIndexed(this.keys.pending(s), this.keys.index, s))
                results.push({ passes: [...e].map((c) => c === "1") });
            rt.sealWith(step, results);
            await store.set(this.keys.state, JSON.stringify(rt.sharedSnapshot()));
          }
          return true;
        } finally {
          await store.deleteIfEquals(this.keys.lock, token);
        }
      }
    } catch (e) {
      this.guard.failed("schedule", e);
      return false;
    }
  }

  /** Stops the heartbeat. */
  close(): void {
    clearInterval(this.heartbeat);
  }
}
