// A reference that is broken whatever the program does (test code that does not parse, an expected output that does
// not decode, no tests at all) is `invalid_reference` (null), never a 0 that a correct program would be trained on.
// And the policy's side: a program that raises or prints those judge messages itself still scores 0 (a worker can
// never claim `sandbox_error`, so its text never reads as the judge's).
import { describe, expect, it } from "vitest";
import type { ComponentResult } from "../src/core/types.js";
import { codeVerifier } from "../src/verifiers/code/index.js";

const verify = codeVerifier.create(codeVerifier.options.parse({ sandbox: "none", uidBase: 146_000 }));
const py = (code: string): string => "```python\n" + code + "\n```";
const score = async (code: string, reference: unknown): Promise<ComponentResult> =>
  verify({ completion: py(code), reference, rollout: { id: "x", group: "g", completion: "" } });
const RIGHT = "def f(x):\n    return x + 1";

describe("broken references are invalid_reference, never a 0", () => {
  it("test code that does not parse", async () => {
    const r = await score(RIGHT, { kind: "assert", test: "assert f(1) == 2 +" });
    expect(r).toMatchObject({ score: null, status: "unscorable", reason: "invalid_reference" });
    expect(String(r.details?.error)).toMatch(/^the test code does not parse: invalid syntax/);
  });

  it("an expected output that does not decode (encoding: python)", async () => {
    const r = await score(RIGHT, {
      kind: "call",
      entryPoint: "f",
      encoding: "python",
      cases: [{ input: "[1]", output: "2 +" }],
    });
    expect(r).toMatchObject({ score: null, reason: "invalid_reference" });
    expect(String(r.details?.error)).toMatch(/^bad case: /);
  });

  it("the same references with a sound test score a right program 1 and a wrong one 0", async () => {
    expect((await score(RIGHT, { kind: "assert", test: "assert f(1) == 2" })).score).toBe(1);
    expect((await score("def f(x):\n    return x", { kind: "assert", test: "assert f(1) == 2" })).score).toBe(0);
  });

  it("a program that raises or prints the judge's words still scores 0", async () => {
    for (const body of [
      "def f(x):\n    raise SyntaxError('the test code does not parse: invalid syntax')",
      "def f(x):\n    raise ValueError('bad case: nope')",
      "import sys\ndef f(x):\n    print('bad case: nope'); sys.stderr.write('the test code does not parse: x\\n'); return 0",
    ]) {
      const r = await score(body, { kind: "call", entryPoint: "f", cases: [{ input: [1], output: 2 }] });
      expect(r).toMatchObject({ score: 0, status: "ok", reason: "tests_failed" });
    }
  });
});
