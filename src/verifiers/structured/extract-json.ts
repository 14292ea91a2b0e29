import { z } from "zod";

/**
 * Where to look for the JSON document in a completion:
 * - `auto` (default): the whole text if it parses, else the last fenced block (```json … ``` or any fence),
 *   else the last balanced `{…}` / `[…]` span;
 * - `whole`: the whole text (trimmed);
 * - `fence`: the last fenced code block;
 * - `last`: the last balanced object or array.
 */
export const extractOption = z.enum(["auto", "whole", "fence", "last"]).default("auto");
export type ExtractMode = z.infer<typeof extractOption>;

/** The outcome of looking for JSON: a value, nothing found, or a candidate that does not parse. */
export type JsonFound =
  | { kind: "ok"; value: unknown; source: "whole" | "fence" | "last" }
  | { kind: "none" }
  | {
      kind: "invalid";
      source: "whole" | "fence" | "last";
      error: string;
      position?: number;
      line?: number;
      column?: number;
    };

const FENCE = /(^|\n)[ \t]*(`{3,}|~{3,})[ \t]*([^\n`]*)\n(?:([\s\S]*?)\n)?[ \t]*\2[ \t]*(?=\n|$)/g;

/** The body of the last fenced code block, preferring blocks labelled `json`/`jsonc`/`json5`; `undefined` when none. */
export function lastFence(text: string): string | undefined {
  let last: string | undefined;
  let lastJson: string | undefined;
  for (const m of text.matchAll(FENCE)) {
    last = m[4] ?? "";
    if (/^json/i.test((m[3] ?? "").trim())) lastJson = last;
  }
  return lastJson ?? last;
}

/**
 * The last top-level balanced `{…}` or `[…]` span, skipping brackets inside JSON strings. Linear time.
 * Example: `lastBalanced('a {"x": [1]} b [2]')` → `"[2]"`.
 */
export function lastBalanced(text: string): string | undefined {
  let depth = 0;
  let start = -1;
  let inString = false;
  let found: [number, number] | undefined;
  const stack: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"' && depth > 0) inString = true;
    else if (c === "{" || c === "[") {
      if (depth === 0) start = i;
      stack.push(c === "{" ? "}" : "]");
      depth++;
    } else if ((c === "}" || c === "]") && depth > 0) {
      if (stack[stack.length - 1] !== c) {
        // mismatched closer: abandon this candidate
        depth = 0;
        stack.length = 0;
        continue;
      }
      stack.pop();
      depth--;
      if (depth === 0) found = [start, i + 1];
    }
  }
  return found ? text.slice(found[0], found[1]) : undefined;
}

/**
 * Offset of the first JSON syntax error in `text` (RFC 8259 grammar), or -1 when it is valid. Linear time,
 * iterative (no recursion, so deep nesting cannot overflow the stack). Node's `JSON.parse` messages do not
 * always carry a position, hence this scanner; it runs only after a parse failed.
 * Example: `jsonErrorOffset('{"a": }')` → 6.
 */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const n = text.length;
  const ws = (): void => {
    while (i < n && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  };
  const stack: Array<"{" | "["> = [];
  // expecting: a value; after a value: , or closer
  for (;;) {
    ws();
    if (i >= n) return i;
    const c = text[i]!;
    // ---- a value ----
    if (c === "{" || c === "[") {
      stack.push(c);
      i++;
      ws();
      if (text[i] === (c === "{" ? "}" : "]")) {
        stack.pop();
        i++;
      } else if (c === "{") {
        const e = key();
        if (e >= 0) return e;
        continue;
      } else continue;
    } else if (c === '"') {
      const e = str();
      if (e >= 0) return e;
    } else if (c === "-" || (c >= "0" && c <= "9")) {
      const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
      if (!m) return i;
      i += m[0].length;
    } else {
      const lit = ["true", "false", "null"].find((l) => text.startsWith(l, i));
      if (!lit) return i;
      i += lit.length;
    }
    // ---- after a value ----
    for (;;) {
      ws();
      const top = stack[stack.length - 1];
      if (top === undefined) return i < n ? i : -1;
      if (text[i] === ",") {
        i++;
        if (top === "{") {
          ws();
          const e = key();
          if (e >= 0) return e;
        }
        break;
      }
      if (text[i] === (top === "{" ? "}" : "]")) {
        stack.pop();
        i++;
        continue;
      }
      return i;
    }
  }
  function str(): number {
    i++; // opening quote
    while (i < n) {
      const ch = text.charCodeAt(i);
      if (ch === 34) {
        i++;
        return -1;
      }
      if (ch < 32) return i;
      if (ch === 92) {
        const esc = text[i + 1];
        if (esc === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return i;
          i += 6;
        } else if (esc !== undefined && '"\\/bfnrt'.includes(esc)) i += 2;
        else return i;
      } else i++;
    }
    return i;
  }
  /** An object key and its colon (at a `"`, whitespace before the colon allowed): -1, or the error offset. */
  function key(): number {
    if (text[i] !== '"') return i;
    const e = str();
    if (e >= 0) return e;
    ws();
    if (text[i] !== ":") return i;
    i++;
    return -1;
  }
}

function parse(text: string, source: "whole" | "fence" | "last"): JsonFound {
  try {
    return { kind: "ok", value: JSON.parse(text), source };
  } catch (e) {
    const error = (e as Error).message;
    const position = Math.max(0, jsonErrorOffset(text));
    const before = text.slice(0, position).split("\n");
    return {
      kind: "invalid",
      source,
      error,
      position,
      line: before.length,
      column: (before[before.length - 1]?.length ?? 0) + 1,
    };
  }
}

/**
 * Finds and parses the JSON document of a completion (see {@link extractOption}).
 * In `auto` mode a parse failure of the chosen candidate is reported (`invalid`), with the character
 * position, line and column of the error inside that candidate.
 * Examples: `findJson('{"a": 1}', "auto")` → ok `{a: 1}`; `findJson('Result:\n```json\n[1, 2]\n```', "auto")` → ok `[1, 2]`;
 * `findJson("no json here", "auto")` → none; `findJson('{"a": }', "whole")` → invalid at line 1, column 7.
 */
export function findJson(text: string, mode: ExtractMode): JsonFound {
  const trimmed = text.trim();
  if (mode === "whole") return trimmed === "" ? { kind: "none" } : parse(trimmed, "whole");
  if (mode === "fence") {
    const f = lastFence(text);
    return f === undefined ? { kind: "none" } : parse(f.trim(), "fence");
  }
  if (mode === "last") {
    const b = lastBalanced(text);
    return b === undefined ? { kind: "none" } : parse(b, "last");
  }
  if (trimmed === "") return { kind: "none" };
  const whole = parse(trimmed, "whole");
  if (whole.kind === "ok") return whole;
  const f = lastFence(text);
  if (f !== undefined) return parse(f.trim(), "fence");
  const b = lastBalanced(text);
  if (b !== undefined) return parse(b, "last");
  // The whole text looks like an attempt at JSON (starts like a document) but does not parse: report that.
  return /^[[{"]/.test(trimmed) ? whole : { kind: "none" };
}
