/**
 * Python's `int(s)` and `float(s)` on strings, and `str.strip(chars)`: the BFCL type converters lean on them.
 * (ASCII digits only; Python also accepts other Unicode digits.)
 */

const INT = /^\s*[+-]?\d+(?:_\d+)*\s*$/;
const FLOAT = /^\s*[+-]?(?:(?:\d+(?:_\d+)*)?\.\d+(?:_\d+)*|\d+(?:_\d+)*\.?)(?:[eE][+-]?\d+(?:_\d+)*)?\s*$/;
const SPECIAL = /^\s*([+-]?)(inf|infinity|nan)\s*$/i;

/** `int(s)`, or `undefined` where Python raises `ValueError`. */
export function pyIntOf(s: string): bigint | undefined {
  return INT.test(s) ? BigInt(s.trim().replace(/_/g, "")) : undefined;
}

/** `float(s)`, or `undefined` where Python raises `ValueError`. */
export function pyFloatOf(s: string): number | undefined {
  if (FLOAT.test(s)) return Number(s.trim().replace(/_/g, ""));
  const m = SPECIAL.exec(s);
  if (!m) return undefined;
  if (m[2]!.toLowerCase() === "nan") return NaN;
  return m[1] === "-" ? -Infinity : Infinity;
}

/** `s.strip(chars)`. */
export function pyStrip(s: string, chars: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && chars.includes(s[a]!)) a++;
  while (b > a && chars.includes(s[b - 1]!)) b--;
  return s.slice(a, b);
}
