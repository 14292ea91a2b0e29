import { describe, expect, it } from "vitest";
import type { VerifierDefinition } from "../types.js";
import { containsVerifier } from "./contains.js";
import { exactVerifier } from "./exact.js";
import { regexVerifier } from "./regex.js";

async function run<O>(def: VerifierDefinition<O>, options: object, completion: string, reference?: unknown) {
  const fn = def.create(def.options.parse(options));
  return fn({ completion, reference, rollout: { id: "r", group: "g", completion, reference } });
}

describe("exact", () => {
  it("normalizes case and whitespace by default", async () => {
    expect(await run(exactVerifier, {}, "  Paris \n", "paris")).toEqual({ score: 1, status: "ok" });
    expect(await run(exactVerifier, { caseSensitive: true }, "Paris", "paris")).toEqual({
      score: 0,
      status: "ok",
      reason: "no_match",
    });
    expect((await run(exactVerifier, { whitespace: "exact" }, "a  b", "a b")).score).toBe(0);
    expect((await run(exactVerifier, { target: "last-line" }, "thinking...\n\nParis\n", ["Lyon", "Paris"])).score).toBe(
      1,
    );
  });
  it("missing or malformed reference is unscorable, never 0", async () => {
    expect(await run(exactVerifier, {}, "x")).toEqual({ score: null, status: "unscorable", reason: "no_reference" });
    expect((await run(exactVerifier, {}, "x", { a: 1 })).reason).toBe("invalid_reference");
  });
});

describe("contains", () => {
  it("any / all modes, fixed value or reference", async () => {
    expect((await run(containsVerifier, {}, "The capital is PARIS.", "paris")).score).toBe(1);
    expect(
      (
        await run(
          containsVerifier,
          { value: ["alpha", "beta", "gamma", "delta"], mode: "all" },
          "alpha and gamma and delta",
        )
      ).score,
    ).toBe(0.75);
    expect((await run(containsVerifier, { value: "zeta" }, "alpha")).reason).toBe("no_match");
  });
});

describe("regex", () => {
  it("match, and capture compared with the reference (last match wins)", async () => {
    expect((await run(regexVerifier, { pattern: "\\d+" }, "abc 12")).score).toBe(1);
    expect((await run(regexVerifier, { pattern: "\\d+" }, "abc")).reason).toBe("no_match");
    const cap = { pattern: "ANSWER:\\s*(\\w+)", capture: 1 };
    expect(await run(regexVerifier, cap, "ANSWER: b ... ANSWER: C", "c")).toEqual({
      score: 1,
      status: "ok",
      details: { extracted: "C" },
    });
    expect((await run(regexVerifier, cap, "ANSWER: b", "c")).reason).toBe("wrong_answer");
    expect((await run(regexVerifier, cap, "no answer here", "c")).reason).toBe("no_answer");
    expect((await run(regexVerifier, { pattern: "A=(?<v>\\d)", capture: "v" }, "A=7", 7)).score).toBe(1);
  });
});
