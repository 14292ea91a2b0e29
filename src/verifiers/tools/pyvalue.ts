/**
 * Argument values with Python's type distinctions, as the Berkeley Function-Calling Leaderboard's checker sees them
 * after `json.loads` / `ast.literal_eval`: `int` and `float` are different types (`5` vs `5.0`), a tuple is not a
 * list, and `True == 1`. JavaScript's `JSON.parse` loses the first distinction, so tool-call arguments are read
 * with {@link parseJsonValue}, which keeps it.
 *
 * Representation: `null` (None), `boolean` (bool), `bigint` (int), `number` (float), `string` (str), arrays (list),
 * {@link PyTuple} (tuple), `Map<string, PyValue>` (dict; keys are strings, as in JSON).
 */
export type PyValue = null | boolean | bigint | number | string | PyValue[] | PyTuple | Map<string, PyValue>;

/** A Python tuple (a list's items, compared as a different type). */
export class PyTuple {
  constructor(readonly items: PyValue[]) {}
}

/** Python type name of a value: `NoneType`, `bool`, `int`, `float`, `str`, `list`, `tuple`, `dict`. */
export function pyType(v: PyValue): string {
  if (v === null) return "NoneType";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "bigint") return "int";
  if (typeof v === "number") return "float";
  if (typeof v === "string") return "str";
  if (Array.isArray(v)) return "list";
  if (v instanceof PyTuple) return "tuple";
  return "dict";
}

function numeric(v: PyValue): number | bigint | undefined {
  if (typeof v === "boolean") return v ? 1n : 0n;
  if (typeof v === "bigint" || typeof v === "number") return v;
  return undefined;
}

/** Python `==`: numbers (bool, int, float) compare by value; list/tuple/dict element-wise; no list == tuple. */
export function pyEq(a: PyValue, b: PyValue): boolean {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined || nb !== undefined) {
    if (na === undefined || nb === undefined) return false;
    if (typeof na === "bigint" && typeof nb === "bigint") return na === nb;
    if (typeof na === "number" && typeof nb === "number") return na === nb;
    // int vs float: equal when the float is integral and has the same value
    const f = typeof na === "number" ? na : (nb as number);
    const i = typeof na === "bigint" ? na : (nb as bigint);
    return Number.isInteger(f) && BigInt(f) === i;
  }
  if (a === null || b === null) return a === b;
  if (typeof a === "string" || typeof b === "string") return a === b;
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => pyEq(x, b[i]!));
  if (a instanceof PyTuple || b instanceof PyTuple) {
    return (
      a instanceof PyTuple &&
      b instanceof PyTuple &&
      a.items.length === b.items.length &&
      a.items.every((x, i) => pyEq(x, b.items[i]!))
    );
  }
  const ma = a as Map<string, PyValue>;
  const mb = b as Map<string, PyValue>;
  if (ma.size !== mb.size) return false;
  for (const [k, v] of ma) {
    if (!mb.has(k) || !pyEq(v, mb.get(k)!)) return false;
  }
  return true;
}

/** Python `x in xs`. */
export function pyIn(x: PyValue, xs: readonly PyValue[]): boolean {
  return xs.some((y) => pyEq(x, y));
}

/**
 * Converts a value parsed by `JSON.parse` (a reference answer, a tool schema default): integral numbers become
 * `int`, others `float`, objects `dict`. (JSON `10.0` arrives as `10` and reads as `int`: the one distinction a
 * JSONL reference cannot carry.)
 */
export function fromJson(v: unknown): PyValue {
  if (v === null || v === undefined) return null;
  if (typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "number") return Number.isInteger(v) ? BigInt(v) : v;
  if (typeof v === "bigint") return v;
  if (Array.isArray(v)) return v.map(fromJson);
  if (v instanceof Map) return v as Map<string, PyValue>;
  return new Map(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, fromJson(x)]));
}

/** Back to plain JSON data (for JSON Schema validation and reports); ints beyond 2^53 become strings. */
export function toJson(v: PyValue): unknown {
  if (typeof v === "bigint")
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
  if (Array.isArray(v)) return v.map(toJson);
  if (v instanceof PyTuple) return v.items.map(toJson);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [k, toJson(x)]));
  return v;
}

