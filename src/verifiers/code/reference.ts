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
 * `assert`: HumanEval style. `test` defines `check(candidate)`; it runs in the program's namespace and is called
 * with the entry point. In Python each top-level statement of `check` that contains an `assert` is one test
 * (the others are set-up); when `check` cannot be split it is one test.
 */
export const assertReference = z.strictObject({ kind: z.literal("assert"), entryPoint: identifier, test: z.string().min(1), ...common });

/**
 * `call`: EvalPlus style. Each case calls the entry point with `input` (the argument list) and compares the
 * return value with `output`. With `encoding: "json"` (default) values are JSON, and the tagged objects
 * `{"$tuple": […]}`, `{"$set": […]}`, `{"$float": "nan" | "inf" | "-inf"}` stand for what JSON cannot hold.
 * With `encoding: "python"` (Python only) `input` and `output` are strings holding Python literals as `repr()`
 * writes them (`"[(1, 2), {3}]"`, `"nan"`): tuples, sets, dicts with any keys, big integers, floats like `2.0`
 * survive exactly. Floats compare with absolute tolerance `atol` (plus 1e-7 relative when `atol` > 0); NaN equals NaN.
 */
export const callReference = z.strictObject({
  kind: z.literal("call"),
  entryPoint: identifier,
  cases: z.array(z.strictObject({ input: z.union([z.array(z.unknown()), z.string()]), output: z.unknown() })).min(1),
  atol: z.number().min(0).default(0),
  encoding: z.enum(["json", "python"]).default("json"),
  ...common,
});

/** `stdio`: the program reads `stdin` and must print `stdout` (trailing spaces per line and trailing blank lines ignored). */
export const stdioReference = z.strictObject({
  kind: z.literal("stdio"),
  cases: z.array(z.strictObject({ stdin: z.string().default(""), stdout: z.string() })).min(1),
  ...common,
});

export const codeReference = z.discriminatedUnion("kind", [assertReference, callReference, stdioReference]);
export type CodeReference = z.infer<typeof codeReference>;
