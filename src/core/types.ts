import type { ReasonCode } from "./reasons.js";

/** A chat message as trainers and OpenAI-compatible servers send it. */
export interface ChatMessage {
  role: string;
  content: string;
}

/**
 * One rollout: a sampled completion for a prompt, with what is needed to score it.
 * Field names are the wire names (snake_case); other names map in with `--map`.
 */
export interface Rollout {
  /** Unique id; defaults to `line-<n>` when reading a file. */
  id: string;
  /** Group (prompt) id; defaults to a hash of `prompt`. */
  group: string;
  prompt?: string | ChatMessage[];
  /** The model output: text, or chat messages (assistant turns are scored). */
  completion: string | ChatMessage[];
  /** The reference answer, any JSON; its shape depends on the verifier. */
  reference?: unknown;
  /** Training step (default 0), used by schedules. */
  step?: number;
  /**
   * How many rollouts the group has in all, when the sender knows (a positive integer). The server then holds the
   * rollout in its group barrier until that many distinct ids of its group (same step) have arrived, from any
   * requests, and stages and normalizes over the whole group (docs/groups.md).
   */
  group_size?: number;
  /**
   * A stable id of the prompt, the same at every step and epoch (the trainer shims send one: verl's
   * `data_source:split:index`, a prompt hash for TRL and OpenRLHF, verifiers' example id), for per-prompt statistics.
   * A number is read as its decimal string.
   */
  prompt_id?: string;
  labels?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  /** Token log-probs of the reference answer, for likelihood rewards. */
  reference_logprobs?: number[];
  /** Number of completion tokens as counted by the sampler, when known. */
  completion_tokens?: number;
  /** The completion's token ids, when the trainer sends them (TRL's `completion_ids`; `repetition-penalty`, length rewards). */
  completion_ids?: number[];
  [extra: string]: unknown;
}

/** Status of one component's verdict. `unscorable`: the verifier could not decide. */
export type ComponentStatus = "ok" | "unscorable";

/**
 * The verdict of one reward component on one rollout. Tri-state: a number, or `null` with a reason.
 * A deliberate 0 (wrong answer) is `ok` with a reason; a verdict that could not be reached is
 * `unscorable` with `score: null`.
 */
export interface ComponentResult {
  score: number | null;
  status: ComponentStatus;
  reason?: ReasonCode;
  details?: Record<string, unknown>;
}

/** A rollout after scoring: the input record plus reward, components and advantage. */
export interface ScoredFields {
  reward: number | null;
  components: Record<string, ComponentResult>;
  advantage: number | null;
}

/** Builds an `ok` result. */
export function ok(score: number, reason?: ReasonCode, details?: Record<string, unknown>): ComponentResult {
  const r: ComponentResult = { score, status: "ok" };
  if (reason !== undefined) r.reason = reason;
  if (details !== undefined) r.details = details;
  return r;
}

/** Builds an `unscorable` result (`score: null`). */
export function unscorable(reason: ReasonCode, details?: Record<string, unknown>): ComponentResult {
  const r: ComponentResult = { score: null, status: "unscorable", reason };
  if (details !== undefined) r.details = details;
  return r;
}
