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
  /**
   * The prompt's token ids (`distill` with `source: http` sends prompt_ids + completion_ids to the teacher; `info-gain`
   * with `source: http` sends prompt_ids + the turns so far + gold_ids).
   */
  prompt_ids?: number[];
  /** `distill`: the student's (sampling policy's) log-prob of each completion token, natural log, one per token. */
  student_logprobs?: number[];
  /** `distill`: the teacher's log-prob of each completion token (teacher-forced on the student's tokens). */
  teacher_logprobs?: number[];
  /** `implicit-prm`: log π_φ of each completion token under the implicit PRM (PRIME: the online-updated model). */
  policy_logprobs?: number[];
  /** `implicit-prm`: log π_ref of each completion token under the reference model. */
  ref_logprobs?: number[];
  /**
   * `info-gain`: per turn boundary t = 0..T−1, the gold answer's token log-probs given the prompt and turns 1..t
   * (t = 0: the prompt alone). T entries for a trajectory of T turns.
   */
  gold_logprobs?: number[][];
  /** `info-gain` with `source: http`: the gold answer's token ids, scored by the endpoint after each turn boundary. */
  gold_ids?: number[];
  /**
   * `info-gain` with `source: http`: per turn, the offset in `completion_ids` where it ends (exclusive; after the
   * observation that answers its assistant message). T entries for T turns, strictly increasing, the last at most
   * `completion_ids.length`.
   */
  turn_token_offsets?: number[];
  /**
   * Monte-Carlo step values (`process` with `monteCarlo`): per step prefix, the outcome rewards of the continuations
   * sampled from it (numbers, or booleans as 1/0). K entries (prefixes through steps 1..K), or K + 1 with the prompt
   * alone first.
   */
  step_rollouts?: (number | boolean)[][];
  /** Potential-based shaping: Φ of the state before each step/turn, Φ(s₀)..Φ(s_{K−1}) (K numbers). */
  step_potentials?: number[];
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
  /**
   * Dense components only: one reward per completion token, aligned with the rollout's `completion_ids` (same
   * length, same order; natural-log units for log-prob rewards). Absent when the component gives none or is
   * unscorable: a length mismatch is an unscorable result, never a truncated array. See docs/dense.md.
   */
  token_rewards?: number[];
  /** Multi-turn components only (`info-gain`): one reward per turn, the last turn's holding the outcome. */
  turn_rewards?: number[];
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
