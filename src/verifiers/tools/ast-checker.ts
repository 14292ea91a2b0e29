import { JAVA_TYPES, javaConvert } from "./java-types.js";
import { JS_TYPES, jsConvert } from "./js-types.js";
import type { PyValue } from "./pyvalue.js";
import { PyTuple, pyIn, pyRepr, pyType } from "./pyvalue.js";

/**
 * The Berkeley Function-Calling Leaderboard's AST checker, re-implemented from its rules
 * (`bfcl_eval/eval_checker/ast_eval/ast_checker.py`, ShishirPatil/gorilla @a6da28ee): a decoded call is valid when
 * its function name matches, every required parameter is present, every given parameter is known and accepted
 * (Python types with int → float promotion, one level of nested element types, strings compared after removing
 * spaces and `,./-_*^` and lowercasing, lists and dicts element-wise), and every parameter whose acceptable values
 * do not include `""` (the "may be omitted" marker) is given. Parallel and multiple calls match in any order.
 */

/** A function description (BFCL's or an OpenAI tool's `function`): parameters as a JSON-Schema-like object. */
export interface FunctionDescription {
  name: string;
  parameters?: { properties?: Record<string, ParamDescription>; required?: string[] };
}
export interface ParamDescription {
  type?: string;
  items?: { type?: string };
  [k: string]: unknown;
}

/** Acceptable calls: `{function name: {parameter: [acceptable values]}}`. */
export type PossibleCall = Map<string, Map<string, PyValue[]>>;
/** One decoded model call. */
export interface ModelCall {
  name: string;
  arguments: Map<string, PyValue>;
}

export type CallLanguage = "python" | "java" | "javascript";

/** A verdict: `valid`, or the BFCL error type (`value_error:string`, …) and messages. */
export interface CheckResult {
  valid: boolean;
  errorType?: string;
  error?: string[];
}

/** Python-side types for the type names a schema may use (BFCL's Python mapping plus JSON Schema's names). */
const PYTHON_TYPES: Readonly<Record<string, string>> = {
  string: "str",
  integer: "int",
  float: "float",
  number: "float",
  boolean: "bool",
  bool: "bool",
  array: "list",
  list: "list",
  tuple: "list",
  dict: "dict",
  object: "dict",
  any: "str",
};

const NESTED_CONVERSION = new Set(["Array", "ArrayList", "array"]);
const PYTHON_NESTED = new Set(["array", "tuple"]);

function possibleAnswerType(possible: readonly PyValue[]): string | undefined {
  for (const a of possible) if (a !== "") return pyType(a);
  return undefined;
}

interface TypeCheck extends CheckResult {
  isVariable: boolean;
}

function typeChecker(
  param: string,
  value: PyValue,
  possible: readonly PyValue[],
  desc: string,
  expected: string,
  nested: string | undefined,
): TypeCheck {
  let result: TypeCheck = { valid: true, isVariable: false, errorType: "type_error:simple", error: [] };
  const pat = possibleAnswerType(possible);
  const isVariable = pat !== undefined && pat !== expected;
  if (pyType(value) === expected) {
    if (nested === undefined) return { valid: true, isVariable };
    for (const item of possible) {
      let flag = true;
      if (Array.isArray(item) && Array.isArray(value)) {
        for (const v of value) {
          if (!typeChecker(param, v, item, nested, nested, undefined).valid) {
            flag = false;
            break;
          }
        }
      }
      if (flag) return { valid: true, isVariable };
    }
    result = {
      valid: false,
      isVariable: false,
      errorType: "type_error:nested",
      error: [
        `Nested type checking failed for parameter ${pyRepr(param)}. Expected outer type ${desc} with inner type ${nested}.`,
      ],
    };
  }
  if (pat !== undefined && pyType(value) === pat) return { ...result, isVariable: true };
  return {
    valid: false,
    isVariable: result.isVariable,
    errorType: "type_error:simple",
    error: [
      ...(result.error ?? []),
      `Incorrect type for parameter ${pyRepr(param)}. Expected type ${desc}, got ${pyType(value)}. Parameter value: ${pyRepr(value)}.`,
    ],
  };
}

