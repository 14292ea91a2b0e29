import type { Rollout } from "../core/types.js";

/** A field (with its index, `student_logprobs[2]`) and what is wrong with it. */
interface FieldProblem {
  field: string;
  message: string;
}

/** Flat per-token arrays of numbers (log-probs in natural log, potentials). */
const NUMBER_ARRAYS = [
  "student_logprobs",
  "teacher_logprobs",
  "policy_logprobs",
  "ref_logprobs",
  "step_potentials",
] as const;

/** Flat arrays of non-negative integers: token ids, and the turns' end offsets in `completion_ids`. */
const INTEGER_ARRAYS = [
  ["prompt_ids", "token id"],
  ["gold_ids", "token id"],
  ["turn_token_offsets", "token offset"],
] as const;

/** Every dense-reward field {@link denseFieldProblem} checks (for `--map`). */
export const DENSE_FIELDS = [
  ...NUMBER_ARRAYS,
  "gold_logprobs",
  "step_rollouts",
  ...INTEGER_ARRAYS.map(([name]) => name),
] as const;

function describe(x: unknown): string {
  return x === null ? "null" : Array.isArray(x) ? "array" : typeof x;
}

/** The first entry of `xs` that `ok` refuses, as `{field: "<field>[i]", message}`; undefined when all pass. */
function firstBad(field: string, xs: readonly unknown[], ok: (x: unknown) => boolean, what: string) {
  for (let i = 0; i < xs.length; i++)
    if (!ok(xs[i])) return { field: `${field}[${i}]`, message: `expected ${what}, got ${describe(xs[i])}` };
  return undefined;
}

const isNumber = (x: unknown): boolean => typeof x === "number" && Number.isFinite(x);

/**
 * Checks the shapes of a rollout's dense-reward fields (docs/dense.md), when present: the per-token log-prob arrays
 * and `step_potentials` are arrays of numbers, `gold_logprobs` an array of arrays of numbers, `step_rollouts` an
 * array of arrays of numbers or booleans, `prompt_ids`, `gold_ids` and `turn_token_offsets` arrays of non-negative
 * integers. Values (a log-prob above 0, arrays of different lengths, offsets out of order or past the completion) are
 * the verifiers' to judge: they make the component unscorable, not the line.
 * @param src the source name of a canonical field (its `--map` source), for the message.
 * @returns the first problem, naming the field and the index (`student_logprobs[2]: expected a number, got null`).
 */
export function denseFieldProblem(rollout: Rollout, src: (name: string) => string): FieldProblem | undefined {
  const problem = (name: string, message: string): FieldProblem => ({ field: src(name), message });
  for (const name of NUMBER_ARRAYS) {
    const v: unknown = rollout[name];
    if (v === undefined || v === null) continue;
    if (!Array.isArray(v)) return problem(name, `expected an array of numbers, got ${describe(v)}`);
    const bad = firstBad(src(name), v, isNumber, "a number");
    if (bad) return bad;
  }
  const nested = (
    name: "gold_logprobs" | "step_rollouts",
    ok: (x: unknown) => boolean,
    what: string,
  ): FieldProblem | undefined => {
    const v: unknown = rollout[name];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) return problem(name, `expected an array of arrays of ${what}s, got ${describe(v)}`);
    for (let t = 0; t < v.length; t++) {
      const row: unknown = v[t];
      if (!Array.isArray(row))
        return { field: `${src(name)}[${t}]`, message: `expected an array of ${what}s, got ${describe(row)}` };
      const bad = firstBad(`${src(name)}[${t}]`, row, ok, `a ${what}`);
      if (bad) return bad;
    }
    return undefined;
  };
  const gold = nested("gold_logprobs", isNumber, "number");
  if (gold) return gold;
  const runs = nested("step_rollouts", (x) => isNumber(x) || typeof x === "boolean", "number or boolean");
  if (runs) return runs;
  for (const [name, what] of INTEGER_ARRAYS) {
    const v: unknown = rollout[name];
    if (v === undefined || v === null) continue;
    if (!Array.isArray(v)) return problem(name, `expected an array of ${what}s, got ${describe(v)}`);
    const bad = firstBad(src(name), v, (x) => typeof x === "number" && Number.isInteger(x) && x >= 0, `a ${what}`);
    if (bad) return bad;
  }
  return undefined;
}
