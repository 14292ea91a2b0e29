import { UserError } from "../core/errors.js";
import { emptyStats, mergeStats } from "./stats.js";
import type { PromptStats } from "./stats.js";

/** The persisted form of a {@link PromptTable} (the `curriculum` member of a `--state` file). */
export interface PromptTableState {
  version: 1;
  /** α the decayed counts were made with (a state is not resumed under another α). */
  alpha: number;
  /** Least recently seen first. */
  prompts: Array<{ id: string } & PromptStats>;
}

/** A `--state` file's curriculum part that cannot be read: the message names the field. */
export class CurriculumStateError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = "CurriculumStateError";
  }
}

const NUMERIC = [
  "attempts",
  "successes",
  "scored",
  "mean",
  "m2",
  "lastStep",
  "ewSuccesses",
  "ewAttempts",
  "groups",
  "flat",
];

/** The first problem of a stored prompt entry as `field: message`, or undefined. */
function entryProblem(e: unknown): string | undefined {
  if (e === null || typeof e !== "object" || Array.isArray(e)) return ": expected an object";
  const o = e as Record<string, unknown>;
  if (typeof o.id !== "string") return ".id: expected a string";
  for (const k of NUMERIC) if (typeof o[k] !== "number" || !Number.isFinite(o[k])) return `.${k}: expected a number`;
  if (o.components === null || typeof o.components !== "object" || Array.isArray(o.components))
    return ".components: expected an object of counts";
  for (const [k, v] of Object.entries(o.components as Record<string, unknown>))
    if (typeof v !== "number" || !Number.isFinite(v)) return `.components.${k}: expected a number`;
  return undefined;
}

/**
 * Per-prompt statistics with bounded memory: at most `maxPrompts` prompts, the least recently seen forgotten first
 * (a `Map` in recency order: an update moves the prompt to the end).
 */
export class PromptTable {
  private readonly map = new Map<string, PromptStats>();

  constructor(
    readonly alpha: number,
    readonly maxPrompts: number,
  ) {}

  get size(): number {
    return this.map.size;
  }

  /** Merges `delta` into prompt `id` and marks it most recently seen. @returns the prompt's new statistics. */
  add(id: string, delta: PromptStats): PromptStats {
    const cur = this.map.get(id) ?? emptyStats();
    this.map.delete(id);
    const next = mergeStats(cur, delta, this.alpha);
    this.map.set(id, next);
    while (this.map.size > this.maxPrompts) this.map.delete(this.map.keys().next().value!);
    return next;
  }

  /** Sets prompt `id` (the fleet's merged statistics), most recently seen. */
  put(id: string, s: PromptStats): void {
    this.map.delete(id);
    this.map.set(id, s);
    while (this.map.size > this.maxPrompts) this.map.delete(this.map.keys().next().value!);
  }

  get(id: string): PromptStats | undefined {
    return this.map.get(id);
  }

  /** Every prompt, least recently seen first. */
  entries(): Array<[string, PromptStats]> {
    return [...this.map.entries()];
  }

  snapshot(): PromptTableState {
    return { version: 1, alpha: this.alpha, prompts: this.entries().map(([id, s]) => ({ id, ...s })) };
  }

  /**
   * Loads a snapshot (replacing nothing: its prompts merge into what is here).
   * @throws {CurriculumStateError} naming the field (`curriculum.prompts[3].attempts: expected a number`) for a
   *   malformed state, or when it was kept with another α; never resets silently.
   */
  restore(state: unknown): void {
    const s = state as Partial<PromptTableState> | null;
    if (s === null || typeof s !== "object" || s.version !== 1)
      throw new CurriculumStateError("curriculum: not a rewardkit curriculum state (version 1)");
    if (!Array.isArray(s.prompts)) throw new CurriculumStateError("curriculum.prompts: expected an array");
    if (typeof s.alpha !== "number") throw new CurriculumStateError("curriculum.alpha: expected a number");
    if (s.alpha !== this.alpha)
      throw new CurriculumStateError(
        `curriculum.alpha: the state was kept with alpha ${s.alpha}, the spec says ${this.alpha}; set curriculum.alpha back or delete the state file to start over`,
      );
    s.prompts.forEach((e, i) => {
      const p = entryProblem(e);
      if (p !== undefined) throw new CurriculumStateError(`curriculum.prompts[${i}]${p}`);
    });
    for (const { id, ...st } of s.prompts) this.add(id, st);
  }
}
