import { describe, expect, it } from "vitest";
import { run } from "./run.test-helper.js";
import { tagsVerifier } from "./tags.js";

describe("tags (strict)", () => {
  it("1 for exactly the fields, in order, nothing outside", async () => {
    expect(await run(tagsVerifier, {}, "<think>2+2</think>\n<answer>4</answer>")).toEqual({ score: 1, status: "ok" });
    expect((await run(tagsVerifier, {}, "  <think>a</think><answer>4</answer>\n")).score).toBe(1);
  });
  it("malformed or mismatched tags earn nothing (verifiers #116, #207)", async () => {
    const p = async (c: string, o: object = {}) => (await run(tagsVerifier, o, c)).details?.problems;
    expect(await p("<think>a</think><answer>4</answr>")).toEqual(["unclosed:answer", "missing:answer", "outside_text"]);
    expect(await p("<think>a</think><answer >4</answer>")).toEqual([
      "malformed_tag:<answer >",
      "unopened:answer",
      "missing:answer",
      "outside_text",
    ]);
    expect(await p("<think>a<answer>4</answer></think>")).toEqual([
      "nested:think/answer",
      "mismatched:think/answer",
      "unopened:think",
      "missing:think",
      "missing:answer",
      "outside_text",
    ]);
    expect(await p("<think>a</answer><answer>4</answer>")).toEqual([
      "mismatched:think/answer",
      "missing:think",
      "outside_text",
    ]);
    expect(await p("<think>a</think><answer>4</answer><answer>5</answer>")).toEqual(["duplicate:answer"]);
    expect(await p("<answer>4</answer><think>a</think>")).toEqual(["order:think"]);
    expect(await p("<think>a</think>So: <answer>4</answer>")).toEqual(["outside_text"]);
    expect(await p("<think> </think><answer>4</answer>")).toEqual(["empty:think"]);
    expect(await p("<Think>a</Think><answer>4</answer>")).toEqual([
      "malformed_tag:<Think>",
      "malformed_tag:</Think>",
      "missing:think",
      "outside_text",
    ]);
    expect((await run(tagsVerifier, {}, "<think>a</think><answer>4</answr>")).score).toBe(0);
  });
  it("optional fields, unordered, outside text allowed", async () => {
    const o = { fields: ["think", { name: "tool_call", required: false }, "answer"] };
    expect((await run(tagsVerifier, o, "<think>a</think><answer>4</answer>")).score).toBe(1);
    expect((await run(tagsVerifier, o, '<think>a</think><tool_call>{"f":1}</tool_call><answer>4</answer>')).score).toBe(
      1,
    );
    expect((await run(tagsVerifier, { ordered: false }, "<answer>4</answer><think>a</think>")).score).toBe(1);
    expect((await run(tagsVerifier, { allowOutside: true }, "Hi <think>a</think> so <answer>4</answer>")).score).toBe(
      1,
    );
  });
});

describe("tags (partial, verifiers-style)", () => {
  // hand-computed: 0.4·present + 0.2·spacing + 0.2·starts + 0.2·ends
  it.each([
    ["<think>a</think>\n<answer>4</answer>", 1],
    ["<think>a</think> so <answer>4</answer>", 0.8], // spacing fails
    ["Well <think>a</think>\n<answer>4</answer>", 0.8], // does not start with <think>
    ["<think>a</think>\n<answer>4</answer> done", 0.8], // does not end with </answer>
    ["<think>a</think>", 0.2 + 0.2 + 0.2], // 0.4·½ + spacing 1 + starts 1, ends 0
    ["The answer is 4", 0],
  ])("%j → %d", async (c, want) => {
    expect((await run(tagsVerifier, { mode: "partial" }, c)).score).toBeCloseTo(want, 12);
  });
});
