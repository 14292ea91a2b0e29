import { describe, expect, it } from "vitest";
import { extractProgram, fencedBlocks } from "./extract.js";

describe("extractProgram", () => {
  const text =
    "Plan:\n```\nuntagged\n```\n```python\nfirst = 1\n```\nthen\n```py\nlast = 2\n```\n```js\nconst x = 3;\n```";
  it("takes the last block of the language by default, and first / all on request", () => {
    expect(extractProgram(text, "python", "last")).toBe("last = 2");
    expect(extractProgram(text, "python", "first")).toBe("first = 1");
    expect(extractProgram(text, "python", "all")).toBe("first = 1\n\nlast = 2");
    expect(extractProgram(text, "javascript", "last")).toBe("const x = 3;");
  });
  it("falls back to untagged blocks, then to nothing", () => {
    expect(extractProgram("```\nx = 1\n```", "python", "last")).toBe("x = 1");
    expect(extractProgram("no code at all", "python", "last")).toBeUndefined();
    expect(extractProgram("```python\n\n```", "python", "last")).toBeUndefined();
  });
  it("reads an unclosed final fence to the end, longer fences and tildes", () => {
    expect(extractProgram("```python\ndef f():\n    return 1", "python", "last")).toBe("def f():\n    return 1");
    expect(fencedBlocks("````python\na\n```\nb\n````").map((b) => b.body)).toEqual(["a\n```\nb"]);
    expect(extractProgram("~~~python\nx\n~~~", "python", "last")).toBe("x");
  });
  it("whole: the completion is the program", () => {
    expect(extractProgram("print(1)", "python", "whole")).toBe("print(1)");
  });
});
