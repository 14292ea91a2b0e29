// A user reward in one file: the share of required keywords that the completion mentions.
// Load it from a spec with `plugins: [./keyword-coverage.mjs]` (paths are relative to the spec).
import { defineVerifier, ok, unscorable } from "rewardkit";
import { z } from "zod";

export default defineVerifier({
  type: "keyword-coverage",
  summary: "share of the reference's keywords (or the `keywords` option) that the completion mentions",
  options: z.strictObject({
    /** Keywords to look for; default: the rollout's reference, a list of strings. */
    keywords: z.array(z.string().min(1)).min(1).optional(),
    caseSensitive: z.boolean().default(false),
  }),
  // "worker" (the default) runs it in the worker pool under the component's hard deadline.
  isolation: "worker",
  defaultTimeoutMs: 2000,
  create({ keywords, caseSensitive }) {
    const norm = (s) => (caseSensitive ? s : s.toLowerCase());
    return (input) => {
      const want = keywords ?? input.reference;
      if (!Array.isArray(want) || want.length === 0 || !want.every((k) => typeof k === "string"))
        return unscorable("no_reference");
      const text = norm(input.completion);
      const found = want.filter((k) => text.includes(norm(k)));
      return ok(found.length / want.length, undefined, { found });
    };
  },
});
