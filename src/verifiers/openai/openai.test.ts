import { describe, expect, it } from "vitest";
import { createScorer } from "../../engine/scorer.js";
import { parseSpec } from "../../spec/load.js";
import { checkString } from "./grader.js";
import { graderToSpec } from "../../spec/dialects/openai.js";
import { render } from "./template.js";
import { chatCompletion, promptOf, startReplay } from "../../client/replay.test-helper.js";

// Graders shaped after the examples of OpenAI's graders guide (string_check, text_similarity, multi).
const STRING_CHECK = {
  type: "string_check",
  name: "Example string check grader",
  input: "{{sample.output_text}}",
  reference: "{{item.label}}",
  operation: "eq",
};
const TEXT_SIMILARITY = {
  type: "text_similarity",
  name: "Example text similarity grader",
  input: "{{sample.output_text}}",
  reference: "{{item.label}}",
  evaluation_metric: "fuzzy_match",
  pass_threshold: 0.8,
};
const MULTI = {
  type: "multi",
  graders: {
    name: {
      name: "name_grader",
      type: "text_similarity",
      input: "{{sample.output_json.name}}",
      reference: "{{item.name}}",
      evaluation_metric: "fuzzy_match",
      pass_threshold: 0.9,
    },
    email: {
      name: "email_grader",
      type: "string_check",
      input: "{{sample.output_json.email}}",
      reference: "{{item.email}}",
      operation: "eq",
    },
  },
  calculate_output: "(name + email) / 2",
};
const SCORE_MODEL = {
  type: "score_model",
  name: "Example score model grader",
  model: "o4-mini-2025-04-16",
  input: [
    { role: "system", content: "Score how close the answer is to the reference, from 1 (unrelated) to 5 (same)." },
    { role: "user", content: "Reference: {{item.reference_answer}}. Model answer: {{sample.output_text}}" },
  ],
  range: [1, 5],
  pass_threshold: 3,
  sampling_params: { temperature: 1, seed: 42, max_completions_tokens: 2048, reasoning_effort: "low" },
};
const LABEL_MODEL = {
  type: "label_model",
  name: "Example label grader",
  model: "gpt-4o-2024-08-06",
  input: [
    {
      type: "message",
      role: "user",
      content: { type: "input_text", text: "Classify the sentiment of: {{sample.output_text}}" },
    },
  ],
  labels: ["positive", "neutral", "negative"],
  passing_labels: ["positive"],
};
const load = (g: unknown) => parseSpec(JSON.stringify(g, null, 2), "grader.json");

