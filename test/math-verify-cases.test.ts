import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { verifyMath } from "../src/verifiers/math/index.js";
import { readJsonl } from "./helpers.js";

interface Case {
  gold: string;
  pred: string;
  expected: boolean;
  source: string;
  rewardkit_differs?: string;
  rewardkit_miss?: string;
  mv_options?: { match_types?: string[] };
}

/** Math-Verify's LaTeX-only extraction (`match_types: ["latex"]`) is rewardkit's `style: latex`. */
const optionsOf = (c: Case) =>
  c.mv_options?.match_types?.length === 1 && c.mv_options.match_types[0] === "latex" ? { style: "latex" as const } : {};

const cases = readJsonl<Case>(fileURLToPath(new URL("./fixtures/math-verify-cases.jsonl", import.meta.url)));

describe("Math-Verify's own test cases (test/fixtures/math-verify-cases.jsonl)", () => {
  it("agrees on every case that is not a documented policy difference or a listed gap, with no false positive", async () => {
    let agree = 0;
    const wrong: string[] = [];
    const fixedMisses: string[] = [];
    for (const c of cases) {
      const r = await verifyMath(c.pred, c.gold, optionsOf(c));
      const got = r.score === 1;
      if (got === c.expected) agree++;
      if (c.rewardkit_differs !== undefined) continue;
      if (c.rewardkit_miss !== undefined) {
        if (got === c.expected) fixedMisses.push(c.source);
        // a known gap may be a false negative, never a false positive
        expect(got && !c.expected, `${c.source}: ${c.pred.slice(0, 80)}`).toBe(false);
        continue;
      }
      if (got !== c.expected)
        wrong.push(
          `${c.source}: gold ${c.gold.slice(0, 60)} | pred ${c.pred.slice(-80)} → ${String(r.score)} ${r.reason ?? ""}`,
        );
    }
    expect(cases.length).toBe(314);
    expect(wrong).toEqual([]);
    expect(fixedMisses, "a listed gap now agrees: drop its rewardkit_miss").toEqual([]);
    expect(cases.filter((c) => c.rewardkit_miss !== undefined).length).toBeLessThanOrEqual(2);
    expect(agree).toBeGreaterThanOrEqual(301);
  });

  it("the policy differences are the documented ones", () => {
    const reasons = new Set(cases.flatMap((c) => (c.rewardkit_differs ? [c.rewardkit_differs.split(":")[0]] : [])));
    expect(cases.filter((c) => c.rewardkit_differs !== undefined).length).toBe(12);
    expect(reasons.size).toBeGreaterThan(0);
  });
});