/** Python `repr`-like text of a value, for error messages. */
export function pyRepr(v: PyValue): string {
  if (v === null) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return Number.isInteger(v) ? `${v}.0` : String(v);
  if (typeof v === "string") return `'${v.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(", ")}]`;
  if (v instanceof PyTuple) return `(${v.items.map(pyRepr).join(", ")}${v.items.length === 1 ? "," : ""})`;
  return `{${[...v].map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`).join(", ")}}`;
}

/** Thrown by the parsers below with the offset of the problem. */
export class ValueSyntaxError extends Error {}

const MAX_DEPTH = 64;

/** A small cursor over a text, shared by the JSON and the Python-literal readers. */
class Reader {
  pos = 0;
  constructor(readonly text: string) {}
  ws(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos]!)) this.pos++;
  }
  peek(): string {
    return this.text[this.pos] ?? "";
  }
  fail(what: string): never {
    throw new ValueSyntaxError(`${what} at offset ${this.pos}`);
  }
  expect(ch: string): void {
    this.ws();
    if (this.text[this.pos] !== ch) this.fail(`expected "${ch}"`);
    this.pos++;
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;

function readJson(r: Reader, depth: number): PyValue {
  if (depth > MAX_DEPTH) r.fail("nesting too deep");
  r.ws();
  const c = r.peek();
  if (c === "{") {
    r.pos++;
    const m = new Map<string, PyValue>();
    r.ws();
    if (r.peek() === "}") {
      r.pos++;
      return m;
    }
    for (;;) {
      r.ws();
      if (r.peek() !== '"') r.fail("expected a string key");
      const k = readJsonString(r);
      r.expect(":");
      m.set(k, readJson(r, depth + 1));
      r.ws();
      if (r.peek() === ",") {
        r.pos++;
        continue;
      }
      r.expect("}");
      return m;
    }
  }
  if (c === "[") {
    r.pos++;
    const a: PyValue[] = [];
    r.ws();
    if (r.peek() === "]") {
      r.pos++;
      return a;
    }
    for (;;) {
      a.push(readJson(r, depth + 1));
      r.ws();
      if (r.peek() === ",") {
        r.pos++;
        continue;
      }
      r.expect("]");
      return a;
    }
  }
  if (c === '"') return readJsonString(r);
  for (const [word, value] of [
    ["true", true],
    ["false", false],
    ["null", null],
  ] as const) {
    if (r.text.startsWith(word, r.pos)) {
      r.pos += word.length;
      return value;
    }
  }
  NUMBER.lastIndex = r.pos;
  const n = NUMBER.exec(r.text);
  if (!n) r.fail("unexpected character");
  r.pos += n[0].length;
  return n[1] === undefined && n[2] === undefined ? BigInt(n[0]) : Number(n[0]);
}

function readJsonString(r: Reader): string {
  const start = r.pos;
  r.pos++;
  for (;;) {
    const ch = r.text[r.pos];
    if (ch === undefined) r.fail("unterminated string");
    if (ch === "\\") r.pos += 2;
    else if (ch === '"') break;
    else r.pos++;
  }
  r.pos++;
  try {
    return JSON.parse(r.text.slice(start, r.pos)) as string;
  } catch {
    return r.fail("bad string escape");
  }
}

/**
 * Parses a JSON text keeping Python's `int`/`float` distinction (`5` → int, `5.0` and `5e0` → float), as
 * `json.loads` does. Linear in the text; nesting deeper than 64 is refused.
 * @throws {ValueSyntaxError} when the text is not one JSON value.
 */
export function parseJsonValue(text: string): PyValue {
  const r = new Reader(text);
  const v = readJson(r, 0);
  r.ws();
  if (r.pos !== text.length) r.fail("trailing characters");
  return v;
}

// ---------------------------------------------------------------------------------------------------------------
// Python call syntax: `[f(a=1, b='x'), mod.g(c=[1, 2])]`, the text form prompted models write (BFCL's "prompt" mode).

/** One decoded call: the function's (dotted) name and its keyword arguments; positional arguments in `args`. */
export interface DecodedCall {
  name: string;
  arguments: Map<string, PyValue>;
  /** Positional arguments (BFCL's checker has no place for them: they make a call invalid). */
  positional: number;
}

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;
const PY_NUMBER = /[+-]?(?:\d[\d_]*)?(\.\d[\d_]*)?(?:[eE][+-]?\d+)?/y;

function readIdent(r: Reader): string | undefined {
  IDENT.lastIndex = r.pos;
  const m = IDENT.exec(r.text);
  if (!m) return undefined;
  r.pos += m[0].length;
  return m[0];
}

function readPyString(r: Reader): string {
  const q = r.peek();
  const triple = r.text.startsWith(q.repeat(3), r.pos);
  const close = triple ? q.repeat(3) : q;
  r.pos += close.length;
  let out = "";
  for (;;) {
    if (r.pos >= r.text.length) r.fail("unterminated string");
    if (r.text.startsWith(close, r.pos)) {
      r.pos += close.length;
      return out;
    }
    const ch = r.text[r.pos]!;
    if (ch === "\\") {
      const e = r.text[r.pos + 1] ?? "";
      const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0" };
      if (simple[e] !== undefined) {
        out += simple[e];
        r.pos += 2;
      } else if (e === "u" && /^[0-9a-fA-F]{4}$/.test(r.text.slice(r.pos + 2, r.pos + 6))) {
        out += String.fromCharCode(parseInt(r.text.slice(r.pos + 2, r.pos + 6), 16));
        r.pos += 6;
      } else {
        out += ch;
        r.pos++;
      }
      continue;
    }
    if (!triple && ch === "\n") r.fail("newline in string");
    out += ch;
    r.pos++;
  }
}

function readPyValue(r: Reader, depth: number): PyValue {
  if (depth > MAX_DEPTH) r.fail("nesting too deep");
  r.ws();
  const c = r.peek();
  if (c === "'" || c === '"') {
    let s = readPyString(r);
    // implicit concatenation: 'a' 'b'
    for (;;) {
      r.ws();
      const d = r.peek();
      if (d !== "'" && d !== '"') return s;
      s += readPyString(r);
    }
  }
  if (c === "[" || c === "(") {
    const closing = c === "[" ? "]" : ")";
    r.pos++;
    const items: PyValue[] = [];
    let trailingComma = false;
    for (;;) {
      r.ws();
      if (r.peek() === closing) {
        r.pos++;
        break;
      }
      items.push(readPyValue(r, depth + 1));
      r.ws();
      trailingComma = false;
      if (r.peek() === ",") {
        r.pos++;
        trailingComma = true;
        continue;
      }
      r.expect(closing);
      break;
    }
    if (c === "[") return items;
    return items.length === 1 && !trailingComma ? items[0]! : new PyTuple(items);
  }
  if (c === "{") {
    r.pos++;
    const m = new Map<string, PyValue>();
    for (;;) {
      r.ws();
      if (r.peek() === "}") {
        r.pos++;
        return m;
      }
      const k = readPyValue(r, depth + 1);
      r.expect(":");
      m.set(typeof k === "string" ? k : pyRepr(k), readPyValue(r, depth + 1));
      r.ws();
      if (r.peek() === ",") {
        r.pos++;
        continue;
      }
      r.expect("}");
      return m;
    }
  }
  const save = r.pos;
  const word = readIdent(r);
  if (word === "True") return true;
  if (word === "False") return false;
  if (word === "None") return null;
  if (word !== undefined) {
    // a bare name or a call used as a value: BFCL keeps such "variables" as their source text
    r.pos = save;
    return readSourceSpan(r);
  }
  PY_NUMBER.lastIndex = r.pos;
  const n = PY_NUMBER.exec(r.text);
  if (!n || n[0] === "" || n[0] === "+" || n[0] === "-") r.fail("unexpected character");
  r.pos += n[0].length;
  const t = n[0].replace(/_/g, "");
  return /[.eE]/.test(t) ? Number(t) : BigInt(t);
}

/** The source text of an expression up to the next top-level `,` or closing bracket (a variable or a call). */
function readSourceSpan(r: Reader): string {
  const start = r.pos;
  let depth = 0;
  while (r.pos < r.text.length) {
    const ch = r.text[r.pos]!;
    if (ch === "'" || ch === '"') {
      readPyString(r);
      continue;
    }
    if (ch === "(" || ch === "[" || ch === "{") depth++;
    else if (ch === ")" || ch === "]" || ch === "}") {
      if (depth === 0) break;
      depth--;
    } else if (ch === "," && depth === 0) break;
    r.pos++;
  }
  return r.text.slice(start, r.pos).trim();
}

function readCall(r: Reader): DecodedCall {
  r.ws();
  let name = readIdent(r);
  if (name === undefined) r.fail("expected a function name");
  while (r.peek() === ".") {
    r.pos++;
    const part = readIdent(r);
    if (part === undefined) r.fail("expected a name after '.'");
    name += `.${part}`;
  }
  r.expect("(");
  const args = new Map<string, PyValue>();
  let positional = 0;
  for (;;) {
    r.ws();
    if (r.peek() === ")") {
      r.pos++;
      return { name, arguments: args, positional };
    }
    const save = r.pos;
    const key = readIdent(r);
    r.ws();
    if (key !== undefined && r.peek() === "=" && r.text[r.pos + 1] !== "=") {
      r.pos++;
      args.set(key, readPyValue(r, 1));
    } else {
      r.pos = save;
      readPyValue(r, 1);
      positional++;
    }
    r.ws();
    if (r.peek() === ",") {
      r.pos++;
      continue;
    }
    r.expect(")");
    return { name, arguments: args, positional };
  }
}

/**
 * Parses Python call syntax: one call `f(a=1)` or a list of calls `[f(a=1), g(b='x')]`, as BFCL's AST decoder
 * reads a prompted model's answer. Literals: numbers (int vs float kept), strings (single, double, triple quotes),
 * `True`/`False`/`None`, lists, tuples, dicts; a name or a nested call is kept as its source text. Linear time.
 * @throws {ValueSyntaxError} when the text is not calls.
 */
export function parsePythonCalls(text: string): DecodedCall[] {
  const r = new Reader(text.trim());
  const calls: DecodedCall[] = [];
  r.ws();
  if (r.peek() === "[") {
    r.pos++;
    for (;;) {
      r.ws();
      if (r.peek() === "]") {
        r.pos++;
        break;
      }
      calls.push(readCall(r));
      r.ws();
      if (r.peek() === ",") {
        r.pos++;
        continue;
      }
      r.expect("]");
      break;
    }
  } else calls.push(readCall(r));
  r.ws();
  if (r.pos !== r.text.length) r.fail("trailing characters");
  return calls;
}
