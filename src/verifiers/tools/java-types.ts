import type { PyValue } from "./pyvalue.js";
import { pyFloatOf, pyIntOf } from "./pytext.js";

/**
 * Java parameter types of BFCL's `simple_java` category and the Python type their converted value must have
 * (BFCL `constants/type_mappings.py` `JAVA_TYPE_CONVERSION`, gorilla @c15b2a15).
 */
export const JAVA_TYPES: Readonly<Record<string, string>> = {
  byte: "int",
  short: "int",
  integer: "int",
  float: "float",
  double: "float",
  long: "int",
  boolean: "bool",
  char: "str",
  Array: "list",
  ArrayList: "list",
  Set: "set",
  HashMap: "dict",
  Hashtable: "dict",
  Queue: "list",
  Stack: "list",
  String: "str",
  any: "str",
};

/**
 * A Java literal written as a string (how function-calling models pass Java arguments) converted to the value
 * BFCL compares: `"5"` as `integer` → 5, `"3.0f"` as `float` → 3.0, `new int[]{1, 2}` as `Array` → [1, 2],
 * `new HashMap<>() {{ put("k", 1); }}` → {k: 1}. A string that does not match the type's literal form stays a
 * string (and then fails the type or value check), as in BFCL's `java_type_converter.py` (gorilla @98977e1d).
 */
export function javaConvert(value: string, type: string, nested?: string): PyValue {
  switch (type) {
    case "byte":
    case "short":
    case "integer":
      return /^-?\d+$/.test(value) ? BigInt(value) : value;
    case "float":
      return /^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$/.test(value) ? Number(value.replace(/[fF]$/, "")) : value;
    case "double":
      return /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(value) ? Number(value) : value;
    case "long":
      return /^-?\d+[lL]$/.test(value) ? BigInt(value.replace(/[lL]$/, "")) : value;
    case "boolean":
      return value === "true" ? true : value === "false" ? false : value;
    case "Array":
      return parseArray(value, nested);
    case "ArrayList":
      return parseArrayList(value, nested);
    case "HashMap":
      return parseHashMap(value);
    default:
      // char (BFCL's char pattern never matches, so the text is kept), String, any; Set/Queue/Stack/Hashtable have
      // no converter in BFCL either
      return value;
  }
}

function element(s: string, nested: string | undefined, stripQuotes: boolean): PyValue {
  if (stripQuotes && (nested === "char" || nested === "String")) return s.slice(1, -1);
  return nested ? javaConvert(s, nested) : javaValue(s);
}

function parseArrayList(input: string, nested?: string): PyValue {
  const asList = /new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)/.exec(input);
  if (asList) return asList[1]!.split(",").map((e) => element(e.trim(), nested, true));
  const adds = /new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}/s.exec(input);
  if (adds) return [...adds[1]!.matchAll(/add\((.+?)\)/g)].map((m) => element(m[1]!.trim(), nested, true));
  if (/new\s+ArrayList<\w*>\(\)/.test(input)) return [];
  return input;
}

function parseArray(input: string, nested?: string): PyValue {
  const m = /new\s+\w+\[\]\s*\{(.*?)\}/.exec(input);
  if (!m) return input;
  return m[1]!
    .split(",")
    .filter((x) => x.trim() !== "")
    .map((x) => element(x.trim(), nested, false));
}

function parseHashMap(input: string): PyValue {
  const m = /new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}/s.exec(input);
  if (m) {
    const out = new Map<string, PyValue>();
    if (m[1]!.trim())
      for (const p of m[1]!.matchAll(/put\("(.*?)",\s*(.*?)\)/g)) out.set(p[1]!, javaValue(p[2]!.trim()));
    return out;
  }
  if (/new\s+HashMap<.*?>\s*\(\)/.test(input)) return new Map();
  return input;
}

/** A Java literal without a declared type (BFCL `parse_java_value`). */
export function javaValue(s: string): PyValue {
  if (s === "true") return true;
  if (s === "false") return false;
  if (s.startsWith('"') && s.endsWith('"')) return s.slice(1, -1);
  if (/^-?\d+[lL]$/.test(s)) return BigInt(s.slice(0, -1));
  if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$/.test(s)) return Number(s.replace(/[fF]$/, ""));
  return pyIntOf(s) ?? pyFloatOf(s) ?? s;
}
