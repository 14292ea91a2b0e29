import { describe, expect, it } from "vitest";
import { fieldVerifier } from "./index.js";
import type { Rollout } from "../../core/types.js";

const run = (opts: Record<string, unknown>, metadata: Record<string, unknown>): unknown => {
  const fn = fieldVerifier.create(fieldVerifier.options.parse(opts));
  const rollout: Rollout = { id: "a", group: "g", completion: "x", metadata };
  return fn({ completion: "x", reference: undefined, rollout });
};

describe("field component", () => {
  it("passes a number through; range checks; missing or non-numbers are unscorable, never 0", () => {
    expect(run({ path: "metadata.rm_score" }, { rm_score: 0.75 })).toEqual({ score: 0.75, status: "ok" });
    expect(run({ path: "metadata.rm_score" }, { rm_score: -3.5 })).toEqual({ score: -3.5, status: "ok" });
    expect(run({ path: "metadata.rm_score", min: 0, max: 1 }, { rm_score: 1 })).toEqual({ score: 1, status: "ok" });
    expect(run({ path: "metadata.rm_score", min: 0, max: 1 }, { rm_score: 1.5 })).toEqual({
      score: null,
      status: "unscorable",
      reason: "out_of_range",
      details: { path: "metadata.rm_score", value: 1.5, min: 0, max: 1 },
    });
    expect(run({ path: "metadata.rm_score" }, {})).toMatchObject({
      score: null,
      reason: "no_score",
      details: { error: "missing" },
    });
    expect(run({ path: "metadata.rm_score" }, { rm_score: "0.5" })).toMatchObject({ score: null, reason: "no_score" });
    expect(run({ path: "metadata.rm_score", parseStrings: true }, { rm_score: "0.5" })).toEqual({
      score: 0.5,
      status: "ok",
    });
    expect(run({ path: "metadata.rm_score" }, { rm_score: null })).toMatchObject({ score: null, reason: "no_score" });
    expect(run({ path: "metadata.rm_score" }, { rm_score: Number.NaN })).toMatchObject({
      score: null,
      reason: "no_score",
    });
    expect(() => fieldVerifier.options.parse({ path: "x", min: 2, max: 1 })).toThrow(/min must be <= max/);
  });
});
