/**
 * Identifiers that JSON.parse would round. `{"group": 9007199254740993}` parses to 9007199254740992, so two
 * prompts whose numeric ids differ above 2^53 would share a group. The fix reads the number's digits from the
 * source text and keeps them as a string: `"9007199254740993"`. Only the fields named (id and group) are read
 * this way, and only when their parsed value is a number that is not a safe integer, so the common case costs one
 * `typeof` per field.
 */

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

function skipWs(s: string, i: number): number {
  while (i < s.length && WS.has(s.charCodeAt(i))) i++;
  return i;
}

/** Index just past the string starting at `i` (a `"`), or -1. */
function skipString(s: string, i: number): number {
  for (i++; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i + 1;
  }
  return -1;
}

/** Index just past the JSON value starting at `i`, without recursion; -1 on malformed text. */
function skipValue(s: string, i: number): number {
  let depth = 0;
  do {
    i = skipWs(s, i);
    if (i >= s.length) return -1;
    const c = s.charCodeAt(i);
    if (c === 0x22) {
      i = skipString(s, i);
      if (i < 0) return -1;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
      i++;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
      i++;
    } else if (c === 0x2c || c === 0x3a) i++;
    else {
      while (i < s.length && !WS.has(s.charCodeAt(i)) && ![0x2c, 0x7d, 0x5d, 0x3a].includes(s.charCodeAt(i))) i++;
    }
  } while (depth > 0);
  return i;
}

/**
 * The source text of the members `keys` of the object that starts at `i` in `s` (the last one wins for duplicate
 * keys, as with JSON.parse), and the index just past the object. Text that is not an object gives no members.
 */
function membersAt(s: string, i: number, keys: ReadonlySet<string>): { raw: Map<string, string>; end: number } {
  const raw = new Map<string, string>();
  i = skipWs(s, i);
  if (s.charCodeAt(i) !== 0x7b) return { raw, end: skipValue(s, i) };
  i++;
  for (;;) {
    i = skipWs(s, i);
    if (i >= s.length) return { raw, end: -1 };
    const c = s.charCodeAt(i);
    if (c === 0x7d) return { raw, end: i + 1 };
    if (c === 0x2c) {
      i++;
      continue;
    }
    const kEnd = skipString(s, i);
    if (c !== 0x22 || kEnd < 0) return { raw, end: -1 };
    const key = JSON.parse(s.slice(i, kEnd)) as string;
    i = skipWs(s, kEnd);
    if (s.charCodeAt(i) !== 0x3a) return { raw, end: -1 };
    const vStart = skipWs(s, i + 1);
    const vEnd = skipValue(s, vStart);
    if (vEnd < 0) return { raw, end: -1 };
    if (keys.has(key)) raw.set(key, s.slice(vStart, vEnd));
    i = vEnd;
  }
}

/** A parsed integer that may have lost digits: beyond 2^53 - 1 in magnitude. */
function lossy(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v) && !Number.isSafeInteger(v);
}

/** Replaces `record[k]` for each lossy number among `keys` by its source digits (`raw`), as a string. */
function patch(record: Record<string, unknown>, keys: readonly string[], raw: Map<string, string>): void {
  for (const k of keys) {
    const r = raw.get(k);
    if (lossy(record[k]) && r !== undefined && /^-?\d/.test(r)) record[k] = r;
  }
}

/**
 * Keeps the exact digits of number-valued `keys` (default `id`, `group`) of a record parsed from `text`: an integer
 * beyond 2^53 - 1 becomes the string of its source digits. Mutates and returns `record`.
 * @param text the JSON text `record` was parsed from (one JSONL line).
 */
export function preciseMembers<T>(record: T, text: string, keys: readonly string[] = ["id", "group"]): T {
  if (record === null || typeof record !== "object" || Array.isArray(record)) return record;
  const r = record as Record<string, unknown>;
  if (!keys.some((k) => lossy(r[k]))) return record;
  patch(r, keys, membersAt(text, 0, new Set(keys)).raw);
  return record;
}

/**
 * The same for every element of the array member `arrayKey` of the object parsed from `text` (a request body
 * `{"rollouts": [...]}`): one pass over the text, and only when some element has a lossy number.
 */
export function preciseElements(
  body: unknown,
  text: string,
  arrayKey = "rollouts",
  keys: readonly string[] = ["id", "group"],
): void {
  if (body === null || typeof body !== "object") return;
  const arr = (body as Record<string, unknown>)[arrayKey];
  if (!Array.isArray(arr)) return;
  const isLossy = (x: unknown): boolean =>
    x !== null && typeof x === "object" && keys.some((k) => lossy((x as Record<string, unknown>)[k]));
  if (!arr.some(isLossy)) return;
  const top = membersAt(text, 0, new Set([arrayKey])).raw.get(arrayKey);
  if (top === undefined) return;
  const want = new Set(keys);
  let i = skipWs(top, 0);
  if (top.charCodeAt(i) !== 0x5b) return;
  i++;
  for (let k = 0; k < arr.length; k++) {
    i = skipWs(top, i);
    if (top.charCodeAt(i) === 0x2c) i = skipWs(top, i + 1);
    const el: unknown = arr[k];
    if (isLossy(el)) {
      const { raw, end } = membersAt(top, i, want);
      patch(el as Record<string, unknown>, keys, raw);
      i = end;
    } else i = skipValue(top, i);
    if (i < 0) return;
  }
}
