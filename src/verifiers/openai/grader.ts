import { z } from "zod";
import { ok, unscorable } from "../../core/types.js";
import type { ComponentResult } from "../../core/types.js";
import type { VerifierDefinition, VerifyFn } from "../types.js";
import { render, unsupportedRef } from "./template.js";
import { fuzzyVerifier } from "../text/fuzzy.js";
import { bleuVerifier } from "../text/bleu.js";
import { rougeVerifiers } from "../text/rouge.js";

const template = z.string().superRefine((t, ctx) => {
  const why = unsupportedRef(t);
  if (why) ctx.addIssue({ code: "custom", message: why });
});

/** OpenAI `text_similarity` metrics rewardkit computes, and the verifier type that computes each. */
export const SIMILARITY_METRICS: Readonly<Record<string, string>> = {
  fuzzy_match: "fuzzy",
  bleu: "bleu",
  rouge_1: "rouge-1",
  rouge_2: "rouge-2",
  rouge_3: "rouge-3",
  rouge_4: "rouge-4",
  rouge_5: "rouge-5",
  rouge_l: "rouge-l",
};

/** The verifiers behind the similarity metrics, imported directly (the registry imports this module). */
const SIMILARITY: ReadonlyMap<string, VerifierDefinition> = new Map(
  [fuzzyVerifier, bleuVerifier, ...rougeVerifiers].map((d): [string, VerifierDefinition] => [d.type, d]),
);

/** The verifier of a similarity metric's rewardkit type (`fuzzy`, `bleu`, `rouge-l` …); `undefined` when there is none. */
export function similarityVerifier(type: string): VerifierDefinition | undefined {
  return SIMILARITY.get(type);
}

export const stringCheck = z.strictObject({
  type: z.literal("string_check"),
  name: z.string().optional(),
  input: template,
  reference: template,
  /** `neq` is accepted as an alias of `ne` (the guide uses both spellings). */
  operation: z.enum(["eq", "ne", "neq", "like", "ilike"]),
});

export const textSimilarity = z.strictObject({
  type: z.literal("text_similarity"),
  name: z.string().optional(),
  input: template,
  reference: template,
  evaluation_metric: z.string().refine((m) => m in SIMILARITY_METRICS, {
    message: `unsupported metric; rewardkit computes ${Object.keys(SIMILARITY_METRICS).join(", ")} (cosine needs an embedding model; gleu and meteor are not implemented)`,
  }),
  pass_threshold: z.number().optional(),
});

const options = z.strictObject({
  /** The OpenAI grader JSON (`string_check` or `text_similarity`), keys as OpenAI spells them. */
  grader: z.discriminatedUnion("type", [stringCheck, textSimilarity]),
});
export type OpenAIGraderOptions = z.infer<typeof options>;

/**
 * OpenAI `string_check` semantics (openai-node `grader-models.ts`; guide): `eq` exact, case-sensitive equality;
 * `ne` (`neq`) its negation; `like` input contains reference (case-sensitive); `ilike` the same ignoring case.
 * Example: stringCheck("The answer is Paris", "paris", "ilike") → 1. An empty reference is refused by the caller.
 */
export function checkString(input: string, reference: string, op: "eq" | "ne" | "neq" | "like" | "ilike"): number {
  switch (op) {
    case "eq":
      return input === reference ? 1 : 0;
    case "ne":
    case "neq":
      return input !== reference ? 1 : 0;
    case "like":
      return input.includes(reference) ? 1 : 0;
    case "ilike":
      return input.toLowerCase().includes(reference.toLowerCase()) ? 1 : 0;
  }
}

/**
 * `openai-grader`: one OpenAI `string_check` or `text_similarity` grader, templates and all, as a component (what
 * the grader import builds; `multi` becomes several of these and a `formula` aggregate). `item` is the rollout
 * record, `sample.output_text` the completion. A missing `item` field → `no_reference`; `sample.output_json` on a
 * completion that is not JSON → `invalid_json`; an empty reference for `like`/`ilike` (everything contains "") →
 * `no_reference`. Similarity metrics run rewardkit's own verifiers (`fuzzy`, `bleu`, `rouge-*`).
 */
export const openaiGraderVerifier: VerifierDefinition<OpenAIGraderOptions> = {
  type: "openai-grader",
  summary: "an imported OpenAI string_check / text_similarity grader (item = rollout, sample.output_text = completion)",
  options,
  isolation: "worker", // similarity metrics are quadratic in the lengths
  defaultTimeoutMs: 5000,
  cacheable: false, // templates read arbitrary rollout fields
  create({ grader: g }) {
    const similarity: Promise<VerifyFn> | undefined =
      g.type === "text_similarity"
        ? Promise.resolve().then(() => {
            const type = SIMILARITY_METRICS[g.evaluation_metric]!;
            const def = similarityVerifier(type);
            if (!def)
              throw new Error(
                `text_similarity ${g.evaluation_metric} needs the ${type} verifier, which this build lacks`,
              );
            return def.create(def.options.parse({}));
          })
        : undefined;
    return async ({ completion, rollout }): Promise<ComponentResult> => {
      const json = {};
      const ctx = { item: rollout, outputText: completion };
      const input = render(g.input, ctx, json);
      if ("missing" in input)
        return unscorable(input.missing === "item" ? "no_reference" : "invalid_json", { side: "input" });
      const reference = render(g.reference, ctx, json);
      if ("missing" in reference)
        return unscorable(reference.missing === "item" ? "no_reference" : "invalid_json", { side: "reference" });
      if (g.type === "string_check") {
        if (reference.text === "" && (g.operation === "like" || g.operation === "ilike"))
          return unscorable("no_reference", { problem: "empty reference: every text contains it" });
        const s = checkString(input.text, reference.text, g.operation);
        return s === 1 ? ok(1) : ok(0, "no_match");
      }
      const fn = await similarity!;
      return fn({ completion: input.text, reference: reference.text, rollout });
    };
  },
};
