import { describe, expect, it } from "vitest";
import { tokenAdvantages } from "./tokens.js";

describe("token advantages: outcome advantage broadcast + λ·token rewards", () => {
  it("A 0.5, λ 1, r [0.5, −1, 0] → per token [1, −0.5, 0.5]; returns-to-go [0, −0.5, 0.5]", () => {
    expect(tokenAdvantages(0.5, [[0.5, -1, 0]], [1], false)).toEqual([1, -0.5, 0.5]);
    expect(tokenAdvantages(0.5, [[0.5, -1, 0]], [1], true)).toEqual([0, -0.5, 0.5]);
  });

  it("two components with their own λ; lengths must agree", () => {
    expect(
      tokenAdvantages(
        0,
        [
          [1, 2],
          [10, 20],
        ],
        [0.5, 0.1],
        false,
      ),
    ).toEqual([1.5, 3]);
    expect(() => tokenAdvantages(0, [[1], [1, 2]], [1, 1], false)).toThrow(RangeError);
  });
});
