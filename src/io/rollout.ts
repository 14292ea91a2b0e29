import { createHash } from "node:crypto";
import type { ChatMessage, Rollout } from "../core/types.js";
import { formatPath } from "../core/problem.js";
import { MAX_JSON_DEPTH, tooDeep } from "./depth.js";
import { getPath } from "./fields.js";
import { DENSE_FIELDS, denseFieldProblem } from "./dense-fields.js";

/** Why an input record cannot become a rollout: the field and the problem. */
export interface RecordProblem {
  field: string;
  message: string;
}

/** What a command needs from each record. `score` needs a completion; `advantages` needs a reward. */
export type RecordNeeds = "score" | "advantages";

function isMessages(v: unknown): v is ChatMessage[] {
  return (
    Array.isArray(v) &&
    v.every((m) => m !== null && typeof m === "object" && typeof (m as { role?: unknown }).role === "string")
  );
}

/** Group id from the prompt: first 16 hex digits of SHA-256 of its JSON text. Same prompt → same group. */
export function promptGroup(prompt: unknown): string {
  return createHash("sha256")
    .update(typeof prompt === "string" ? prompt : JSON.stringify(prompt))
    .digest("hex")
    .slice(0, 16);
}

/** Either a rollout or the reason the record is not one. */
export type RolloutOrProblem = { rollout: Rollout } | { problem: RecordProblem };

/**
 * Turns one parsed JSONL record into a {@link Rollout}, applying `--map` (canonical name → source path) and
 * defaults: `id` = `line-<n>`, `group` = hash of `prompt`. `prompt` is optional when `group` is given. A record
 * nested deeper than {@link MAX_JSON_DEPTH} levels is a problem naming its top-level field.
 * @returns the rollout, or the first problem found (the caller reports it with file:line and skips the line).
 */
export function toRollout(
  record: unknown,
  line: number,
  map: Record<string, string>,
  needs: RecordNeeds = "score",
): RolloutOrProblem {
  if (record === null || typeof record !== "object" || Array.isArray(record))
    return { problem: { field: "", message: "expected a JSON object" } };
  const deep = tooDeep(record);
  if (deep)
    return {
      problem: {
        field: formatPath(deep.slice(0, 1)),
        message: `nested deeper than ${MAX_JSON_DEPTH} levels (at ${formatPath(deep.slice(0, 4))}…)`,
      },
    };
  const get = (name: string): unknown =>
    map[name] !== undefined ? getPath(record, map[name]) : (record as Record<string, unknown>)[name];
  const src = (name: string): string => map[name] ?? name;

  const id = get("id");
  if (id !== undefined && typeof id !== "string" && typeof id !== "number")
    return { problem: { field: src("id"), message: "expected a string or number" } };
  const prompt = get("prompt");
  let group = get("group");
  if (group === undefined || group === null) {
    if (prompt === undefined || prompt === null)
      return { problem: { field: src("group"), message: "missing: give `group`, or a `prompt` to derive it from" } };
    group = promptGroup(prompt);
  } else if (typeof group !== "string" && typeof group !== "number")
    return { problem: { field: src("group"), message: "expected a string or number" } };

  const rollout: Rollout = {
    ...(record as Record<string, unknown>),
    id: id === undefined ? `line-${line}` : String(id),
    group: String(group),
    completion: "",
  };
  if (prompt !== undefined) rollout.prompt = prompt as Rollout["prompt"];

  if (needs === "score") {
    const completion = get("completion");
    if (completion === undefined || completion === null)
      return { problem: { field: src("completion"), message: "missing" } };
    if (typeof completion !== "string" && !isMessages(completion))
      return { problem: { field: src("completion"), message: "expected a string or an array of chat messages" } };
    rollout.completion = completion;
  }
  for (const name of [
    "reference",
    "labels",
    "metadata",
    "reference_logprobs",
    "reference_logprobs_noreason",
    "completion_tokens",
    "completion_ids",
    ...DENSE_FIELDS,
  ] as const) {
    if (map[name] !== undefined) rollout[name] = get(name) as never;
  }
  const step = get("step");
  if (step !== undefined) {
    if (typeof step !== "number" || !Number.isInteger(step) || step < 0)
      return { problem: { field: src("step"), message: "expected a non-negative integer" } };
    rollout.step = step;
  }
  const groupSize = get("group_size");
  if (groupSize !== undefined && groupSize !== null) {
    if (typeof groupSize !== "number" || !Number.isInteger(groupSize) || groupSize < 1)
      return { problem: { field: src("group_size"), message: "expected a positive integer" } };
    rollout.group_size = groupSize;
  }
  const promptId = get("prompt_id");
  if (promptId !== undefined && promptId !== null) {
    if (typeof promptId !== "string" && typeof promptId !== "number")
      return { problem: { field: src("prompt_id"), message: "expected a string or number" } };
    rollout.prompt_id = String(promptId);
  }
  const lp = rollout.reference_logprobs;
  if (lp !== undefined && !(Array.isArray(lp) && lp.every((x) => typeof x === "number")))
    return { problem: { field: src("reference_logprobs"), message: "expected an array of numbers" } };
  const ids = rollout.completion_ids;
  if (ids !== undefined && !(Array.isArray(ids) && ids.every((x) => typeof x === "number")))
    return { problem: { field: src("completion_ids"), message: "expected an array of token ids (numbers)" } };
  const dense = denseFieldProblem(rollout, src);
  if (dense) return { problem: dense };
  return { rollout };
}
