import { z } from "zod";
import { ok, unscorable } from "../../core/types.js";
import { getPath } from "../../io/fields.js";
import type { VerifierDefinition } from "../types.js";

const options = z
  .strictObject({
    /** Dotted path of the score in the rollout record, e.g. `metadata.rm_score`. */
    path: z.string().min(1),
    /** Lowest acceptable value (inclusive); below it the rollout is unscorable (`out_of_range`). */
    min: z.number().finite().optional(),
    /** Highest acceptable value (inclusive); above it the rollout is unscorable (`out_of_range`). */
    max: z.number().finite().optional(),
    /** Read a numeric string ("0.75") as its number (default false: only JSON numbers count). */
    parseStrings: z.boolean().default(false),
  })
  .refine((o) => o.min === undefined || o.max === undefined || o.min <= o.max, {
    path: ["min"],
    message: "min must be <= max",
  });
export type FieldOptions = z.infer<typeof options>;

/**
 * `field`: a score computed elsewhere and carried in the rollout (a reward model's score from the trainer, a cost, a
 * human rating), read from `path` and passed through unchanged. A missing field, `null`, or a value that is not a
 * finite number is `unscorable` (`no_score`), never 0; a number outside [min, max] is `unscorable` (`out_of_range`,
 * `details.value`), since a score off its scale is a broken upstream, not a verdict.
 * Example: `{path: metadata.rm_score, min: 0, max: 1}` on `{metadata: {rm_score: 0.75}}` → 0.75; on 1.5 → out_of_range.
 * Peer: open-instruct's passthrough reward.
 */
export const fieldVerifier: VerifierDefinition<FieldOptions> = {
  type: "field",
  summary: "a score already in the rollout (path: metadata.rm_score), passed through with range checks",
  options,
  isolation: "inline",
  defaultPassThreshold: 0.5,
  defaultTimeoutMs: 1000,
  cacheable: false, // reads an arbitrary field; costs less than its cache key
  create(o) {
    return ({ rollout }) => {
      const raw = getPath(rollout, o.path);
      const v = o.parseStrings && typeof raw === "string" && raw.trim() !== "" ? Number(raw) : raw;
      if (typeof v !== "number" || !Number.isFinite(v)) {
        return unscorable("no_score", {
          path: o.path,
          ...(raw === undefined
            ? { error: "missing" }
            : {
                error: "not a finite number",
                value: raw === null ? null : (typeof raw === "string" ? raw : JSON.stringify(raw)).slice(0, 100),
              }),
        });
      }
      if ((o.min !== undefined && v < o.min) || (o.max !== undefined && v > o.max))
        return unscorable("out_of_range", { path: o.path, value: v, min: o.min ?? null, max: o.max ?? null });
      return ok(v);
    };
  },
};
