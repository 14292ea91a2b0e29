/**
 * The group barrier: rollouts that say how large their group is (`group_size`) are held until the whole group has
 * arrived, from any number of requests, connections and trainer processes, so group-stage components and advantages
 * see the same group `rewardkit score` would. The idea is slime's group reward model (`--group-rm`: the reward is
 * computed once every sample of the group has finished, THUDM/slime `slime/rollout/sglang_rollout.py`); here the
 * barrier lives in the reward server, so every trainer gets it.
 *
 * A group is keyed by what the caller says identifies it (the served spec, the step, the group id). It completes
 * when `size` *distinct* member ids have joined; a member that joins again with the same id (a retry) counts once and
 * gets the same answer. A group still short of `size` `waitMs` after its first member joined is finished as
 * *partial*: the caller's `finish` decides what that means (the server marks the staged components
 * `partial_group`). Waiting members are bounded (count and approximate bytes): a join that would open a new group
 * past the bound is refused ({@link GroupBarrier.room}); members of groups already waiting are always let in, since
 * they are what frees the room.
 *
 * This class knows nothing of rewards: members carry an opaque payload, `finish` maps the payloads of a group to one
 * answer per member. Pure bookkeeping plus one timer per waiting group.
 */
import { createHash } from "node:crypto";

/** Limits of the barrier. */
export interface BarrierOptions {
  /** How long a group may wait for its members after its first one joined, ms (> 0). */
  waitMs: number;
  /** Most members waiting over all groups (> 0). */
  maxMembers: number;
  /** Most approximate bytes of waiting members over all groups (> 0). */
  maxBytes: number;
  /** How long a finished group's answers are kept for a retried member, ms (default min(waitMs, 30 000)). */
  keepMs?: number;
}

/** How a group ended, as `finish` sees it. */
export interface GroupEnd {
  key: string;
  /** The size the group was opened with. */
  size: number;
  /** Members that arrived (distinct ids), ≤ size. */
  arrived: number;
  complete: boolean;
  /** From the first member's arrival to the end, ms. */
  waitedMs: number;
}

/** What a joining member gets back. */
export type JoinResult<R> =
  | { kind: "answer"; answer: R }
  /** The member cannot be part of the group (another size, an id reused with another content, one too many). */
  | { kind: "refused"; message: string }
  /** The server is going away before the group could end: the caller answers 503 so the client retries elsewhere. */
  | { kind: "evicted"; message: string };

interface Member<P, R> {
  id: string;
  fingerprint: string;
  payload: P;
  bytes: number;
  waiters: Array<(r: JoinResult<R>) => void>;
}

interface Waiting<P, R> {
  key: string;
  size: number;
  opened: number;
  deadline: number;
  timer: NodeJS.Timeout;
  members: Map<string, Member<P, R>>;
  bytes: number;
}

interface Finished<R> {
  size: number;
  answers: Map<string, { fingerprint: string; answer: R }>;
  until: number;
}

/** A fingerprint of a member's content (its JSON text): a retry must carry the same content as the first arrival. */
export function fingerprint(text: string): string {
  return createHash("sha256").update(text).digest("base64url").slice(0, 22);
}

/** See the module comment. `P`: a member's payload; `R`: a member's answer. */
export class GroupBarrier<P, R> {
  private readonly waiting = new Map<string, Waiting<P, R>>();
  private readonly finished = new Map<string, Finished<R>>();
  private members = 0;
  private bytes = 0;
  private readonly keepMs: number;
  /** Groups that ended with every member. */
  completed = 0;
  /** Groups that ended short of their size (timed out). */
  partial = 0;
  /** Joins refused because the bound was reached ({@link room} said no). */
  refused = 0;

  /**
   * @param finish maps a group's payloads (in arrival order) to one answer each; called once per group, when it
   *   completes or times out. A throw (or rejection) makes every member's answer `onError(error, payload)`.
   */
  constructor(
    readonly options: BarrierOptions,
    private readonly finish: (payloads: P[], end: GroupEnd) => Promise<R[]> | R[],
    private readonly onError: (e: unknown, payload: P, end: GroupEnd) => R,
  ) {
    this.keepMs = options.keepMs ?? Math.min(options.waitMs, 30_000);
  }

  /** Groups waiting now. */
  get groupsWaiting(): number {
    return this.waiting.size;
  }

  /** Members waiting now (distinct ids). */
  get membersWaiting(): number {
    return this.members;
  }

  /** Approximate bytes of the members waiting now. */
  get bytesWaiting(): number {
    return this.bytes;
  }

  /**
   * Can these joins be let in? Joins to groups already waiting always can; new groups only while the waiting
   * members and bytes (these joins' included) stay within the bounds. Check and join in the same synchronous turn.
   * @returns undefined when they fit, else the seconds after which to retry (the earliest waiting group's end,
   *   clamped to 1..60) and why.
   */
  room(joins: ReadonlyArray<{ key: string; bytes: number }>): { retryAfterS: number; message: string } | undefined {
    let members = this.members;
    let bytes = this.bytes;
    let opens = false;
    for (const j of joins) {
      members++;
      bytes += j.bytes;
      if (!this.waiting.has(j.key)) opens = true;
    }
    if (!opens || (members <= this.options.maxMembers && bytes <= this.options.maxBytes)) return undefined;
    this.refused++;
    let first = Infinity;
    for (const w of this.waiting.values()) first = Math.min(first, w.deadline);
    const retryAfterS = Math.min(60, Math.max(1, Math.ceil((first - Date.now()) / 1000)));
    return {
      retryAfterS,
      message:
        `${this.members} rollouts (${Math.round(this.bytes / 1024)} KiB) of ${this.waiting.size} groups are waiting for ` +
        `the rest of their groups (the bounds are ${this.options.maxMembers} rollouts, ${Math.round(this.options.maxBytes / 1024)} KiB)`,
    };
  }

