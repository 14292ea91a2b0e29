import type { PyValue } from "./pyvalue.js";
import { pyFloatOf, pyIntOf, pyStrip } from "./pytext.js";

/**
 * JavaScript parameter types of BFCL's `simple_javascript` category and the Python type their converted value
 * must have (BFCL `constants/type_mappings.py` `JS_TYPE_CONVERSION`, gorilla @c15b2a15).
 */
export const JS_TYPES: Readonly<Record<string, string>> = {
  String: "str",
  integer: "int",
  float: "float",
  Bigint: "int",
  Boolean: "bool",
  dict: "dict",
  array: "list",
  any: "str",
};

class Unsupported extends Error {}

/**
 * A JavaScript literal written as a string converted to the value BFCL compares (`"true"` as `Boolean` → true,
 * `"[1, 2]"` as `array` → [1, 2], `"{a: 1}"` as `dict` → {a: 1}); text that does not match stays a string. As in
 * BFCL's `js_type_converter.py` (gorilla @664e4db1), including its regex-based collection parsing.
 */
export function jsConvert(value: string, type: string, nested?: string): PyValue {
  switch (type) {
    case "String":
      return (value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'"))
        ? value.slice(1, -1)
        : value;
    case "integer":
      return /^-?\d+$/.test(value) ? BigInt(value) : value;
    case "float":
      return /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
    case "Bigint":
      return /^-?\d+n$/.test(value) ? BigInt(value.slice(0, -1)) : value;
    case "Boolean":
      return value === "true" ? true : value === "false" ? false : value;
    case "dict":
      return jsCollection(value, "dict");
    case "array":
      return jsCollection(value, "array", nested);
    case "any":
      return value;
    default:
      throw new Unsupported(type);
  }
}

const ARRAY_2D = /^(?:\[\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\]|\bnew\s+Array\(\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\))/;
const ARRAY_1D = /^(?:\[(.*?)\]|\bnew\s+Array\((.*?)\))/;

function jsCollection(code0: string, kind: "array" | "dict", nested?: string): PyValue {
  const code = code0.trim();
  if (kind === "array") {
    try {
      const two = ARRAY_2D.exec(code);
      if (two) {
        return [...two[0].matchAll(/\[(.*?)\]/g)].map((m, idx) => {
          let inner = m[1]!.trim();
          if (idx === 0 && inner.startsWith("[")) inner = inner.slice(1);
          return inner.split(",").map((e) => jsValue(e.trim()));
        });
      }
      const one = ARRAY_1D.exec(code);
      if (!one) return code;
      const body = (one[1] ?? one[2])?.trim() ?? "";
      const parts = body ? body.split(",") : [];
      if (!nested) return parts.map((e) => jsValue(e.trim()));
      return parts.map((e) => {
        const t = e.trim();
        return t.startsWith("'") || t.startsWith('"') ? jsConvert(t, nested, "String") : jsConvert(t, nested);
      });
    } catch {
      return code;
    }
  }
  if (code === "{}") return new Map();
  const m = /^\{(.*?)\}/.exec(code);
  if (!m) return code;
  try {
    const out = new Map<string, PyValue>();
    for (const p of m[1]!.matchAll(/([^:]+):\s*(.*?)(?:,\s*(?=[^,]+:)|$)/g)) {
      const key = pyStrip(p[1]!.trim(), "'\"");
      const v = p[2]!.trim();
      if (v.startsWith("[") && v.endsWith("]")) out.set(key, jsCollection(v, "array"));
      else if (v.startsWith("{") && v.endsWith("}")) out.set(key, jsCollection(v, "dict"));
      else out.set(key, jsValue(pyStrip(v, "'\"")));
    }
    return out;
  } catch {
    return code;
  }
}

/** A JavaScript literal without a declared type (BFCL `parse_js_value`). */
export function jsValue(s0: string): PyValue {
  const s = s0.trim();
  if (s === "true") return true;
  if (s === "false") return false;
  if ((s.startsWith('"') && s.endsWith('"')) || (s.startsWith("'") && s.endsWith("'"))) return s.slice(1, -1);
  return pyIntOf(s) ?? pyFloatOf(s) ?? s;
}
