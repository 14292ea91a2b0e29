import { z } from "zod";
import { ok, unscorable } from "../../core/types.js";
import type { VerifierDefinition } from "../types.js";
import { normalizeText, referenceStrings, textNormalizationOptions } from "./normalize.js";

const options = z.strictObject({
  ...textNormalizationOptions,
  /** Compare the whole completion (`all`, default) or only its last non-empty line (`last-line`). */
  target: z.enum(["all", "last-line"]).default("all"),
});
export type ExactOptions = z.infer<typeof options>;

/** Picks the compared span of a completion. */
export function targetText(completion: string, target: "all" | "last-line"): string {
  if (target === "all") return completion;
  const lines = completion.split(/\r?\n/).filter((l) => l.trim() !== "");
  return lines[lines.length - 1] ?? "";
}

/**
 * `exact`: 1 when the normalized completion equals one of the normalized reference strings, else 0
 * (`no_match`). Reference: string, number or array of acceptable strings; missing → `no_reference`.
 * Like OpenAI's `string_check` with `eq` (case-insensitive by default, whitespace collapsed).
 */
export const exactVerifier: VerifierDefinition<ExactOptions> = {
  type: "exact",
  summary: "1 if the completion equals the reference after normalization, else 0",
  options,
  isolation: "inline",
  defaultTimeoutMs: 1000,
  create(o) {
    return ({ completion, reference }) => {
      const refs = referenceStrings(reference);
      if (refs === undefined) return unscorable("no_reference");
      if (refs === null) return unscorable("invalid_reference", { expected: "string, number or array of strings" });
      const got = normalizeText(targetText(completion, o.target), o);
      return refs.some((r) => normalizeText(r, o) === got) ? ok(1) : ok(0, "no_match");
    };
  },
};
