import { z } from "zod";
import { ok, unscorable } from "../../core/types.js";
import type { VerifierDefinition } from "../types.js";
import { normalizeText, referenceStrings, textNormalizationOptions } from "./normalize.js";

const options = z.strictObject({
  ...textNormalizationOptions,
  /** JavaScript regular expression source. */
  pattern: z.string().min(1),
  /** RegExp flags (`i`, `m`, `s`, `u`); `g` and `y` are not allowed. */
  flags: z
    .string()
    .regex(/^[imsu]*$/, "flags may only contain i, m, s, u")
    .default(""),
  /**
   * Without `capture`: 1 if the pattern matches anywhere. With `capture` (group number or name):
   * the group of the last match is compared to the reference after text normalization.
   */
  capture: z.union([z.number().int().min(0), z.string().min(1)]).optional(),
});
export type RegexOptions = z.infer<typeof options>;

/**
 * `regex`: pattern match (1/0), or compare a captured group of the last match with the reference.
 * Runs in the worker pool: a user pattern can backtrack catastrophically, and only the worker's
 * hard deadline stops that (`timeout`).
 */
export const regexVerifier: VerifierDefinition<RegexOptions> = {
  type: "regex",
  summary: "1 if the pattern matches (or its captured group equals the reference)",
  options: options.superRefine((o, ctx) => {
    try {
      new RegExp(o.pattern, o.flags);
    } catch (e) {
      ctx.addIssue({
        code: "custom",
        path: ["pattern"],
        message: `invalid regular expression: ${(e as Error).message}`,
      });
    }
  }),
  isolation: "worker",
  defaultTimeoutMs: 2000,
  create(o) {
    const re = new RegExp(o.pattern, o.flags + "g");
    return ({ completion, reference }) => {
      let last: RegExpExecArray | null = null;
      for (const m of completion.matchAll(re)) last = m;
      if (o.capture === undefined) return last ? ok(1, undefined, { match: last[0] }) : ok(0, "no_match");
      const refs = referenceStrings(reference);
      if (refs === undefined) return unscorable("no_reference");
      if (refs === null) return unscorable("invalid_reference", { expected: "string, number or array of strings" });
      if (!last) return unscorable("no_answer", { pattern: o.pattern });
      const got = typeof o.capture === "number" ? last[o.capture] : last.groups?.[o.capture];
      if (got === undefined) return unscorable("no_answer", { pattern: o.pattern, capture: o.capture });
      const g = normalizeText(got, o);
      return refs.some((r) => normalizeText(r, o) === g)
        ? ok(1, undefined, { extracted: got })
        : ok(0, "wrong_answer", { extracted: got });
    };
  },
};
