import { describe, expect, it } from "vitest";
import { pythonImports } from "./imports.js";

describe("pythonImports", () => {
  it("finds the top-level modules of import and from-import lines, skips relative imports", () => {
    expect(pythonImports("from sortedcontainers import SortedList\nimport numpy as np, os")).toEqual([
      "numpy",
      "os",
      "sortedcontainers",
    ]);
    expect(pythonImports("  import a.b.c  # comment, x\nfrom . import y\nfrom .z import w\nx = 1; import q")).toEqual([
      "a",
      "q",
    ]);
    expect(pythonImports("def f():\n    from collections.abc import Mapping\n")).toEqual(["collections"]);
    expect(pythonImports("print('no imports here')")).toEqual([]);
  });
});
