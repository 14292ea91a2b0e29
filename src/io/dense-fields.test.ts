import { describe, expect, it } from "vitest";
import { toRollout } from "./rollout.js";

const line = (extra: Record<string, unknown>) => toRollout({ id: "a", group: "g", completion: "x", ...extra }, 7, {});

describe("dense rollout fields: typed and validated, errors name the field and index", () => {
  it("accepts well-formed fields", () => {
    const r = line({
      student_logprobs: [-1, 0],
      teacher_logprobs: [-2, -0.5],
      gold_logprobs: [[-1], [-0.5]],
      step_rollouts: [[1, 0], [true]],
      prompt_ids: [1, 2],
      gold_ids: [0, 5],
      turn_token_offsets: [2, 5],
      step_potentials: [0.5],
    });
    expect("rollout" in r).toBe(true);
  });

  it.each([
    [{ student_logprobs: [-1, null] }, "student_logprobs[1]", "expected a number, got null"],
    [{ teacher_logprobs: "x" }, "teacher_logprobs", "expected an array of numbers, got string"],
    [{ ref_logprobs: [-1, "a"] }, "ref_logprobs[1]", "expected a number, got string"],
    [{ gold_logprobs: [[-1], -1] }, "gold_logprobs[1]", "expected an array of numbers, got number"],
    [{ gold_logprobs: [[-1, true]] }, "gold_logprobs[0][1]", "expected a number, got boolean"],
    [{ step_rollouts: [[1, "yes"]] }, "step_rollouts[0][1]", "expected a number or boolean, got string"],
    [{ prompt_ids: [1, -2] }, "prompt_ids[1]", "expected a token id, got number"],
    [{ gold_ids: [3, 1.5] }, "gold_ids[1]", "expected a token id, got number"],
    [{ gold_ids: "3 4" }, "gold_ids", "expected an array of token ids, got string"],
    [{ turn_token_offsets: [2, "4"] }, "turn_token_offsets[1]", "expected a token offset, got string"],
    [{ turn_token_offsets: { end: 4 } }, "turn_token_offsets", "expected an array of token offsets, got object"],
  ])("%j → %s: %s", (extra, field, message) => {
    expect(line(extra)).toEqual({ problem: { field, message } });
  });

  it("a mapped field is named by its source", () => {
    const r = toRollout({ group: "g", completion: "x", lp: { s: [null] } }, 1, { student_logprobs: "lp.s" });
    expect(r).toEqual({ problem: { field: "lp.s[0]", message: "expected a number, got null" } });
  });
});
