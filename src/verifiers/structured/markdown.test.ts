import { describe, expect, it } from "vitest";
import { checkMarkdown, loadMarkdown, markdownVerifier, tableCells } from "./markdown.js";
import { run } from "./run.test-helper.js";

const all = markdownVerifier.options.parse({});
const md = await loadMarkdown();
const problems = (t: string, o = all) => checkMarkdown(md, t, o).problems.map((p) => `${p.check}@${p.line}`);

const good = [
  "# Report",
  "",
  "## Data",
  "",
  "| a | b |",
  "|---|---|",
  "| 1 | 2 |",
  "",
  "1. one",
  "2. two",
  "",
  "- x",
  "- y",
  "",
  "```python",
  "print(1)",
  "```",
  "",
].join("\n");

describe("markdown checks (FMBench error classes)", () => {
  it("a well-formed document passes every check", () => {
    expect(problems(good)).toEqual([]);
  });
  it("heading levels never skip", () => {
    expect(problems("# A\n### C\n## B\n# D\n## E")).toEqual(["headings@2"]);
  });
  it("lists: marker without space, ordered numbering", () => {
    expect(problems("-item\n\ntext")).toEqual(["lists@1"]);
    expect(problems("1. a\n3. b")).toEqual(["lists@2"]);
    expect(problems("---\n\n- a\n- b\n\n***")).toEqual([]);
    expect(problems("-5 degrees is cold")).toEqual([]);
  });
  it("tables: every row has the header's cells; pipe rows outside a table", () => {
    expect(tableCells("| a | b \\| c |")).toBe(2);
    expect(problems("| a | b |\n|---|---|\n| 1 | 2 | 3 |\n| 4 |")).toEqual(["tables@3", "tables@4"]);
    expect(problems("| a | b |\n| 1 | 2 |")).toEqual(["tables@1", "tables@2"]);
  });
  it("code fences closed and labelled", () => {
    expect(problems("```js\nx\n```\n\n```\ny\n```")).toEqual(["fences-labelled@5"]);
    expect(problems("text\n\n```python\nprint(1)\n")).toEqual(["fences-closed@3"]);
  });
  it("required sections by heading", () => {
    const o = markdownVerifier.options.parse({ requiredSections: ["Summary", "Data"] });
    expect(checkMarkdown(md, good, o).problems.map((p) => p.message)).toEqual(['missing section "Summary"']);
  });
});

describe("markdown verifier", () => {
  it("score = 1 − failed checks / checks run (hand-computed)", async () => {
    expect(await run(markdownVerifier, {}, good)).toEqual({ score: 1, status: "ok" });
    // 5 checks run (no required sections); headings and fences-labelled fail → 0.6
    const r = await run(markdownVerifier, {}, "# T\n### Sub\n```\ncode\n```");
    expect(r).toMatchObject({
      score: 0.6,
      reason: "format_mismatch",
      details: { failed: ["headings", "fences-labelled"] },
    });
    // 6 checks with sections; sections fails → 5/6
    expect((await run(markdownVerifier, { requiredSections: ["Summary"] }, good)).score).toBeCloseTo(5 / 6, 12);
    expect((await run(markdownVerifier, { checks: ["tables"] }, "# A\n### B")).score).toBe(1);
    expect((await run(markdownVerifier, {}, "  ")).reason).toBe("no_completion");
  });
});
