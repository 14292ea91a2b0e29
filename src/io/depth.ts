/**
 * Deepest nesting of arrays and objects a rollout record may have (default 256 levels). JSON.parse reads any
 * depth, but JSON.stringify, structuredClone (the worker pool) and recursive code stop with a RangeError at some
 * thousands of levels; a real rollout (chat messages, metadata, a JSON-schema reference) needs a few dozen.
 */
export const MAX_JSON_DEPTH = 256;

/**
 * Where `value` nests arrays and objects deeper than `max` levels (the value itself is level 1 when it is an
 * array or object), without recursion (any depth is safe to check).
 * @returns the path to the first array or object past `max` as keys and indices, or undefined when it fits.
 */
export function tooDeep(value: unknown, max: number = MAX_JSON_DEPTH): Array<string | number> | undefined {
  if (value === null || typeof value !== "object") return undefined;
  // depth-first; each entry: a container, its depth and the key that led to it (the path is rebuilt from `up`)
  const stack: Array<{ v: object; d: number; key: string | number | undefined; up: number }> = [
    { v: value, d: 1, key: undefined, up: -1 },
  ];
  const seen: Array<{ key: string | number | undefined; up: number }> = [];
  while (stack.length > 0) {
    const e = stack.pop()!;
    const me = seen.push({ key: e.key, up: e.up }) - 1;
    if (e.d > max) {
      const path: Array<string | number> = [];
      for (let k = me; k > 0; k = seen[k]!.up) path.unshift(seen[k]!.key!);
      return path;
    }
    if (Array.isArray(e.v)) {
      for (let i = e.v.length - 1; i >= 0; i--) {
        const x: unknown = e.v[i];
        if (x !== null && typeof x === "object") stack.push({ v: x, d: e.d + 1, key: i, up: me });
      }
    } else {
      for (const k of Object.keys(e.v)) {
        const x = (e.v as Record<string, unknown>)[k];
        if (x !== null && typeof x === "object") stack.push({ v: x, d: e.d + 1, key: k, up: me });
      }
    }
  }
  return undefined;
}
