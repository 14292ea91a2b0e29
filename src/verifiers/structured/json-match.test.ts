import { describe, expect, it } from "vitest";
import { compareJson, jsonMatchVerifier, leafCount } from "./json-match.js";
import { run } from "./run.test-helper.js";

const base = jsonMatchVerifier.options.parse({});

describe("compareJson (hand-computed)", () => {
  it("counts leaves, typed paths, matches and extras", () => {
    expect(leafCount({ a: 1, b: [1, 2], c: {}, d: { e: null } })).toBe(5);
    expect(compareJson({ a: 1, b: [2, 1], c: 0 }, { a: 1, b: [1, 2] }, base)).toEqual({
      leaves: 3,
      matched: 1,
      typed: 3,
      extra: 1,
    });
    expect(compareJson({ a: 1, b: [2, 1], c: 0 }, { a: 1, b: [1, 2] }, { ...base, unorderedArrays: true })).toEqual({
      leaves: 3,
      matched: 3,
      typed: 3,
      extra: 1,
    });
    expect(compareJson({ a: "1" }, { a: 1 }, base)).toEqual({ leaves: 1, matched: 0, typed: 0, extra: 0 });
    expect(
      compareJson(
        [
          { id: 2, v: "b" },
          { id: 1, v: "a" },
        ],
        [
          { id: 1, v: "a" },
          { id: 2, v: "x" },
        ],
        { ...base, unorderedArrays: true },
      ),
    ).toEqual({ leaves: 4, matched: 3, typed: 4, extra: 0 });
  });
  it("numeric tolerance and loose strings", () => {
    expect(compareJson(3.1416, 3.14159, { ...base, absTolerance: 1e-4 }).matched).toBe(1);
    expect(compareJson(101, 100, { ...base, relTolerance: 0.01 }).matched).toBe(1);
    expect(compareJson(102, 100, { ...base, relTolerance: 0.01 }).matched).toBe(0);
    expect(compareJson(" New  York", "new york", { ...base, looseStrings: true }).matched).toBe(1);
  });
});

describe("json-match", () => {
  it("score = matched leaves / reference leaves, with the RL-Struct levels", async () => {
    const ref = { name: "Ada", age: 36 };
    expect(await run(jsonMatchVerifier, {}, '```json\n{"name": "Ada", "age": 36}\n```', ref)).toMatchObject({
      score: 1,
      details: { levels: { parses: 1, structure: 1, values: 1 } },
    });
    expect(await run(jsonMatchVerifier, {}, '{"name": "Ada", "age": "36"}', ref)).toMatchObject({
      score: 0.5,
      reason: "format_mismatch",
      details: { levels: { parses: 1, structure: 0.5, values: 0.5 } },
    });
    expect(await run(jsonMatchVerifier, {}, '{"name": "Ada", "age": 37}', ref)).toMatchObject({
      score: 0.5,
      reason: "wrong_answer",
      details: { levels: { structure: 1, values: 0.5 } },
    });
    // penalizeExtra: 2 matched / (2 leaves + 1 extra)
    expect(
      (await run(jsonMatchVerifier, { penalizeExtra: true }, '{"name": "Ada", "age": 36, "x": 1}', ref)).score,
    ).toBeCloseTo(2 / 3, 12);
    expect((await run(jsonMatchVerifier, {}, '{"name": "Ada", "age": 36}', JSON.stringify(ref))).score).toBe(1);
  });
  it("unscorable when there is nothing to compare", async () => {
    expect((await run(jsonMatchVerifier, {}, "{}")).reason).toBe("no_reference");
    expect((await run(jsonMatchVerifier, {}, "{}", "{not json")).reason).toBe("invalid_reference");
    expect((await run(jsonMatchVerifier, {}, "nothing", { a: 1 })).reason).toBe("no_json");
    expect((await run(jsonMatchVerifier, {}, '{"a": 1,}', { a: 1 })).reason).toBe("invalid_json");
  });
});
