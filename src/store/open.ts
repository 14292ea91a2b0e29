import { UserError } from "../core/errors.js";
import { MemoryStore } from "./memory.js";
import { RedisStore } from "./redis.js";
import type { Store } from "./types.js";

/** Environment variable naming the store when `--store` is not given. */
export const STORE_ENV = "REWARDKIT_STORE";

/**
 * Parses a store address: `redis://[user:password@]host[:port][/db]`, `rediss://…` (TLS), or `memory` (this
 * process only: what a single server uses without `--store`). @throws {UserError} naming the address and the fix.
 */
export function storeFromUrl(url: string, prefix?: string): Store {
  const u = url.trim();
  if (u === "memory") return new MemoryStore();
  let parsed: URL;
  try {
    parsed = new URL(u);
  } catch {
    throw new UserError(`store ${JSON.stringify(url)}: not a URL; expected redis://host:port[/db] or memory`);
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:")
    throw new UserError(
      `store ${JSON.stringify(url)}: unsupported scheme ${parsed.protocol}; expected redis:// or rediss://`,
    );
  if (parsed.hostname === "") throw new UserError(`store ${JSON.stringify(url)}: no host`);
  const db = parsed.pathname.replace(/^\//, "");
  if (db !== "" && !/^\d+$/.test(db))
    throw new UserError(
      `store ${JSON.stringify(url)}: the database must be a number (redis://host:port/0), got ${JSON.stringify(db)}`,
    );
  return new RedisStore({ url: u, ...(prefix !== undefined ? { prefix } : {}) });
}

/**
 * Opens the store and checks it answers, retrying for `waitMs` (a Redis that starts a moment after the replicas).
 * @throws {UserError} naming the address when it still does not answer (the store is closed first).
 */
export async function openStore(url: string, waitMs = 10_000, prefix?: string): Promise<Store> {
  const store = storeFromUrl(url, prefix);
  const t0 = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      await store.ping();
      return store;
    } catch (e) {
      const permanent = /does not exist on this server/.test((e as Error).message);
      if (permanent || Date.now() - t0 >= waitMs) {
        await store.close();
        throw new UserError(
          `store ${store.description} does not answer (tried for ${((Date.now() - t0) / 1000).toFixed(1)} s): ${(e as Error).message}. ` +
            "Start it (redis-server), fix the address, or serve without --store (each replica then keeps its own cache, schedules and budgets)",
        );
      }
      const left = waitMs - (Date.now() - t0);
      await new Promise((r) => setTimeout(r, Math.max(0, Math.min(1000, 100 * 2 ** attempt, left))));
    }
  }
}
