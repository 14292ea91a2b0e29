import { describe, expect, it } from "vitest";
import { DuplicateNameError, defineRegistry } from "./registry.js";
import { estimators, MULTI_COMPONENT, SINGLE_REWARD } from "../advantage/registry.js";

describe("defineRegistry", () => {
  const reg = defineRegistry("thing", (t: { name: string; v: number }) => t.name, [
    { name: "b", v: 1 },
    { name: "a", v: 2 },
  ]);
  it("looks names up, lists them sorted and values in registration order", () => {
    expect(reg.get("a")?.v).toBe(2);
    expect(reg.get("c")).toBeUndefined();
    expect(reg.names()).toEqual(["a", "b"]);
    expect(reg.values().map((t) => t.name)).toEqual(["b", "a"]);
  });
  it("rejects a second definition of a name, at build time and in with()", () => {
    expect(() => defineRegistry("thing", (t: { name: string }) => t.name, [{ name: "x" }, { name: "x" }])).toThrow(
      'thing "x" is already registered',
    );
    expect(() => reg.with([{ name: "a", v: 3 }])).toThrow(DuplicateNameError);
    const more = reg.with([{ name: "c", v: 3 }]);
    expect(more.names()).toEqual(["a", "b", "c"]);
    expect(reg.has("c")).toBe(false); // the original is unchanged
  });
  it("the estimator lists that tests and benchmarks iterate are derived from the registry", () => {
    expect([...SINGLE_REWARD, ...MULTI_COMPONENT].sort()).toEqual(estimators.names());
    expect(MULTI_COMPONENT).toEqual(["gdpo", "mo_grpo", "corr_grpo", "rdpo"]);
  });
});
