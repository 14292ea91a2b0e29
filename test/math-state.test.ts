import { afterAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { VerifierPool } from "../src/engine/pool.js";
import { verifyMath } from "../src/verifiers/math/index.js";

// A verdict is a pure function of (completion, reference, options): an answer that assigns or declares a
// symbol (`x \coloneqq 3`, `y := 7`, `f(t) \coloneqq t^2`) must not change the verdict of any later rollout
// scored by the same worker (red-team finding F2). Expected verdicts are those of a fresh worker, by hand:
// an assignment reads as `x = 3` (so `x \coloneqq 3` against 3 is right), a bare symbol is not a number.
const CASES: { completion: string; reference: string; score: 1 | 0 | null }[] = [
  { completion: "\\boxed{x \\coloneqq 3}", reference: "3", score: 1 },
  { completion: "\\boxed{x}", reference: "3", score: 0 },
  { completion: "\\boxed{4}", reference: "x+1", score: 0 },
  { completion: "\\boxed{x^2}", reference: "9", score: 0 },
  { completion: "\\boxed{z \\coloneq 2}", reference: "2", score: 1 },
  { completion: "\\boxed{z}", reference: "2", score: 0 },
  { completion: "\\boxed{y := 7}", reference: "7", score: 1 },
  { completion: "\\boxed{8}", reference: "y+1", score: 0 },
  { completion: "\\boxed{f(t) \\coloneqq t^2}", reference: "t^2", score: 1 },
  { completion: "\\boxed{f(3)}", reference: "9", score: null },
  { completion: "\\boxed{3}", reference: "u \\coloneqq 3", score: 1 },
  { completion: "\\boxed{u}", reference: "3", score: 0 },
  { completion: "The answer is $w + 0$.", reference: "5", score: 0 },
  { completion: "\\boxed{\\mathrm{Declare}(q, \\mathrm{integer})}", reference: "q", score: 0 },
  { completion: "\\boxed{NaN}", reference: "42", score: null },
  { completion: "\\boxed{NaN}", reference: "0", score: null },
  { completion: "\\boxed{m^2}", reference: "4", score: 0 },
];

const pool = new VerifierPool([{ index: 0, type: "math", options: {} }], 1);
afterAll(() => pool.close());

describe("math verdicts carry no state between rollouts", () => {
  it("in one worker, an assignment-bearing answer then a wrong one, in both orders: the wrong one scores 0", async () => {
    const run = async (c: (typeof CASES)[number]) =>
      (
        await pool.run(
          0,
          {
            completion: c.completion,
            reference: c.reference,
            rollout: { id: "s", group: "s", completion: c.completion },
          },
          10_000,
        )
      ).score;
    const forward: (number | null)[] = [];
    for (const c of CASES) forward.push(await run(c));
    const backward: (number | null)[] = [];
    for (const c of [...CASES].reverse()) backward.push(await run(c));
    expect(forward).toEqual(CASES.map((c) => c.score));
    expect(backward.reverse()).toEqual(CASES.map((c) => c.score));
  });

  it("any sequence of answers gets, rollout by rollout, the verdict each gets alone (with and without the verdict cache)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat({ max: CASES.length - 1 }), { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        async (order, cached) => {
          for (const k of order) {
            const c = CASES[k] as (typeof CASES)[number];
            const r = await verifyMath(c.completion, c.reference, cached ? {} : { cacheSize: 0 });
            expect(r.score, `${c.completion} vs ${c.reference} after ${order.join(",")}`).toBe(c.score);
          }
        },
      ),
      { numRuns: 40, seed: 20 },
    );
  });
});
