import { z } from "zod";
import { ok } from "../../core/types.js";
import type { Rollout } from "../../core/types.js";
import type { VerifierDefinition } from "../types.js";

const options = z
  .strictObject({
    /** L_max: the maximum response length (verl `max_resp_len`), in `unit`s. */
    maxLength: z.number().int().positive(),
    /** L_buf: length of the soft-punishment buffer before L_max (verl `overlong_buffer.len`). */
    bufferLength: z.number().int().positive(),
    /** p: penalty at L = L_max (verl `overlong_buffer.penalty_factor`), default 1. */
    penaltyFactor: z.number().nonnegative().default(1),
    /**
     * `tokens` (default): the rollout's `completion_tokens` when present, else an approximation of
     * ceil(characters / 4) (reported in `details.lengthSource`); `chars`: Unicode code points.
     */
    unit: z.enum(["tokens", "chars"]).default("tokens"),
    /** Characters per token for the approximation (default 4). */
    charsPerToken: z.number().positive().default(4),
    /**
     * Past L_max: `true` (default) holds the penalty at −p, as DAPO's Eq. 13 does; `false` keeps falling linearly,
     * as verl's `dapo.py` computes it (verl never sees L > L_max, since generation stops there).
     */
    clampAtMax: z.boolean().default(true),
  })
  .refine((o) => o.bufferLength <= o.maxLength, {
    message: "bufferLength must be <= maxLength",
    path: ["bufferLength"],
  });
export type OverlongOptions = z.infer<typeof options>;

/**
 * DAPO soft overlong punishment (Yu et al. 2025, arXiv 2503.14476, Eq. 13; verl `reward_manager/dapo.py`):
 * R = min(−(L − (L_max − L_buf)) / L_buf · p, 0): zero up to L_max − L_buf, then linear down to −p at L_max;
 * beyond L_max it stays at −p (the paper) with `clamp`, or keeps falling (verl's code) without.
 * Example: L_max = 100, L_buf = 20, p = 1: L = 80 → 0; L = 90 → −0.5; L = 100 → −1; L = 110 → −1 (clamped) or −1.5.
 * @returns a penalty in [−p, 0] with `clamp`, else in (−∞, 0].
 */
export function overlongPenalty(
  length: number,
  maxLength: number,
  bufferLength: number,
  penaltyFactor: number,
  clamp = true,
): number {
  const r = Math.min(
    (-(Math.min(length, clamp ? maxLength : length) - (maxLength - bufferLength)) / bufferLength) * penaltyFactor,
    0,
  );
  return r === 0 ? 0 : r; // no -0 in the output
}

/** Completion length in the option's unit, and where it came from. */
export function completionLength(
  completion: string,
  rollout: Rollout,
  o: OverlongOptions,
): { length: number; source: string } {
  if (o.unit === "chars") return { length: [...completion].length, source: "chars" };
  const n = rollout.completion_tokens;
  if (typeof n === "number" && Number.isFinite(n) && n >= 0) return { length: n, source: "completion_tokens" };
  return { length: Math.ceil(completion.length / o.charsPerToken), source: "approx_chars_per_token" };
}

/** `overlong`: the DAPO soft overlong penalty, a score in (−∞, 0]; give it weight 1 to add it to the reward. */
export const overlongVerifier: VerifierDefinition<OverlongOptions> = {
  type: "overlong",
  summary: "DAPO soft overlong penalty: 0 until maxLength - bufferLength, then linear to -penaltyFactor at maxLength",
  options,
  isolation: "inline",
  defaultPassThreshold: 0, // passes when there is no penalty
  reads: ["completion_tokens"],
  defaultTimeoutMs: 1000,
  create(o) {
    return ({ completion, rollout }) => {
      const { length, source } = completionLength(completion, rollout, o);
      return ok(overlongPenalty(length, o.maxLength, o.bufferLength, o.penaltyFactor, o.clampAtMax), undefined, {
        length,
        lengthSource: source,
      });
    };
  },
};
