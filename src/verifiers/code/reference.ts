import { z } from "zod";

const common = {
  /** Overrides the component's `language` for this rollout. */
  language: z.enum(["python", "javascript"]).optional(),
  /** Per-test weights (≥ 0) for `score: weighted`, in test order. */
  weights: z.array(z.number().finite().min(0)).optional(),
  /** Per-test pass rates in [0, 1] from earlier batches (VeRPO statistics) for `score: weighted`, in test order. */
  passRates: z.array(z.number().min(0).max(1)).optional(),
};
const identifier = z.string().regex(/^[A-Za-z_$][\w$]*$/, "an identifier");

/**
 * The imports LeetCode's judge puts before a Python solution and its tests (deepcoder's `functional` tests rely on
 * them: `List`, `Counter`, `inf`, `ascii_lowercase` …). `prelude: "leetcode"` names it.
 */
export const LEETCODE_PRELUDE = [
  "from typing import *",
  "from collections import *",
  "from itertools import *",
  "from functools import *",
  "from heapq import *",
  "from bisect import *",
  "from math import *",
  "from string import *",
  "import collections, itertools, functools, heapq, bisect, math, string, re, random, operator",
  "",
].join("\n");

/**
 * LeetCode's judge also has `sortedcontainers` imported (`SortedList` works without an import): added to the
 * `leetcode` prelude when the program names one of its classes (importing it costs ~10 ms per process), guarded, so
 * a host without the module still runs the programs that do not need it.
 */
export const LEETCODE_SORTED = [
  "try:",
  "    from sortedcontainers import SortedList, SortedDict, SortedSet, SortedKeyList",
  "except ImportError:",
  "    pass",
  "",
].join("\n");

const prelude = z.union([z.literal("leetcode"), z.string()]).optional();

/**
 * `assert`: test code that calls the program. HumanEval style: `test` defines `check(candidate)` and `entryPoint`
 * names the candidate; LeetCode style: the test code calls `check(Solution().method)` itself. In Python the test
 * code runs in the trusted judge process and the program's functions and classes are proxies whose calls run in
 * the program's own process; each top-level statement of `check` that contains an `assert` is one test (the others
 * are set-up); a `check` that cannot be split (a `return` in it) is one test, and so is test code without `check`.
 */
