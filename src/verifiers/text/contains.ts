import { z } from "zod";
import { ok, unscorable } from "../../core/types.js";
import type { VerifierDefinition } from "../types.js";
import { normalizeText, referenceStrings, textNormalizationOptions } from "./normalize.js";

const options = z.strictObject({
  ...textNormalizationOptions,
  /** Fixed text to look for; when absent the rollout's `reference` is used. */
  value: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
  /** With several values: `any` (default) scores 1 if one is found; `all` scores the share found. */
  mode: z.enum(["any", "all"]).default("any"),
});
export type ContainsOptions = z.infer<typeof options>;

/**
 * `contains`: does the normalized completion contain the normalized value(s)?
 * `mode: any` → 1 or 0 (`no_match`); `mode: all` → share of values found in [0, 1].
 * Values come from the `value` option or the rollout's `reference` (string, number or array).
 */
export const containsVerifier: VerifierDefinition<ContainsOptions> = {
  type: "contains",
  summary: "1 if the completion contains the value (or share of values found with mode: all)",
  options,
  isolation: "inline",
  defaultTimeoutMs: 1000,
  create(o) {
    const fixed = o.value === undefined ? undefined : typeof o.value === "string" ? [o.value] : o.value;
    return ({ completion, reference }) => {
      const values = fixed ?? referenceStrings(reference);
      if (values === undefined) return unscorable("no_reference");
      if (values === null) return unscorable("invalid_reference", { expected: "string, number or array of strings" });
      const text = normalizeText(completion, o);
      const found = values.filter((v) => text.includes(normalizeText(v, o))).length;
      const score = o.mode === "any" ? (found > 0 ? 1 : 0) : found / values.length;
      return score === 0 ? ok(0, "no_match") : ok(score, undefined, { found, of: values.length });
    };
  },
};
