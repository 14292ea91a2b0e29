import { describe, expect, it } from "vitest";
import { findJson, jsonErrorOffset, lastBalanced, lastFence } from "./extract-json.js";

describe("findJson", () => {
  it("takes the whole text when it parses (scalars included)", () => {
    expect(findJson(' {"a": 1} ', "auto")).toEqual({ kind: "ok", value: { a: 1 }, source: "whole" });
    expect(findJson("12", "auto")).toMatchObject({ kind: "ok", value: 12 });
    expect(findJson('"foo"', "auto")).toMatchObject({ kind: "ok", value: "foo" });
    expect(findJson("null", "auto")).toMatchObject({ kind: "ok", value: null });
  });
  it("else the last fenced block, preferring json-labelled fences", () => {
    const t = 'Here:\n```json\n{"a": 1}\n```\nand\n```\nnot json\n```';
    expect(findJson(t, "auto")).toMatchObject({ kind: "ok", value: { a: 1 }, source: "fence" });
    expect(lastFence("```python\nx = 1\n```")).toBe("x = 1");
    expect(lastFence("```json\n```")).toBe("");
    expect(lastFence("no fence")).toBeUndefined();
  });
  it("else the last balanced object or array, skipping brackets inside strings", () => {
    expect(lastBalanced('a {"x": [1]} b [2] c')).toBe("[2]");
    expect(lastBalanced('say {"s": "}{"} ok')).toBe('{"s": "}{"}');
    expect(lastBalanced("[1, {2]")).toBeUndefined();
    expect(findJson('The answer is {"name": "Ada", "age": 36}.', "auto")).toMatchObject({
      kind: "ok",
      value: { name: "Ada", age: 36 },
      source: "last",
    });
  });
  it("reports nothing found, and parse errors with line and column", () => {
    expect(findJson("no json here", "auto")).toEqual({ kind: "none" });
    expect(findJson("", "whole")).toEqual({ kind: "none" });
    // '{"a": }': the error is at the "}" — position 6 (0-based), line 1, column 7
    expect(findJson('{"a": }', "whole")).toMatchObject({ kind: "invalid", position: 6, line: 1, column: 7 });
    expect(findJson('```json\n{"a": 1,\n "b": }\n```', "auto")).toMatchObject({
      kind: "invalid",
      source: "fence",
      line: 2,
      column: 7,
    });
  });
  it("modes restrict where to look", () => {
    expect(findJson('x {"a": 1}', "whole")).toMatchObject({ kind: "invalid" });
    expect(findJson('x {"a": 1}', "fence")).toEqual({ kind: "none" });
    expect(findJson("```json\n[1]\n```", "last")).toMatchObject({ kind: "ok", value: [1] });
  });
});

describe("jsonErrorOffset", () => {
  it("finds the first syntax error, -1 for valid JSON", () => {
    expect(jsonErrorOffset('{"a": }')).toBe(6);
    expect(jsonErrorOffset('{"a": [1, 2,]}')).toBe(12);
    expect(jsonErrorOffset("[1 2]")).toBe(3);
    expect(jsonErrorOffset('{"a" 1}')).toBe(5);
    expect(jsonErrorOffset("tru")).toBe(0);
    expect(jsonErrorOffset('"a\\x"')).toBe(2);
    expect(jsonErrorOffset("[1]x")).toBe(3);
    expect(jsonErrorOffset('{"a": [1, {"b": null}], "c": "\\u00e9"}')).toBe(-1);
    expect(jsonErrorOffset("[[[[")).toBe(4);
  });
});
