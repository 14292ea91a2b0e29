import { z } from "zod";
import { templateRefs } from "../../verifiers/openai/template.js";
import { validate } from "../issues.js";
import type { Issue } from "../issues.js";

/** Where imported model graders send their requests (OpenAI's API; change `baseUrl`/`apiKeyEnv` in the spec for another endpoint). */
export const OPENAI_BASE_URL = "https://api.openai.com/v1";
export const OPENAI_KEY_ENV = "OPENAI_API_KEY";

const content = z.union([
  z.string(),
  z.looseObject({ type: z.enum(["input_text", "output_text", "text"]), text: z.string() }),
  z.array(z.looseObject({ type: z.enum(["input_text", "output_text", "text"]), text: z.string() })),
]);
const message = z.looseObject({
  type: z.literal("message").optional(),
  role: z.enum(["system", "developer", "user", "assistant"]),
  content,
});
const samplingParams = z
  .strictObject({
    temperature: z.number().optional(),
    top_p: z.number().optional(),
    seed: z.number().int().optional(),
    max_completions_tokens: z.number().int().positive().optional(),
    max_completion_tokens: z.number().int().positive().optional(),
    reasoning_effort: z.string().optional(),
  })
  .optional();

export const scoreModel = z.strictObject({
  type: z.literal("score_model"),
  name: z.string().optional(),
  model: z.string().min(1),
  input: z.array(message).min(1),
  range: z.tuple([z.number(), z.number()]).optional(),
  pass_threshold: z.number().optional(),
  sampling_params: samplingParams,
});

export const labelModel = z.strictObject({
  type: z.literal("label_model"),
  name: z.string().optional(),
  model: z.string().min(1),
  input: z.array(message).min(1),
  labels: z.array(z.string().min(1)).min(2),
  passing_labels: z.array(z.string().min(1)).min(1),
});

function textOf(c: z.infer<typeof content>): string {
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((p) => p.text).join("");
  return c.text;
}

/** The JSON schema OpenAI's model graders answer in: `{steps: [{description, conclusion}], result}`. */
function resultSchema(result: Record<string, unknown>): Record<string, unknown> {
  return {
    type: "json_schema",
    json_schema: {
      name: "grader_result",
      strict: true,
      schema: {
        type: "object",
        properties: {
          steps: {
            type: "array",
            items: {
              type: "object",
              properties: { description: { type: "string" }, conclusion: { type: "string" } },
              required: ["description", "conclusion"],
              additionalProperties: false,
            },
          },
          result,
        },
        required: ["steps", "result"],
        additionalProperties: false,
      },
    },
  };
}

/**
 * An OpenAI `score_model` / `label_model` grader → a `judge` component (OpenAI's endpoint and `OPENAI_API_KEY` by
 * default). The `input` messages become the judge's template messages: `{{item.<path>}}` and
 * `{{sample.output_text}}` keep their meaning (the rollout record, the completion); `{{sample.output_json…}}` is
 * refused. The answer is requested in OpenAI's grader schema `{steps, result}` (`response_format`), and parsed:
 * - `score_model`: `result` on `range` (default [0, 1]), normalized to [0, 1] by (s − lo)/(hi − lo); its
 *   `pass_threshold` is normalized the same way into `passThreshold`;
 * - `label_model`: the label answered; score 1 for `passing_labels`, else 0 (`passThreshold` 1).
 * `sampling_params` map to `temperature`, `topP`, `seed`, `maxTokens` (sent as `max_completion_tokens`) and
 * `extraBody.reasoning_effort`.
 */
export function modelGraderComponent(
  g: unknown,
  name: string,
  at: PropertyKey[],
): { component: Record<string, unknown> } | { issues: Issue[] } {
  const type = (g as { type?: unknown }).type;
  const r =
    type === "score_model" ? validate(scoreModel, g, at, "grader field") : validate(labelModel, g, at, "grader field");
  if ("issues" in r) return r;
  const grader = r.data;
  const issues: Issue[] = [];
  const template = grader.input.map((m, k) => {
    const text = textOf(m.content);
    for (const ref of templateRefs(text)) {
      if (ref.startsWith("sample.") && ref !== "sample.output_text")
        issues.push({
          path: [...at, "input", k, "content"],
          message: `{{ ${ref} }} is not supported in model graders (supported: sample.output_text, item.<path>)`,
        });
      else if (!ref.startsWith("sample.") && !/^item(\.|\[)/.test(ref))
        issues.push({
          path: [...at, "input", k, "content"],
          message: `{{ ${ref} }}: only the namespaces item and sample exist`,
        });
    }
    return { role: m.role, content: text };
  });
  if (!template.some((m) => /\{\{\s*sample\.output_text\s*\}\}/.test(m.content)))
    issues.push({ path: [...at, "input"], message: "no message shows the sample: add {{sample.output_text}}" });
  if (issues.length > 0) return { issues };
  const base: Record<string, unknown> = {
    name,
    type: "judge",
    baseUrl: OPENAI_BASE_URL,
    apiKeyEnv: OPENAI_KEY_ENV,
    model: grader.model,
    template,
  };
  if (grader.type === "label_model") {
    const unknown = grader.passing_labels.filter((l) => !grader.labels.includes(l));
    if (unknown.length > 0)
      return {
        issues: [
          {
            path: [...at, "passing_labels"],
            message: `${unknown.map((l) => JSON.stringify(l)).join(", ")} not among the labels`,
          },
        ],
      };
    return {
      component: {
        ...base,
        parse: { labels: grader.labels, passing: grader.passing_labels },
        responseFormat: resultSchema({ type: "string", enum: grader.labels }),
        passThreshold: 1,
      },
    };
  }
  const [lo, hi] = grader.range ?? [0, 1];
  if (!(hi > lo))
    return { issues: [{ path: [...at, "range"], message: "range: the upper end must be greater than the lower" }] };
  const sp = grader.sampling_params ?? {};
  const maxTokens = sp.max_completions_tokens ?? sp.max_completion_tokens;
  return {
    component: {
      ...base,
      parse: { json: "result", min: lo, max: hi },
      responseFormat: resultSchema({ type: "number" }),
      ...(sp.temperature !== undefined ? { temperature: sp.temperature } : {}),
      ...(sp.top_p !== undefined ? { topP: sp.top_p } : {}),
      ...(sp.seed !== undefined ? { seed: sp.seed } : {}),
      ...(maxTokens !== undefined ? { maxTokens, maxTokensField: "max_completion_tokens" } : {}),
      ...(sp.reasoning_effort !== undefined ? { extraBody: { reasoning_effort: sp.reasoning_effort } } : {}),
      ...(grader.pass_threshold !== undefined ? { passThreshold: (grader.pass_threshold - lo) / (hi - lo) } : {}),
    },
  };
}