/** BFCL `standardize_string`: drop spaces and `,./-_*^`, lowercase, `'` → `"`. */
export function standardizeString(s: string): string {
  return s
    .replace(/[ ,./\-_*^]/g, "")
    .toLowerCase()
    .replace(/'/g, '"');
}

function std(v: PyValue): PyValue {
  return typeof v === "string" ? standardizeString(v) : v;
}

function stringChecker(param: string, value: string, possible: readonly PyValue[]): CheckResult {
  const got = standardizeString(value);
  const ok = possible.some((p) => typeof p === "string" && standardizeString(p) === got);
  return ok
    ? { valid: true }
    : {
        valid: false,
        errorType: "value_error:string",
        error: [
          `Invalid value for parameter ${pyRepr(param)}: ${pyRepr(value)}. Expected one of ${pyRepr([...possible])}. Case insensitive.`,
        ],
      };
}

/** An acceptable value iterated as Python would (`possible_answer[i][j]`): a string by characters. */
function itemsOf(p: PyValue): PyValue[] | undefined {
  if (Array.isArray(p)) return p;
  if (p instanceof PyTuple) return p.items;
  if (typeof p === "string") return [...p];
  return undefined;
}

function listChecker(param: string, value: PyValue[], possible: readonly PyValue[]): CheckResult {
  const got = value.map(std);
  const ok = possible.some((p) => {
    const items = itemsOf(p);
    return items !== undefined && pyIn(got, [items.map(std)]);
  });
  return ok
    ? { valid: true }
    : {
        valid: false,
        errorType: "value_error:list/tuple",
        error: [
          `Invalid value for parameter ${pyRepr(param)}: ${pyRepr(value)}. Expected one of ${pyRepr([...possible])}.`,
        ],
      };
}

function dictChecker(value: Map<string, PyValue>, possibleAnswers: readonly PyValue[]): CheckResult {
  let result: CheckResult = { valid: false, errorType: "dict_checker:unclear", error: [] };
  for (const pa of possibleAnswers) {
    if (pa === "") continue;
    result = { valid: false, errorType: "dict_checker:unclear", error: [] };
    if (!(pa instanceof Map)) continue;
    let flag = true;
    for (const [key, v] of value) {
      const acceptable = pa.get(key);
      if (acceptable === undefined) {
        result = {
          valid: false,
          errorType: "value_error:dict_key",
          error: [`Unexpected dict key parameter: '${key}'.`],
        };
        flag = false;
        break;
      }
      const list = itemsOf(acceptable) ?? [];
      if (!pyIn(std(v), list.map(std))) {
        result = {
          valid: false,
          errorType: "value_error:dict_value",
          error: [`Invalid value for parameter ${pyRepr(key)}: ${pyRepr(v)}.`],
        };
        flag = false;
        break;
      }
    }
    for (const [key, acceptable] of pa) {
      if (!value.has(key) && !pyIn("", itemsOf(acceptable) ?? [])) {
        result = {
          valid: false,
          errorType: "value_error:dict_key",
          error: [...(result.error ?? []), `Missing dict key parameter: '${key}'.`],
        };
        flag = false;
        break;
      }
    }
    if (flag) return { valid: true };
  }
  return result;
}

function listDictChecker(value: PyValue[], possibleAnswers: readonly PyValue[]): CheckResult {
  let result: CheckResult = { valid: false, errorType: "list_dict_checker:unclear", error: [] };
  for (const pa of possibleAnswers) {
    const items = itemsOf(pa);
    if (!items || items.length !== value.length) {
      result = {
        valid: false,
        errorType: "value_error:list_dict_count",
        error: ["Wrong number of dictionaries in the list."],
      };
      continue;
    }
    let flag = true;
    for (let i = 0; i < value.length; i++) {
      const v = value[i]!;
      result =
        v instanceof Map
          ? dictChecker(v, [items[i]!])
          : { valid: false, errorType: "value_error:dict_value", error: [] };
      if (!result.valid) {
        flag = false;
        break;
      }
    }
    if (flag) return { valid: true };
  }
  return result;
}

const fail = (errorType: string, message: string): CheckResult => ({ valid: false, errorType, error: [message] });

/**
 * BFCL `simple_function_checker`: one model call against one acceptable call. Without a description (`desc`
 * undefined: no tool schema known) the parameter list and required set come from the acceptable call, types are
 * not checked, and values are compared by their own type's rule.
 */
export function checkCall(
  desc: FunctionDescription | undefined,
  call: ModelCall,
  possibleCall: PossibleCall,
  language: CallLanguage,
): CheckResult {
  const [expectedName, possible] = [...possibleCall][0] ?? [];
  if (expectedName === undefined || possible === undefined) return fail("possible_answer:empty", "no acceptable call");
  const name = desc?.name ?? expectedName;
  if (call.name !== name)
    return fail("simple_function_checker:wrong_func_name", `Function name ${pyRepr(name)} not found in model output.`);
  const details = desc?.parameters?.properties;
  const required = desc
    ? (desc.parameters?.required ?? [])
    : [...possible].filter(([, v]) => !pyIn("", v)).map(([k]) => k);
  for (const p of required)
    if (!call.arguments.has(p))
      return fail("simple_function_checker:missing_required", `Missing required parameter: ${pyRepr(p)}.`);

  for (const [param, value0] of call.arguments) {
    let value = value0;
    const acceptable = possible.get(param);
    const pd = details ? (Object.hasOwn(details, param) ? details[param] : undefined) : {};
    if (pd === undefined || acceptable === undefined)
      return fail("simple_function_checker:unexpected_param", `Unexpected parameter: ${pyRepr(param)}.`);
    const desc0 = details ? (typeof pd.type === "string" ? pd.type : "any") : undefined;
    let expected: string | undefined;
    let nested: string | undefined;
    if (desc0 !== undefined) {
      const nestedDesc = typeof pd.items?.type === "string" ? pd.items.type : undefined;
      if (language === "java" || language === "javascript") {
        const table = language === "java" ? JAVA_TYPES : JS_TYPES;
        expected = table[desc0] ?? "str";
        if (table[desc0] !== undefined) {
          if (typeof value !== "string")
            return fail(
              `type_error:${language === "java" ? "java" : "js"}`,
              `Incorrect type for parameter ${pyRepr(param)}. Expected type String, got ${pyType(value)}. Parameter value: ${pyRepr(value)}.`,
            );
          const convert = language === "java" ? javaConvert : jsConvert;
          if (NESTED_CONVERSION.has(desc0) && nestedDesc !== undefined) {
            nested = table[nestedDesc];
            try {
              value = convert(value, desc0, nestedDesc);
            } catch {
              /* BFCL raises on an unsupported nested type; the value stays text */
            }
          } else {
            try {
              value = convert(value, desc0);
            } catch {
              /* unsupported type: the value stays text */
            }
          }
        }
      } else {
        expected = PYTHON_TYPES[desc0] ?? "str";
        if (PYTHON_NESTED.has(desc0) && nestedDesc !== undefined) nested = PYTHON_TYPES[nestedDesc] ?? "str";
      }
      if (desc0 === "tuple" && value instanceof PyTuple) value = value.items;
      if (language === "python" && desc0 === "float" && typeof value === "bigint") value = Number(value);
      if (language === "python" && desc0 === "number" && typeof value === "bigint") value = Number(value);
    }

    let isVariable = false;
    if (expected !== undefined) {
      const tc = typeChecker(param, value, acceptable, desc0!, expected, nested);
      if (!tc.valid) return tc;
      isVariable = tc.isVariable;
    } else expected = pyType(value) === "tuple" ? "list" : pyType(value);

    if (!isVariable) {
      let r: CheckResult | undefined;
      if (expected === "dict" && value instanceof Map) r = dictChecker(value, acceptable);
      else if (expected === "list" && nested === "dict" && Array.isArray(value)) r = listDictChecker(value, acceptable);
      else if (expected === "str" && typeof value === "string") r = stringChecker(param, value, acceptable);
      else if (expected === "list" && (Array.isArray(value) || value instanceof PyTuple))
        r = listChecker(param, Array.isArray(value) ? value : value.items, acceptable);
      if (r !== undefined) {
        if (!r.valid) return r;
        continue;
      }
    }
    if (!pyIn(value, acceptable))
      return fail(
        "value_error:others",
        `Invalid value for parameter ${pyRepr(param)}: ${pyRepr(value)}. Expected one of ${pyRepr([...acceptable])}.`,
      );
  }
  for (const [param, acceptable] of possible) {
    if (!call.arguments.has(param) && !pyIn("", acceptable))
      return fail(
        "simple_function_checker:missing_optional",
        `Optional parameter ${pyRepr(param)} not provided and not marked as optional.`,
      );
  }
  return { valid: true };
}

/** The description of `name` among the known functions (`undefined` when the rollout carries no tools). */
function findDescription(
  functions: readonly FunctionDescription[] | undefined,
  name: string,
): FunctionDescription | undefined {
  if (!functions) return undefined;
  return functions.find((f) => f.name === name) ?? { name, parameters: { properties: {}, required: [] } };
}

/** Per-expected-call outcome of {@link checkCalls}: the model call it matched (index), or the first error seen. */
export interface CallsResult extends CheckResult {
  /** For each acceptable call, the index of the model call matched to it, or -1. */
  matched: number[];
}

/**
 * BFCL `parallel_function_checker_no_order` (which also covers its simple and multiple checkers): the number of
 * calls must equal the number of acceptable calls, and each acceptable call, in order, takes the first unmatched
 * model call that passes {@link checkCall}. With no acceptable calls, the right answer is no call (BFCL's
 * irrelevance categories). `matched` is computed for every acceptable call so that partial credit can be given.
 */
export function checkCalls(
  functions: readonly FunctionDescription[] | undefined,
  calls: readonly ModelCall[],
  possible: readonly PossibleCall[],
  language: CallLanguage,
): CallsResult {
  if (possible.length === 0)
    return calls.length === 0
      ? { valid: true, matched: [] }
      : {
          valid: false,
          errorType: "irrelevance_error:decoder_success",
          error: ["a call was made where none was expected"],
          matched: [],
        };
  const matched: number[] = [];
  const used = new Set<number>();
  let first: CheckResult | undefined;
  for (const pc of possible) {
    const name = [...pc.keys()][0] ?? "";
    const desc = findDescription(functions, name);
    let hit = -1;
    let last: CheckResult | undefined;
    for (let j = 0; j < calls.length; j++) {
      if (used.has(j)) continue;
      last = checkCall(desc, calls[j]!, pc, language);
      if (last.valid) {
        hit = j;
        break;
      }
    }
    if (hit >= 0) used.add(hit);
    else
      first ??= {
        valid: false,
        errorType:
          possible.length > 1
            ? "parallel_function_checker_no_order:cannot_find_match"
            : (last?.errorType ?? "wrong_count"),
        error: last?.error ?? [],
      };
    matched.push(hit);
  }
  if (calls.length !== possible.length)
    return {
      valid: false,
      errorType: "wrong_count",
      error: [`Wrong number of functions: ${calls.length} calls, ${possible.length} expected.`],
      matched,
    };
  return first ? { ...first, matched } : { valid: true, matched };
}
