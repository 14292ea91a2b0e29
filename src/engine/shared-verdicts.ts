import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ComponentResult } from "../core/types.js";
import type { StoreGuard } from "../store/guard.js";

/**
 * A digest of the code that computes verdicts: every `.js` / `.ts` file under `root` (default: this build's folder,
 * `dist/` or `src/`; maps and declarations left out) and each extra file (a spec's plugin modules), by path and
 * content. Part of every shared verdict's key, so replicas running other code (a rolling upgrade that fixed a
 * verifier) never serve each other's verdicts. Computed once per root and file list (~400 files, milliseconds).
 * @returns 16 base64url characters.
 */
export function codeDigest(
  extra: readonly string[] = [],
  root = dirname(dirname(fileURLToPath(import.meta.url))),
): string {
  const key = JSON.stringify([root, extra]);
  let d = digests.get(key);
  if (d === undefined) {
    const h = createHash("sha256");
    const files = readdirSync(root, { recursive: true, encoding: "utf8" })
      .filter((f) => /\.(js|ts)$/.test(f) && !f.endsWith(".d.ts"))
      .sort();
    for (const f of files)
      h.update(`${f}\u0000`)
        .update(readFileSync(join(root, f)))
        .update("\u0000");
    for (const f of extra) h.update(`${f}\u0000`).update(readFileSync(f)).update("\u0000");
    d = h.digest("base64url").slice(0, 16);
    digests.set(key, d);
  }
  return d;
}
const digests = new Map<string, string>();

/** Most verdicts written in one round trip. */
const MAX_BATCH = 512;

/** How long a verdict stays in the shared store by default, ms (24 h: a training run's steps revisit prompts). */
export const DEFAULT_VERDICT_TTL_MS = 24 * 3600 * 1000;

/**
 * The verdict cache shared by a fleet of replicas, second tier behind each scorer's in-process cache: same key as
 * the local cache (component, completion, reference, declared fields, scheduled options) behind the spec's hash and
 * the {@link codeDigest} (the scorer puts both in front), each verdict a JSON value
 * expiring `ttlMs` after it was written. Lookups and writes go through a {@link StoreGuard}: when the store fails, a
 * lookup is a miss and a write is dropped (the replica scores locally).
 */
export class SharedVerdicts {
  private readonly prefix = "v:";
  private queue: Array<[string, string]> = [];

  constructor(
    private readonly guard: StoreGuard,
    private readonly ttlMs = DEFAULT_VERDICT_TTL_MS,
  ) {}

  /** The verdict stored under `key`, or undefined (absent, unreadable, or the store failed). */
  async get(key: string): Promise<ComponentResult | undefined> {
    const [v] = await this.guard.attempt(
      "cache_get",
      (s) => s.getMany([this.prefix + key]),
      () => [undefined],
    );
    if (v !== undefined) {
      try {
        return JSON.parse(v) as ComponentResult;
      } catch {
        // a value written by something else: a miss
      }
    }
    return undefined;
  }

  /**
   * Stores a verdict (not awaited by scoring: a slow store never delays a reward). Writes made while the event loop
   * is busy leave together in one pipelined round trip on the next turn of the loop (one write per verdict, as each
   * comes back from the worker pool, would cost a round trip and a system call each).
   */
  set(key: string, r: ComponentResult): void {
    this.queue.push([this.prefix + key, JSON.stringify(r)]);
    if (this.queue.length === 1) setImmediate(() => this.flush());
    else if (this.queue.length >= MAX_BATCH) this.flush();
  }

  private flush(): void {
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    void this.guard.attempt(
      "cache_set",
      (s) => s.setMany(batch, this.ttlMs),
      () => undefined,
    );
  }
}