export const assertReference = z
  .strictObject({
    kind: z.literal("assert"),
    entryPoint: identifier.optional(),
    test: z.string().min(1),
    prelude,
    ...common,
  })
  .refine(
    (r) => r.entryPoint !== undefined || /^check\s*\(/m.test(r.test) || !/\bdef check\b|function check\b/.test(r.test),
    {
      message: "needs entryPoint (the candidate passed to check), unless the test code calls check(...) itself",
      path: ["entryPoint"],
    },
  );

/**
 * `call`: EvalPlus style. Each case calls the entry point with `input` (the argument list) and compares the
 * return value with `output`. With `encoding: "json"` (default) values are JSON, and the tagged objects
 * `{"$tuple": […]}`, `{"$set": […]}`, `{"$float": "nan" | "inf" | "-inf"}` stand for what JSON cannot hold.
 * With `encoding: "python"` (Python only) `input` and `output` are strings holding Python literals as `repr()`
 * writes them (`"[(1, 2), {3}]"`, `"nan"`): tuples, sets, dicts with any keys, big integers, floats like `2.0`
 * survive exactly. Floats compare with absolute tolerance `atol` (plus 1e-7 relative when `atol` > 0); NaN equals NaN.
 * `compare: "taco"`: TACO / APPS rules (tuples are lists; an expected one-element list also matches its element).
 * `compare: "truthy"`: the return value's truth value is compared with `output` (a regex "check" returning a
 * match or None, as MBPP's own asserts test it).
 */
export const callReference = z.strictObject({
  kind: z.literal("call"),
  entryPoint: identifier,
  cases: z.array(z.strictObject({ input: z.union([z.array(z.unknown()), z.string()]), output: z.unknown() })).min(1),
  atol: z.number().min(0).default(0),
  encoding: z.enum(["json", "python"]).default("json"),
  compare: z.enum(["taco", "truthy"]).optional(),
  prelude,
  ...common,
});

/**
 * `stdio`: the program reads `stdin` and must print `stdout`. `compare: "lines"` (default): equal after the
 * trailing spaces of every line, carriage returns and trailing blank lines are removed; `"tokens"`: equal as
 * whitespace-separated tokens. With `atol` / `rtol` (default 0) numeric tokens may differ by `atol + rtol·|expected|`.
 */
export const stdioReference = z.strictObject({
  kind: z.literal("stdio"),
  cases: z.array(z.strictObject({ stdin: z.string().default(""), stdout: z.string() })).min(1),
  compare: z.enum(["lines", "tokens"]).default("lines"),
  atol: z.number().min(0).default(0),
  rtol: z.number().min(0).default(0),
  ...common,
});

export const codeReference = z.discriminatedUnion("kind", [assertReference, callReference, stdioReference]);
export type CodeReference = z.infer<typeof codeReference>;

const lines = (v: unknown): unknown => (Array.isArray(v) && v.every((x) => typeof x === "string") ? v.join("\n") : v);

/**
 * A reference in the shape a trainer's data brings it, as one of the three kinds. Accepted besides the kinds:
 * - a JSON **string** holding any of these (how verl and OpenRLHF carry labels);
 * - `{"functional": "def check(candidate): ...\ncheck(Solution().f)"}` (deepcoder / LeetCode): `assert`, with
 *   the LeetCode prelude;
 * - `{"inputs": [...], "outputs": [...]}` (verl, deepcoder, TACO / APPS / CodeContests): `stdio`; with
 *   `"fn_name"`: `call`, each input an argument list, compared by TACO's rules;
 * - `[{"input": "...", "output": "..."}]` (Codeforces, LiveCodeBench stdin tests): `stdio`.
 * Anything else is returned as it is, for the schema to report.
 */
export function nativeReference(raw: unknown): { value: unknown; error?: string } {
  let v = raw;
  if (typeof v === "string") {
    try {
      v = JSON.parse(v);
    } catch {
      return { value: raw, error: "reference is a string that is not JSON" };
    }
  }
  if (Array.isArray(v) && v.length > 0 && v.every((c) => c && typeof c === "object" && "input" in c && "output" in c)) {
    return {
      value: {
        kind: "stdio",
        cases: v.map((c: { input: unknown; output: unknown }) => ({ stdin: lines(c.input), stdout: lines(c.output) })),
      },
    };
  }
  if (!v || typeof v !== "object" || Array.isArray(v) || "kind" in v) return { value: v };
  const o = v as Record<string, unknown>;
  const rest = Object.fromEntries(Object.entries(o).filter(([k]) => ["language", "weights", "passRates"].includes(k)));
  if (typeof o.functional === "string")
    return { value: { kind: "assert", test: o.functional, prelude: "leetcode", ...rest } };
  if (Array.isArray(o.inputs) && Array.isArray(o.outputs)) {
    if (o.inputs.length !== o.outputs.length)
      return { value: v, error: `inputs (${o.inputs.length}) and outputs (${o.outputs.length}) differ in length` };
    const outputs: unknown[] = o.outputs;
    const inputs: unknown[] = o.inputs;
    if (typeof o.fn_name === "string") {
      return {
        value: {
          kind: "call",
          entryPoint: o.fn_name,
          compare: "taco",
          cases: inputs.map((x, i) => ({ input: Array.isArray(x) ? (x as unknown[]) : [x], output: outputs[i] })),
          ...rest,
        },
      };
    }
    return {
      value: { kind: "stdio", cases: inputs.map((x, i) => ({ stdin: lines(x), stdout: lines(outputs[i]) })), ...rest },
    };
  }
  return { value: v };
}
