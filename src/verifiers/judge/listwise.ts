import { unscorable } from "../../core/types.js";
import type { ComponentResult, Rollout } from "../../core/types.js";

/** One rollout waiting for its group. */
export interface Member {
  completion: string;
  reference: unknown;
  rollout: Rollout;
}

interface Pending {
  members: Array<Member & { resolve: (r: ComponentResult) => void }>;
  timer: NodeJS.Timeout;
}

/**
 * Gathers the rollouts of a group for one listwise judgment: the judge is called when `size` rollouts of the group
 * have arrived, or `waitMs` after the first one with those present (a group smaller than declared, or a window too
 * small to hold it). Members are ordered by rollout id before judging, so the prompt does not depend on arrival
 * order. A group that ends with one rollout is `judge_error` (a ranking needs two). The collector keeps only groups
 * still being filled: nothing survives a judged group.
 */
export class GroupCollector {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly size: number,
    private readonly waitMs: number,
    private readonly judge: (members: Member[], signal: AbortSignal | undefined) => Promise<ComponentResult[]>,
  ) {}

  /** Adds a rollout; resolves with its verdict once its group is judged. */
  add(group: string, m: Member, signal?: AbortSignal): Promise<ComponentResult> {
    return new Promise<ComponentResult>((resolve) => {
      let p = this.pending.get(group);
      if (!p) {
        p = { members: [], timer: setTimeout(() => this.flush(group, signal), this.waitMs) };
        this.pending.set(group, p);
      }
      p.members.push({ ...m, resolve });
      if (p.members.length >= this.size) this.flush(group, signal);
    });
  }

  private flush(group: string, signal: AbortSignal | undefined): void {
    const p = this.pending.get(group);
    if (!p) return;
    this.pending.delete(group);
    clearTimeout(p.timer);
    const members = [...p.members].sort((a, b) =>
      a.rollout.id < b.rollout.id ? -1 : a.rollout.id > b.rollout.id ? 1 : 0,
    );
    if (members.length < 2) {
      for (const x of members)
        x.resolve(
          unscorable("judge_error", {
            error: `listwise: only ${members.length} of ${this.size} rollouts of group ${group} arrived within ${this.waitMs} ms`,
          }),
        );
      return;
    }
    this.judge(members, signal).then(
      (results) =>
        members.forEach((x, k) =>
          x.resolve(results[k] ?? unscorable("judge_error", { error: "no verdict for this rollout" })),
        ),
      (e: unknown) =>
        members.forEach((x) => x.resolve(unscorable("judge_error", { error: String((e as Error)?.message ?? e) }))),
    );
  }
}
