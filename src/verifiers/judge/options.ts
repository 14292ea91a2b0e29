import { readFileSync } from "node:fs";
import { z } from "zod";
import { ModelClient } from "../../client/client.js";
import { UserError } from "../../core/errors.js";
import { compileParser, parseOption } from "./parse.js";
import { templateVariables, unknownVariable } from "./template.js";

/** A chat message of a template: `{role, content}` with variables in the content. */
const message = z.strictObject({ role: z.enum(["system", "user", "assistant", "developer"]), content: z.string() });

/** Client limits shared by `judge` and `reward-model` (see `src/client/`). */
export const clientOptions = {
  /** Requests in flight at once for this component (default 16). */
  concurrency: z.number().int().min(1).max(1024).default(16),
  /** Requests per minute (default: unlimited), paced evenly. */
  rpm: z.number().positive().optional(),
  /** Tokens per minute, prompt + completion (default: unlimited); estimated as characters / 4 + the completion budget before a call. */
  tpm: z.number().positive().optional(),
  /** Hard deadline of one HTTP attempt, milliseconds (default 60 000). */
  requestTimeoutMs: z.number().int().positive().max(600_000).default(60_000),
  /** Retries after a failed attempt (429, 5xx, timeout, malformed body); default 4. */
  maxRetries: z.number().int().min(0).max(20).default(4),
  /** First retry's nominal backoff, milliseconds (doubles each retry, with jitter; default 500). */
  backoffMs: z.number().int().min(0).max(60_000).default(500),
  /** Longest backoff, and longest `Retry-After` honoured, milliseconds (default 30 000). */
  maxBackoffMs: z.number().int().min(0).max(600_000).default(30_000),
  /** Name of the environment variable holding the API key (sent as `Authorization: Bearer …`, never logged). */
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name")
    .optional(),
  /** Price in your currency per million tokens, for the summary's cost estimate. */
  price: z.strictObject({ input: z.number().nonnegative(), output: z.number().nonnegative().default(0) }).optional(),
  /** Cache responses by (endpoint, request body) (default true): an identical request is made once. */
  cache: z.boolean().default(true),
  /** Responses held in the cache (default 50 000). */
  cacheSize: z.number().int().min(0).default(50_000),
};

/** The client limits of {@link clientOptions}, parsed. */
export type ClientLimits = z.output<z.ZodObject<typeof clientOptions>>;

/**
 * The HTTP model client of a `judge` or `reward-model` component: its limits, retries, price and API key (read from
 * the environment variable `apiKeyEnv`, never from the spec).
 * @param type the component type, for the error message.
 * @param cacheSize responses cached by the client (0: none).
 * @param endpoint what the endpoint's budget is shared by across a fleet (`rewardkit serve --store`): the API root
 *   and model.
 * @throws UserError when `apiKeyEnv` names a variable that is not set.
 */
export function modelClientFor(type: string, o: ClientLimits, cacheSize: number, endpoint: string): ModelClient {
  const apiKey = o.apiKeyEnv !== undefined ? process.env[o.apiKeyEnv] : undefined;
  if (o.apiKeyEnv !== undefined && !apiKey)
    throw new UserError(`${type}: the environment variable ${o.apiKeyEnv} (apiKeyEnv) is not set`);
  return new ModelClient({
    concurrency: o.concurrency,
    ...(o.rpm !== undefined ? { rpm: o.rpm } : {}),
    ...(o.tpm !== undefined ? { tpm: o.tpm } : {}),
    requestTimeoutMs: o.requestTimeoutMs,
    maxRetries: o.maxRetries,
    backoffMs: o.backoffMs,
    maxBackoffMs: o.maxBackoffMs,
    ...(apiKey ? { apiKey } : {}),
    ...(o.price ? { price: o.price } : {}),
    cacheSize,
    endpoint,
  });
}

const base = z.strictObject({
  /** OpenAI-compatible API root (`http://127.0.0.1:8000/v1`); `/chat/completions` is appended unless present. */
  baseUrl: z.url(),
  /** Model name sent with each request. */
  model: z.string().min(1),
  /** The judge prompt: text (one user message) or chat messages; variables `{{prompt}}`, `{{completion}}`, `{{reference}}`, `{{item.<path>}}` … */
  template: z.union([z.string().min(1), z.array(message).min(1)]).optional(),
  /** A file holding the template text (relative to the spec file). */
  templateFile: z.string().min(1).optional(),
  /** A system message sent before a text template. */
  system: z.string().optional(),
  /** How the judge's answer becomes a score: a preset, `{pattern, min, max}`, `{json, min, max}` or `{labels, passing}`. */
  parse: parseOption.optional(),
  /** `single` (default): the completion alone; `pairwise`: against the reference, both orders; `listwise`: the whole group in one call. */
  mode: z.enum(["single", "pairwise", "listwise"]).default("single"),
  /** Pairwise: also judge with the answers swapped and average (position-bias debiasing; default true). */
  swap: z.boolean().default(true),
  /** Listwise: rollouts per group (the call is made when this many of a group have arrived). */
  groupSize: z.number().int().min(2).max(64).optional(),
  /** Listwise: longest wait for the rest of a group, milliseconds, before judging the rollouts present (default 30 000). */
  groupWaitMs: z.number().int().positive().max(600_000).default(30_000),
  /** Listwise: rank → reward; `linear`: best 1, worst 0, (n − rank)/(n − 1). */
  rank: z.enum(["linear"]).default("linear"),
  /** Judgments per rollout (`n` in one request when the server honours it): scores averaged, labels by majority. */
  samples: z.number().int().min(1).max(32).default(1),
  /** Sampling temperature (default 0). */
  temperature: z.number().min(0).max(2).default(0),
  /** Completion budget per judgment (`max_tokens`; default 1024). */
  maxTokens: z.number().int().positive().default(1024),
  /** Send the budget as `max_completion_tokens` (OpenAI reasoning models) instead of `max_tokens`. */
  maxTokensField: z.enum(["max_tokens", "max_completion_tokens"]).default("max_tokens"),
  topP: z.number().gt(0).max(1).optional(),
  seed: z.number().int().optional(),
  /** `response_format` sent as is (e.g. a JSON schema for `{json: …}` parsing). */
  responseFormat: z.record(z.string(), z.unknown()).optional(),
  /** Extra request fields (e.g. `chat_template_kwargs`, `reasoning_effort`); cannot replace model, messages or sampling fields. */
  extraBody: z.record(z.string(), z.unknown()).optional(),
  /**
   * Probability-based scoring from `top_logprobs` (true: defaults): the expected value of the verdict token
   * (G-Eval), or Σ P(t)·v(t) over a `tokens` map. Falls back to the text when the endpoint sends no log-probs.
   */
  logprobs: z
    .union([
      z.boolean(),
      z.strictObject({
        topLogprobs: z.number().int().min(1).max(20).default(5),
        tokens: z.record(z.string().min(1), z.number().finite()).optional(),
        position: z.enum(["match", "first"]).optional(),
      }),
    ])
    .default(false),
  /**
   * Master-key guard (default true): an empty completion, one with no letter or digit, or a bare reasoning opener
   * ("Thought process:", "Solution", "解") scores 0 whatever the judge says (`guard.ts`; the judge's own score is
   * kept in `details.judgeScore`).
   */
  guard: z.boolean().default(true),
  /** Keep the judge's text in `details.raw` on scored verdicts too (it is always kept on `judge_error`). */
  keepRaw: z.boolean().default(false),
  ...clientOptions,
});

