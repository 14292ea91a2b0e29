import { describe, expect, it } from "vitest";
import { parseSpec } from "./load.js";
import { formatProblem, SpecError } from "./errors.js";

function problems(text: string): string[] {
  try {
    parseSpec(text, "spec.yaml");
  } catch (e) {
    if (e instanceof SpecError) return e.message.split("\n");
    throw e;
  }
  throw new Error("spec was accepted");
}

describe("parseSpec", () => {
  it("fills defaults and hashes the normalized spec", () => {
    const s = parseSpec("components:\n  - {name: acc, type: exact}\n", "my-spec.yaml");
    expect(s.name).toBe("my-spec");
    expect(s.plain.components[0]).toMatchObject({
      weight: 1,
      passThreshold: 1,
      timeoutMs: 1000,
      options: { caseSensitive: false, whitespace: "collapse", target: "all" },
    });
    expect(s.onUnscorable).toBe("zero");
    expect(s.advantage.estimator.name).toBe("grpo");
    expect(s.advantage.options).toMatchObject({ std: "unbiased", epsilon: 1e-6 });
    // same spec in JSON, other key order → same hash
    const j = parseSpec('{"components": [{"type": "exact", "name": "acc", "weight": 1}], "name": "my-spec"}', "x.json");
    expect(j.hash).toBe(s.hash);
    expect(s.hash).toMatch(/^[0-9a-f]{16}$/);
  });

  it("names file, line and field path for a wrong type", () => {
    const text = [
      "name: t",
      "components:",
      "  - name: acc",
      "    type: exact",
      "  - name: len",
      "    type: overlong",
      "    weight: heavy",
      "    maxLength: 100",
      "    bufferLength: 10",
    ].join("\n");
    expect(problems(text)).toEqual(["spec.yaml:7:5 components[1].weight: expected number, received string"]);
  });

  it("collects every problem, including type options, unknown keys and unknown names", () => {
    const text = [
      "components:",
      "  - name: acc",
      "    type: math-verify",
      "  - name: len",
      "    type: overlong",
      "    maxLength: 100",
      "    bufferLenght: 10",
      "  - name: fmt",
      "    type: think-format",
      "    gate: nothing",
      "advantage:",
      "  estimator: ppo",
    ].join("\n");
    const p = problems(text);
    expect(
      p.find((l) => l.startsWith('spec.yaml:3:5 components[0].type: unknown verifier type "math-verify"; known: ')),
    ).toMatch(/known: .*\bmath, .*think-format/);
    expect(p).toContain("spec.yaml:4:5 components[1].bufferLength: required (expected number)");
    expect(p).toContain('spec.yaml:7:5 components[1].bufferLenght: unknown option "bufferLenght"');
    expect(p).toContain('spec.yaml:10:5 components[2].gate: gate "nothing" names no component; known: acc, len, fmt');
    expect(p.some((l) => l.startsWith('spec.yaml:12:3 advantage.estimator: unknown estimator "ppo"'))).toBe(true);
  });

  it("reports problems of every part in one run, even when the top level is invalid too", () => {
    const text = [
      "components:",
      "  - {name: acc, type: math, weight: heavy}",
      "  - {name: fmt, type: think-fromat}",
      "  - {name: len, type: overlong, maxLength: 100, bufferLength: 10, penaltyfactor: 2}",
      "  - {name: acc, type: exact}",
      "onUnscorable: skip",
      "advantage: {estimator: grpo, std: sample}",
    ].join("\n");
    const p = problems(text);
    expect(p).toContain("spec.yaml:2:29 components[0].weight: expected number, received string");
    expect(p.some((l) => l.startsWith('spec.yaml:3:17 components[1].type: unknown verifier type "think-fromat"'))).toBe(
      true,
    );
    expect(p).toContain('spec.yaml:4:67 components[2].penaltyfactor: unknown option "penaltyfactor"');
    expect(p).toContain('spec.yaml:5:6 components[3].name: duplicate component name "acc" (also components[0])');
    expect(p.some((l) => l.startsWith("spec.yaml:6:1 onUnscorable: "))).toBe(true);
    expect(p).toContain('spec.yaml:7:30 advantage.std: expected one of "unbiased"|"population"|"none"');
    expect(p.map((l) => Number(l.split(":")[1]))).toEqual([2, 3, 4, 5, 6, 7]); // reading order
  });

  it("rejects duplicate names, gate cycles and YAML syntax errors with lines", () => {
    expect(problems("components:\n  - {name: a, type: exact}\n  - {name: a, type: exact}\n")).toEqual([
      'spec.yaml:3:6 components[1].name: duplicate component name "a" (also components[0])',
    ]);
    expect(
      problems("components:\n  - {name: a, type: exact, gate: b}\n  - {name: b, type: exact, gate: a}\n")[0],
    ).toMatch(/components\[0\]\.gate: gate cycle/);
    expect(problems("components:\n  - name: a\n   type: exact\n")[0]).toMatch(/^spec\.yaml:3:\d+: /);
    expect(problems("components: []\n")).toEqual(["spec.yaml:1:1 components: a spec needs at least one component"]);
  });

  it("validates regex patterns and overlong bounds", () => {
    expect(problems("components:\n  - {name: r, type: regex, pattern: '(a'}\n")[0]).toMatch(
      /components\[0\]\.pattern: invalid regular expression/,
    );
    expect(problems("components:\n  - {name: o, type: overlong, maxLength: 10, bufferLength: 20}\n")[0]).toMatch(
      /components\[0\]\.bufferLength: bufferLength must be <= maxLength/,
    );
  });

  it("locates strict-JSON syntax errors by line and column on every Node version", () => {
    const json = (text: string) => {
      try {
        parseSpec(text, "t.json");
      } catch (e) {
        return (e as SpecError).problems.map(formatProblem);
      }
      return [];
    };
    expect(json('{\n  "components": [\n    {"name": "a", "type": math}\n  ]\n}\n')).toEqual([
      't.json:3:27: invalid JSON: unexpected "math"',
    ]);
    expect(json('{"components": [{"name": "a", "type": "exact"},]}')).toEqual([
      "t.json:1:48: invalid JSON: expected a value",
    ]);
    expect(json('{"components": [] // no\n}')).toEqual(["t.json:1:19: invalid JSON: comments are not JSON"]);
    expect(json('{"name": "x", "components": [{"name": "a", "type": "exact"}]}')).toEqual([]);
  });
});