describe("OpenAI grader import", () => {
  it("string_check operations as OpenAI defines them", () => {
    expect(checkString("Paris", "Paris", "eq")).toBe(1);
    expect(checkString("paris", "Paris", "eq")).toBe(0);
    expect(checkString("paris", "Paris", "ne")).toBe(1);
    expect(checkString("paris", "Paris", "neq")).toBe(1);
    expect(checkString("It is Paris.", "Paris", "like")).toBe(1);
    expect(checkString("It is paris.", "Paris", "like")).toBe(0);
    expect(checkString("It is paris.", "Paris", "ilike")).toBe(1);
  });

  it("renders item and sample templates", () => {
    const ctx = { item: { a: { b: [1, { c: "x" }] } }, outputText: '{"n": {"m": 2}}' };
    expect(render("{{ item.a.b[1].c }}-{{item.a.b[0]}}", ctx)).toEqual({ text: "x-1" });
    expect(render("{{sample.output_json.n.m}}|{{sample.output_json.q}}", ctx)).toEqual({ text: "2|" });
    expect(render("{{item.zz}}", ctx)).toEqual({ missing: "item" });
    expect(render("{{sample.output_json.n}}", { item: {}, outputText: "not json" })).toEqual({
      missing: "invalid_json",
    });
  });

  it("a single grader becomes one component; multi becomes components and a formula", () => {
    const s = graderToSpec(MULTI);
    expect(s).toEqual({
      data: {
        description: "imported OpenAI multi grader",
        components: [
          { name: "name", type: "openai-grader", grader: MULTI.graders.name, passThreshold: 0.9 },
          { name: "email", type: "openai-grader", grader: MULTI.graders.email },
        ],
        aggregate: { type: "formula", formula: "(name + email) / 2" },
      },
    });
    const spec = load(STRING_CHECK);
    expect(spec.name).toBe("Example string check grader");
    expect(spec.components.map((c) => c.name)).toEqual(["grader"]);
    expect(load(MULTI).aggregate.describe).toBe("(name + email) / 2");
  });

  it("scores the guide's examples", async () => {
    const sc = createScorer(load(STRING_CHECK), { concurrency: 1 });
    const ts = createScorer(load(TEXT_SIMILARITY), { concurrency: 1 });
    const mu = createScorer(load(MULTI), { concurrency: 1 });
    try {
      expect((await sc.score({ id: "1", group: "g", completion: "positive", label: "positive" })).reward).toBe(1);
      expect((await sc.score({ id: "2", group: "g", completion: "Positive", label: "positive" })).reward).toBe(0);
      const missing = await sc.score({ id: "3", group: "g", completion: "x" });
      expect(missing.results[0]).toMatchObject({ score: null, reason: "no_reference" });
      // rapidfuzz ratio: 1 − indel distance / total length; "jon smith" vs "john smith": 1 − 1/19
      const t = await ts.score({ id: "4", group: "g", completion: "Jon Smith", label: "John Smith" });
      expect(t.reward).toBeCloseTo(18 / 19, 12);
      const m = await mu.score({
        id: "5",
        group: "g",
        completion: '{"name": "Jon Smith", "email": "john@example.com"}',
        name: "John Smith",
        email: "john@example.com",
      });
      expect(m.reward).toBeCloseTo((18 / 19 + 1) / 2, 12);
      const bad = await mu.score({
        id: "6",
        group: "g",
        completion: "not json",
        name: "John Smith",
        email: "john@example.com",
      });
      expect(bad.results.map((r) => r.reason)).toEqual(["invalid_json", "invalid_json"]);
      expect(bad.reward).toBe(0); // onUnscorable: zero — unscorable graders enter the formula as 0
    } finally {
      await Promise.all([sc.close(), ts.close(), mu.close()]);
    }
  });

  it("score_model and label_model become judge components (OpenAI's endpoint, schema, sampling params)", () => {
    const g = graderToSpec(SCORE_MODEL);
    expect(g).toEqual({
      data: {
        name: "Example score model grader",
        description: "imported OpenAI score_model grader",
        components: [
          {
            name: "grader",
            type: "judge",
            baseUrl: "https://api.openai.com/v1",
            apiKeyEnv: "OPENAI_API_KEY",
            model: "o4-mini-2025-04-16",
            template: [
              { role: "system", content: SCORE_MODEL.input[0]!.content },
              { role: "user", content: "Reference: {{item.reference_answer}}. Model answer: {{sample.output_text}}" },
            ],
            parse: { json: "result", min: 1, max: 5 },
            responseFormat: expect.objectContaining({ type: "json_schema" }),
            temperature: 1,
            seed: 42,
            maxTokens: 2048,
            maxTokensField: "max_completion_tokens",
            extraBody: { reasoning_effort: "low" },
            passThreshold: 0.5,
          },
        ],
      },
    });
    const spec = load(SCORE_MODEL);
    expect(spec.components[0]!.type).toBe("judge");
    const withLabel = { ...MULTI, graders: { ...MULTI.graders, tone: LABEL_MODEL } };
    const m = load(withLabel);
    expect(m.components.map((c) => c.type)).toEqual(["openai-grader", "openai-grader", "judge"]);
    expect(m.components[2]!.options.parse).toEqual({
      labels: ["positive", "neutral", "negative"],
      passing: ["positive"],
    });
    expect(m.components[2]!.passThreshold).toBe(1);
  });

  it("scores imported model graders against an OpenAI-compatible endpoint", async () => {
    const server = await startReplay((r) => {
      const user = promptOf(r.body);
      if (r.body.response_format && JSON.stringify(r.body.response_format).includes('"enum"'))
        return {
          json: chatCompletion([`{"steps": [], "result": "${user.includes("great") ? "positive" : "negative"}"}`]),
        };
      return {
        json: chatCompletion([
          `{"steps": [{"description": "compare", "conclusion": "close"}], "result": ${user.includes("Model answer: Paris") ? 5 : 2}}`,
        ]),
      };
    });
    process.env.RK_TEST_OPENAI_KEY = "sk-test-openai";
    const retarget = (g: Record<string, unknown>): unknown => {
      const d = graderToSpec(g as { type: string } & Record<string, unknown>);
      if ("issues" in d) throw new Error("import failed");
      for (const c of d.data.components as Array<Record<string, unknown>>)
        Object.assign(c, { baseUrl: `${server.url}/v1`, apiKeyEnv: "RK_TEST_OPENAI_KEY" });
      return d.data;
    };
    const sm = createScorer(load(retarget(SCORE_MODEL)), { concurrency: 1 });
    const lm = createScorer(load(retarget(LABEL_MODEL)), { concurrency: 1 });
    try {
      expect(
        (await sm.score({ id: "1", group: "g", completion: "Paris", reference_answer: "Paris" })).results[0],
      ).toMatchObject({ score: 1, details: { rating: 5 } });
      expect(
        (await sm.score({ id: "2", group: "g", completion: "Lyon", reference_answer: "Paris" })).results[0],
      ).toMatchObject({ score: 0.25 });
      expect((await sm.score({ id: "3", group: "g", completion: "Lyon" })).results[0]).toMatchObject({
        score: null,
        reason: "no_reference",
      });
      expect((await lm.score({ id: "4", group: "g", completion: "a great day" })).results[0]).toMatchObject({
        score: 1,
        details: { label: "positive" },
      });
      expect((await lm.score({ id: "5", group: "g", completion: "a sad day" })).results[0]).toMatchObject({
        score: 0,
        details: { label: "negative" },
      });
      expect(server.received[0]!.body).toMatchObject({
        model: "o4-mini-2025-04-16",
        max_completion_tokens: 2048,
        seed: 42,
        reasoning_effort: "low",
      });
      expect(server.received[0]!.headers.authorization).toBe("Bearer sk-test-openai");
    } finally {
      await Promise.all([sm.close(), lm.close(), server.close()]);
    }
  });

  it("model graders and unsupported metrics are clear errors naming the grader", () => {
    expect(() => load({ type: "score_model", name: "judge", input: [], model: "o3-mini" })).toThrow(
      /grader.json:\d+:\d+ input: Too small/,
    );
    expect(() => load({ ...SCORE_MODEL, input: [{ role: "user", content: "{{sample.output_json.x}}" }] })).toThrow(
      /input\[0\].content: \{\{ sample.output_json.x \}\} is not supported in model graders/,
    );
    expect(() => load({ ...LABEL_MODEL, input: [{ role: "user", content: "no sample here" }] })).toThrow(
      /input: no message shows the sample/,
    );
    expect(() => load({ ...LABEL_MODEL, passing_labels: ["great"] })).toThrow(
      /passing_labels: "great" not among the labels/,
    );
    expect(() => load({ type: "python", name: "py", source: "def grade(s, i): return 1" })).toThrow(
      /python grader "py" is not supported yet/,
    );
    expect(() => load({ ...TEXT_SIMILARITY, evaluation_metric: "cosine" })).toThrow(
      /evaluation_metric: unsupported metric/,
    );
    expect(() => load({ ...STRING_CHECK, input: "{{sample.output_tools[0].function.name}}" })).toThrow(
      /input: \{\{ sample.output_tools\[0\].function.name \}\} is not supported yet/,
    );
    expect(() => load({ ...MULTI, calculate_output: "name + phone" })).toThrow(
      /calculate_output: unknown variable "phone"/,
    );
    expect(() => load({ ...STRING_CHECK, operation: "equals" })).toThrow(/operation/);
  });
});
