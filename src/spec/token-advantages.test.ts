import { describe, expect, it } from "vitest";
import { compileSpec } from "./compile.js";

const spec = (tokens: unknown, extra: Array<Record<string, unknown>> = []) => ({
  name: "d",
  components: [{ name: "teacher", type: "distill" }, ...extra],
  advantage: { estimator: "grpo", tokens },
});

describe("advantage.tokens", () => {
  it("resolves component names and coefficients; the spec hash changes with it", () => {
    const r = compileSpec(spec({ components: { teacher: 0.5 } }), "d");
    expect("spec" in r && r.spec.advantage.tokens).toEqual({
      components: [{ index: 0, name: "teacher", coef: 0.5 }],
      returns: false,
    });
    const plain = compileSpec({ name: "d", components: [{ name: "teacher", type: "distill" }] }, "d");
    expect("spec" in r && "spec" in plain && r.spec.hash !== plain.spec.hash).toBe(true);
  });

  it("an unknown name, an empty map, a process component: issues with their paths", () => {
    const issues = (t: unknown, extra?: Array<Record<string, unknown>>) => {
      const r = compileSpec(spec(t, extra), "d");
      return "issues" in r ? r.issues.map((i) => `${i.path.join(".")}: ${i.message}`) : [];
    };
    expect(issues({ components: { nope: 1 } })).toEqual([
      "advantage.tokens.components.nope: names no component; known: teacher",
    ]);
    expect(issues({ components: {} })[0]).toMatch(/^advantage\.tokens\.components: name at least one component/);
    expect(issues({ components: { teacher: 1 } }, [{ name: "steps", type: "process" }])[0]).toMatch(
      /^advantage\.tokens: not with a process component \("steps"\)/,
    );
  });
});
