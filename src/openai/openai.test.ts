import { describe, expect, it } from "vitest";
import { createScorer } from "../engine/scorer.js";
import { parseSpec } from "../spec/load.js";
import { checkString } from "./grader-verifier.js";
import { graderToSpec } from "./import.js";
import { render } from "./template.js";

// Graders shaped after the examples of OpenAI's graders guide (string_check, text_similarity, multi).
const STRING_CHECK = { type: "string_check", name: "Example string check grader", input: "{{sample.output_text}}", reference: "{{item.label}}", operation: "eq" };
const TEXT_SIMILARITY = { type: "text_similarity", name: "Example text similarity grader", input: "{{sample.output_text}}", reference: "{{item.label}}", evaluation_metric: "fuzzy_match", pass_threshold: 0.8 };
const MULTI = {
  type: "multi",
  graders: {
    name: { name: "name_grader", type: "text_similarity", input: "{{sample.output_json.name}}", reference: "{{item.name}}", evaluation_metric: "fuzzy_match", pass_threshold: 0.9 },
    email: { name: "email_grader", type: "string_check", input: "{{sample.output_json.email}}", reference: "{{item.email}}", operation: "eq" },
  },
  calculate_output: "(name + email) / 2",
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
    expect(render("{{sample.output_json.n}}", { item: {}, outputText: "not json" })).toEqual({ missing: "invalid_json" });
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
      const m = await mu.score({ id: "5", group: "g", completion: '{"name": "Jon Smith", "email": "john@example.com"}', name: "John Smith", email: "john@example.com" });
      expect(m.reward).toBeCloseTo((18 / 19 + 1) / 2, 12);
      const bad = await mu.score({ id: "6", group: "g", completion: "not json", name: "John Smith", email: "john@example.com" });
      expect(bad.results.map((r) => r.reason)).toEqual(["invalid_json", "invalid_json"]);
      expect(bad.reward).toBe(0); // onUnscorable: zero — unscorable graders enter the formula as 0
    } finally {
      await Promise.all([sc.close(), ts.close(), mu.close()]);
    }
  });

  it("model graders and unsupported metrics are clear errors naming the grader", () => {
    expect(() => load({ type: "score_model", name: "judge", input: [], model: "o3-mini" })).toThrow(/grader.json:2:\d+ type: score_model grader "judge" is not supported yet/);
    const withJudge = { ...MULTI, graders: { ...MULTI.graders, style: { type: "label_model", name: "style judge", input: [], labels: ["a"], passing_labels: ["a"], model: "gpt-4o" } } };
    expect(() => load(withJudge)).toThrow(/graders.style.type: label_model grader "style judge" is not supported yet/);
    expect(() => load({ ...TEXT_SIMILARITY, evaluation_metric: "cosine" })).toThrow(/evaluation_metric: unsupported metric/);
    expect(() => load({ ...STRING_CHECK, input: "{{sample.output_tools[0].function.name}}" })).toThrow(/input: \{\{ sample.output_tools\[0\].function.name \}\} is not supported yet/);
    expect(() => load({ ...MULTI, calculate_output: "name + phone" })).toThrow(/calculate_output: unknown variable "phone"/);
    expect(() => load({ ...STRING_CHECK, operation: "equals" })).toThrow(/operation/);
  });
});