const RESERVED = [
  "model",
  "messages",
  "n",
  "temperature",
  "max_tokens",
  "max_completion_tokens",
  "logprobs",
  "top_logprobs",
  "stream",
];

/** `judge` options; `templateFile` is read at validation, so the options carry the template text. */
export const judgeOptions = base
  .superRefine((o, ctx) => {
    if ((o.template === undefined) === (o.templateFile === undefined)) {
      ctx.addIssue({ code: "custom", path: ["template"], message: "give exactly one of template and templateFile" });
      return;
    }
    let template = o.template;
    if (o.templateFile !== undefined) {
      try {
        template = readFileSync(o.templateFile, "utf8");
      } catch (e) {
        ctx.addIssue({
          code: "custom",
          path: ["templateFile"],
          message: `cannot read ${o.templateFile}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
        });
        return;
      }
    }
    const texts = typeof template === "string" ? [template] : template!.map((m) => m.content);
    const vars = new Set(texts.flatMap(templateVariables));
    for (const v of new Set(texts.flatMap((t) => [...t.matchAll(/\{\{\s*([^{}]*?)\s*\}\}/g)].map((m) => m[1]!)))) {
      const why = unknownVariable(v);
      if (why) ctx.addIssue({ code: "custom", path: [o.templateFile ? "templateFile" : "template"], message: why });
    }
    const need =
      o.mode === "single" ? ["completion"] : o.mode === "pairwise" ? ["answer_a", "answer_b"] : ["completions"];
    for (const v of need)
      if (!vars.has(v))
        ctx.addIssue({ code: "custom", path: ["template"], message: `a ${o.mode} judge's template needs {{${v}}}` });
    if (o.mode !== "single" && vars.has("completion"))
      ctx.addIssue({
        code: "custom",
        path: ["template"],
        message: `a ${o.mode} judge shows the completion through ${o.mode === "pairwise" ? "{{answer_a}} / {{answer_b}}" : "{{completions}}"}, not {{completion}}`,
      });
    if (o.mode === "listwise" && o.groupSize === undefined)
      ctx.addIssue({ code: "custom", path: ["groupSize"], message: "required in listwise mode (rollouts per group)" });
    if (o.parse === undefined && o.mode !== "listwise")
      ctx.addIssue({
        code: "custom",
        path: ["parse"],
        message:
          "required: a preset (mt-bench, rating, prometheus, gaokao, yes-no, verdict), {pattern, min, max}, {json, min, max} or {labels, passing}",
      });
    const parse = o.parse ?? "ranking";
    try {
      const p = compileParser(parse);
      if (o.mode === "listwise" && p.kind !== "ranking")
        ctx.addIssue({ code: "custom", path: ["parse"], message: "a listwise judge reads a ranking (parse: ranking)" });
      if (o.mode !== "listwise" && p.kind === "ranking")
        ctx.addIssue({ code: "custom", path: ["parse"], message: "parse: ranking is for mode: listwise" });
      if (o.logprobs !== false && !(typeof o.logprobs === "object" && o.logprobs.tokens) && !p.tokenValue) {
        ctx.addIssue({
          code: "custom",
          path: ["logprobs"],
          message: `probability-based scoring needs a numeric, yes-no or label parser, or a tokens map (not ${p.describe})`,
        });
      }
    } catch (e) {
      ctx.addIssue({ code: "custom", path: ["parse"], message: (e as Error).message });
    }
    for (const k of Object.keys(o.extraBody ?? {}))
      if (RESERVED.includes(k))
        ctx.addIssue({
          code: "custom",
          path: ["extraBody", k],
          message: `set by the judge itself (use the judge's own option)`,
        });
  })
  .transform(({ templateFile, ...o }) => {
    if (templateFile === undefined) return o;
    try {
      return { ...o, template: readFileSync(templateFile, "utf8") };
    } catch {
      return o; // reported by the refinement above
    }
  });
export type JudgeOptions = z.infer<typeof judgeOptions>;
