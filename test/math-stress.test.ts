import { describe, it, expect, afterAll } from "vitest";
import { VerifierPool } from "../src/engine/pool.js";
import { stressCases } from "../bench/math-stress-gen.js";

// A 300-string subset of `npm run stress:math` (random soup, garbage, numbers and every pathological
// input under 100 kB; the CAS spinners are covered by test/cli.test.ts and the 1 MB inputs in-process by
// src/verifiers/math/policy.test.ts): each must come back. No timing here.
const cases = stressCases(340, 7)
  .filter((c) => c.kind !== "spin" && c.completion.length < 100_000)
  .slice(0, 300);
const pool = new VerifierPool([{ index: 0, type: "math", options: {} }], 1);
afterAll(() => pool.close());

describe("math stress subset", () => {
  it("every random or pathological string returns a verdict, parse_error, undecidable, no_answer or timeout", async () => {
    let next = 0;
    const seen: string[] = [];
    const lane = async (): Promise<void> => {
      while (next < cases.length) {
        const c = cases[next++]!;
        const r = await pool.run(
          0,
          {
            completion: c.completion,
            reference: c.reference,
            rollout: { id: c.name, group: c.name, completion: c.completion },
          },
          5000,
        );
        expect(["ok", "unscorable"], c.name).toContain(r.status);
        if (r.status === "unscorable")
          expect(["parse_error", "undecidable", "no_answer", "no_reference", "timeout"], c.name).toContain(r.reason);
        seen.push(c.name);
      }
    };
    await lane();
    expect(seen.length).toBe(cases.length);
  });
});
