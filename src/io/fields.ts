import { UserError } from "../core/errors.js";

/** Reads a dotted path (`labels.peer_correct`, `responses.0`) from a JSON value; `undefined` when absent. */
export function getPath(value: unknown, path: string): unknown {
  let cur: unknown = value;
  for (const key of path.split(".")) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/**
 * Parses `--map` entries `canonical=source` (e.g. `completion=response`, `reference=answer.value`).
 * @throws UserError naming the entry when it is not of the form `name=path`.
 */
export function parseFieldMap(entries: readonly string[]): Record<string, string> {
  const map: Record<string, string> = {};
  for (const e of entries) {
    const m = /^([A-Za-z_]\w*)=(\S+)$/.exec(e);
    if (!m) throw new UserError(`--map ${e}: expected field=source, e.g. completion=response`);
    map[m[1]!] = m[2]!;
  }
  return map;
}
