import { describe, expect, it } from "vitest";
import type { Rollout } from "../../core/types.js";
import { getVerifier } from "../registry.js";
import { codeVerifier } from "./index.js";

const rollout = { id: "r", group: "g", completion: "" } as Rollout;
const verify = codeVerifier.create(codeVerifier.options.parse({}));
const call = { kind: "call", entryPoint: "f", cases: [{ input: [1], output: 1 }] };

describe("code verifier (before the sandbox)", () => {
  it("is registered as an inline verifier with documented defaults", () => {
    expect(getVerifier("code")).toBe(codeVerifier);
    expect(codeVerifier.isolation).toBe("inline");
    expect(codeVerifier.options.parse({})).toMatchObject({
      language: "python",
      extract: "last",
      score: "all",
      sandbox: "bwrap",
      testTimeoutMs: 4000,
      runTimeoutMs: 30000,
      memoryMb: 1024,
    });
  });
  it("rejects unknown options and a SandboxFusion backend without a URL", () => {
    expect(codeVerifier.options.safeParse({ timeout: 3 }).success).toBe(false);
    expect(codeVerifier.options.safeParse({ sandbox: "sandboxfusion" }).success).toBe(false);
    expect(
      codeVerifier.options.safeParse({ sandbox: "sandboxfusion", sandboxFusionUrl: "http://sf:8080" }).success,
    ).toBe(true);
  });
  it("no_reference, invalid_reference, no_answer", async () => {
    expect(await verify({ completion: "```python\nx\n```", reference: undefined, rollout })).toMatchObject({
      status: "unscorable",
      reason: "no_reference",
    });
    const bad = await verify({
      completion: "```python\nx\n```",
      reference: { kind: "call", entryPoint: "f", cases: [] },
      rollout,
    });
    expect(bad).toMatchObject({ status: "unscorable", reason: "invalid_reference" });
    expect(String(bad.details?.error)).toMatch(/cases/);
    expect(await verify({ completion: "```python\nx\n```", reference: { kind: "lisp" }, rollout })).toMatchObject({
      reason: "invalid_reference",
    });
    expect(
      await verify({
        completion: "```js\nx\n```",
        reference: { ...call, language: "javascript", encoding: "python" },
        rollout,
      }),
    ).toMatchObject({ reason: "invalid_reference" });
    expect(await verify({ completion: "just prose", reference: call, rollout })).toMatchObject({
      status: "unscorable",
      reason: "no_answer",
    });
  });
});
