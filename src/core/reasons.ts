/**
 * The one list of reason codes a component result may carry.
 *
 * A reason on an `ok` result explains a deliberate score (a wrong answer is `ok` with score 0 and
 * reason `wrong_answer`); a reason on an `unscorable` result says why no score could be given.
 * `docs/reasons.md` is generated from this table (see `src/core/reasons.test.ts`), so the docs never drift.
 */
export const REASONS = {
  // unscorable: the verifier could not decide
  no_answer: "No final answer could be extracted from the completion.",
  parse_error: "The extracted answer (or the reference) could not be parsed.",
  undecidable: "Both sides parsed but equivalence could not be decided exactly or by sampling.",
  timeout: "The verifier passed its hard deadline and was stopped (worker terminated).",
  no_reference: "The rollout has no `reference` and this verifier needs one.",
  invalid_reference: "The rollout's `reference` has the wrong shape for this verifier.",
  no_completion: "The rollout has no completion text.",
  no_json: "No JSON document was found in the completion.",
  invalid_json: "The JSON found in the completion does not parse.",
  unresolved_ref:
    "The schema refers to a document that is neither embedded nor in a configured local folder (nothing is fetched over the network).",
  sandbox_error:
    "The code sandbox could not run the program, for reasons not caused by it: a worker (or node) failed before the program was sent to it, the host failed the sandbox self-test (a trivial program per language and reference kind), bubblewrap is unusable, or SandboxFusion failed (refused, 5xx, not JSON); `details.error` says why (the worker's own words, its exit code or signal), `details.stderr` holds the sandbox's stderr. Never a 0: `rewardkit check` exits 4 and `/readyz` answers 503 on such a host.",
  memory_limit: "The program exceeded its memory limit.",
  logprob_error: "Token log-probs were missing or malformed.",
  judge_error:
    "The judge or reward-model call failed (after bounded retries), or the judge's answer held no parsable score (`details.raw` keeps its text, `details.error` says why).",
  worker_error: "The verifier crashed; the message is in `details.error`.",
  invalid_steps:
    "A `process` component found no usable steps or step scores: `steps`/`step_scores` missing, malformed or of different lengths, or a step that could not be scored (see `details`).",
  no_outcome:
    "A `gated` or `mix` process component found no outcome: no `outcome` field (number or boolean) on the rollout and no outcome verifier.",
  no_score: "The rollout field that should hold the score is missing, null or not a finite number (`field`).",
  out_of_range: "A score was found but lies outside the declared [min, max] (`field`).",
  unsupported_instruction:
    "The reference asks for an instruction the checker cannot decide as specified (e.g. an IFEval letter-frequency instruction on a non-letter under `letters: ascii`); per-instruction verdicts are in `details.instructions`.",
  dependency_unscorable:
    "A component this one reads (e.g. cosine-length's `correctness` component) was unscorable for this rollout.",
  group_filtered:
    "The rollout's group was dropped by a group-level filter (RLPR's std filter: the group's scores vary too little to carry signal).",
  missing_field:
    "A rollout field the verifier needs is absent or malformed (named in `details.field`), e.g. `completion_ids` for `repetition-penalty` with `over: tokens`.",
  partial_group:
    "The rollout's group (`group_size` on the rollout) was still incomplete when the server's `--group-wait-ms` ran out: this group-level component was not computed from part of the group (`details`: `group`, `step`, `arrived`, `group_size`, `waited_ms`; advantages are null).",
  length_mismatch:
    "Per-token (or per-turn, per-step) arrays that must line up do not: e.g. `student_logprobs` and `teacher_logprobs` of different lengths, or not one per `completion_ids` token (`details` names the fields and lengths). Never truncated to fit.",
  no_language: "No letters to identify a language in (the text is empty, or only digits, symbols or code).",
  // ok with a deliberate score
  wrong_answer: "The answer was extracted and judged not equivalent to the reference (score 0).",
  no_match: "The pattern or text was not found (score 0).",
  format_mismatch: "The completion does not have the required format (score 0).",
  schema_violation: "The document does not satisfy the schema.",
  tests_failed:
    "Some unit tests did not pass; per-test statuses are in `details` (score 0 with `all`, partial credit with `fraction` or `weighted`).",
  multiple_answers:
    "Several conflicting final answers were given where exactly one is asked for (score 0: a rejected enumeration).",
  not_followed:
    "Some instructions were not followed (score 0 with `all`, the share followed with `share`); per-instruction verdicts are in `details.instructions`.",
} as const;

/** A reason code from {@link REASONS}. */
export type ReasonCode = keyof typeof REASONS;

/** Reasons that mean "could not decide" (the component is `unscorable`). */
export const UNSCORABLE_REASONS: ReadonlySet<ReasonCode> = new Set<ReasonCode>([
  "no_answer",
  "parse_error",
  "undecidable",
  "timeout",
  "no_reference",
  "invalid_reference",
  "no_completion",
  "no_json",
  "invalid_json",
  "unresolved_ref",
  "sandbox_error",
  "memory_limit",
  "logprob_error",
  "judge_error",
  "worker_error",
  "invalid_steps",
  "no_outcome",
  "no_score",
  "out_of_range",
  "unsupported_instruction",
  "dependency_unscorable",
  "partial_group",
  "group_filtered",
  "no_language",
  "missing_field",
  "length_mismatch",
]);
