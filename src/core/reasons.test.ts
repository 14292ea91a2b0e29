import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { renderReasons } from "./reasons-doc.js";

describe("docs/reasons.md", () => {
  it("is generated from REASONS (run `node scripts/gen-reasons.mjs` after changing reasons.ts)", () => {
    expect(readFileSync(new URL("../../docs/reasons.md", import.meta.url), "utf8")).toBe(renderReasons());
  });
});