  /**
   * Adds member `id` (with content `fingerprint` and approximate size `bytes`) to group `key` of `size`, opening the
   * group when it is not waiting. Resolves once the group has ended.
   */
  join(key: string, size: number, id: string, fp: string, payload: P, bytes: number): Promise<JoinResult<R>> {
    const done = this.finished.get(key);
    if (done && done.until > Date.now()) {
      const prior = done.answers.get(id);
      if (prior)
        return Promise.resolve(
          prior.fingerprint === fp ? { kind: "answer", answer: prior.answer } : this.reused(id, key),
        );
    }
    let w = this.waiting.get(key);
    if (!w) {
      const now = Date.now();
      w = {
        key,
        size,
        opened: now,
        deadline: now + this.options.waitMs,
        timer: undefined as unknown as NodeJS.Timeout,
        members: new Map(),
        bytes: 0,
      };
      const opened = w;
      w.timer = setTimeout(() => this.end(opened), this.options.waitMs);
      w.timer.unref?.();
      this.waiting.set(key, w);
    } else if (w.size !== size) {
      return Promise.resolve({
        kind: "refused",
        message: `group_size ${size} differs from the ${w.size} this group was opened with (group_size must be the same on every rollout of a group)`,
      });
    }
    const group = w;
    return new Promise<JoinResult<R>>((resolve) => {
      const m = group.members.get(id);
      if (m) {
        if (m.fingerprint !== fp) resolve(this.reused(id, key));
        else m.waiters.push(resolve); // a retry: counts once, gets the first arrival's answer
        return;
      }
      group.members.set(id, { id, fingerprint: fp, payload, bytes, waiters: [resolve] });
      group.bytes += bytes;
      this.members++;
      this.bytes += bytes;
      if (group.members.size >= group.size) this.end(group);
    });
  }

  private reused(id: string, key: string): JoinResult<R> {
    return {
      kind: "refused",
      message: `id ${JSON.stringify(id)} already joined group ${describeKey(key)} with other content: each rollout of a group needs its own id`,
    };
  }

  /** Ends a waiting group: takes it out of the waiting set, finishes it, answers its members. */
  private end(w: Waiting<P, R>): void {
    if (this.waiting.get(w.key) !== w) return;
    clearTimeout(w.timer);
    this.waiting.delete(w.key);
    this.members -= w.members.size;
    this.bytes -= w.bytes;
    const members = [...w.members.values()];
    const info: GroupEnd = {
      key: w.key,
      size: w.size,
      arrived: members.length,
      complete: members.length >= w.size,
      waitedMs: Date.now() - w.opened,
    };
    if (info.complete) this.completed++;
    else this.partial++;
    const payloads = members.map((m) => m.payload);
    const answerAll = (answers: R[]): void => {
      const record: Finished<R> = { size: w.size, answers: new Map(), until: Date.now() + this.keepMs };
      members.forEach((m, k) => {
        record.answers.set(m.id, { fingerprint: m.fingerprint, answer: answers[k]! });
        for (const resolve of m.waiters) resolve({ kind: "answer", answer: answers[k]! });
      });
      this.keep(w.key, record);
    };
    const failed = (e: unknown): void => answerAll(payloads.map((p) => this.onError(e, p, info)));
    try {
      Promise.resolve(this.finish(payloads, info)).then((answers) => {
        if (answers.length !== payloads.length)
          failed(new Error(`finish returned ${answers.length} answers for ${payloads.length} members`));
        else answerAll(answers);
      }, failed);
    } catch (e) {
      failed(e);
    }
  }

  /** Records a finished group's answers for retried members; drops records past their time. */
  private keep(key: string, record: Finished<R>): void {
    const now = Date.now();
    for (const [k, f] of this.finished) {
      if (f.until > now) break; // insertion order is expiry order (keepMs is fixed)
      this.finished.delete(k);
    }
    this.finished.delete(key);
    this.finished.set(key, record);
  }

  /**
   * Answers every waiting member `evicted` (on shutdown: the clients retry on another replica, where the group can
   * meet again) and forgets the waiting groups.
   */
  evict(message: string): void {
    for (const w of [...this.waiting.values()]) {
      clearTimeout(w.timer);
      this.waiting.delete(w.key);
      for (const m of w.members.values()) for (const resolve of m.waiters) resolve({ kind: "evicted", message });
    }
    this.members = 0;
    this.bytes = 0;
  }
}

/** A barrier key for messages: its parts joined readably. */
export function describeKey(key: string): string {
  return key
    .split("\u0000")
    .filter((p) => p !== "")
    .join(" / ");
}
