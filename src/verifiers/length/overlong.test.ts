import { describe, expect, it } from "vitest";
import { overlongPenalty, overlongVerifier } from "./overlong.js";

describe("overlongPenalty (DAPO Eq. 13)", () => {
  it("is 0 up to L_max − L_buf, linear to −p at L_max, then −p (paper) or still falling (verl)", () => {
    expect(overlongPenalty(80, 100, 20, 1)).toBe(0);
    expect(Object.is(overlongPenalty(10, 100, 20, 1), 0)).toBe(true); // never −0
    expect(overlongPenalty(90, 100, 20, 1)).toBeCloseTo(-0.5, 12);
    expect(overlongPenalty(100, 100, 20, 1)).toBeCloseTo(-1, 12);
    expect(overlongPenalty(110, 100, 20, 1)).toBeCloseTo(-1, 12);
    expect(overlongPenalty(110, 100, 20, 1, false)).toBeCloseTo(-1.5, 12);
    // verl docs example: L_max 20480, L_buf 4096, p 1 at L = 18432 → −0.5
    expect(overlongPenalty(18432, 20480, 4096, 1)).toBeCloseTo(-0.5, 12);
    expect(overlongPenalty(95, 100, 20, 0.5)).toBeCloseTo(-0.375, 12);
  });

  it("uses completion_tokens when given, else ceil(chars / 4)", async () => {
    const fn = overlongVerifier.create(overlongVerifier.options.parse({ maxLength: 100, bufferLength: 20 }));
    const rollout = { id: "a", group: "g", completion: "x".repeat(360) };
    expect(await fn({ completion: rollout.completion, reference: undefined, rollout })).toEqual({
      score: -0.5,
      status: "ok",
      details: { length: 90, lengthSource: "approx_chars_per_token" },
    });
    const withTokens = { ...rollout, completion_tokens: 100 };
    expect((await fn({ completion: rollout.completion, reference: undefined, rollout: withTokens })).score).toBeCloseTo(
      -1,
      12,
    );
  });
});
