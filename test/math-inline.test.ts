import { afterAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { VerifierPool } from "../src/engine/pool.js";
import { clearMathCache, verifyMath, verifyMathInline } from "../src/verifiers/math/index.js";
import { promptText } from "../src/verifiers/math/hedge.js";
import { readJsonl } from "./helpers.js";

// The inline fast path (verifyMathInline, run on the engine's thread before the pool) must give exactly the result
// the worker gives, or hand the rollout over: verdicts stay pure functions of (completion, reference, options).

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const gz = <T>(f: string): T[] =>
  gunzipSync(readFileSync(here(f)))
    .toString()
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as T);

interface Pair {
  completion: string;
  reference: unknown;
  prompt?: string;
}

const bundled = readJsonl<Pair>(here("../examples/data/math-rollouts.jsonl"));
const corpora: [string, Pair[]][] = [
  ["bundled rollouts", bundled],
  [
    "math corpus (real golds)",
    readJsonl<{ gold: string; pred: string }>(here("./fixtures/math-corpus.jsonl")).map((p) => ({
      completion: p.pred,
      reference: p.gold,
    })),
  ],
  [
    "Math-Verify cases",
    readJsonl<{ gold: string; pred: string }>(here("./fixtures/math-verify-cases.jsonl")).map((p) => ({
      completion: p.pred,
      reference: p.gold,
    })),
  ],
  [
    "GSM8K golds as answers",
    gz<{ body: string; gold: string }>("./fixtures/math-gsm8k-golds.jsonl.gz").map((r) => ({
      completion: `${r.body}\nA: ${r.gold}`,
      reference: r.gold,
    })),
  ],
];
const M500 = here("../../shared/data/math500/test.jsonl");
if (existsSync(M500))
  corpora.push([
    "MATH-500",
    readJsonl<{ solution: string; answer: string }>(M500).map((r) => ({ completion: r.solution, reference: r.answer })),
  ]);

describe("math inline fast path", () => {
  for (const [name, pairs] of corpora)
    it(`gives the worker's result or hands over: ${name}`, async () => {
      for (const style of ["auto", "latex"] as const) {
        const options = { style };
        clearMathCache();
        const full: unknown[] = [];
        for (const p of pairs) full.push(await verifyMath(p.completion, p.reference, options, promptText(p.prompt)));
        clearMathCache();
        let decided = 0;
        pairs.forEach((p, i) => {
          const r = verifyMathInline(p.completion, p.reference, options, promptText(p.prompt));
          if (r === undefined) return;
          decided++;
          expect(r, `${name} #${i} (${style})`).toEqual(full[i]);
        });
        // nearly every verdict of a training set is decided inline (no CAS, no thread hop)
        if (name === "bundled rollouts") expect(decided, style).toBeGreaterThanOrEqual(pairs.length - 8);
      }
    });

  const pool = new VerifierPool([{ index: 0, type: "math", options: {} }], 1);
  afterAll(() => pool.close());
  it("agrees with the worker pool on every bundled rollout (prompt included)", async () => {
    clearMathCache();
    const inline = bundled.map((p) => verifyMathInline(p.completion, p.reference, {}, promptText(p.prompt)));
    expect(inline.filter((r) => r === undefined).length).toBeLessThanOrEqual(8);
    const worker = await Promise.all(
      bundled.map((p, i) =>
        pool.run(
          0,
          { completion: p.completion, reference: p.reference, rollout: { id: `r${i}`, group: `g${i}`, ...p } },
          30_000,
        ),
      ),
    );
    inline.forEach((r, i) => {
      if (r !== undefined) expect(r, `rollout ${i}`).toEqual(worker[i]);
    });
  }, 120_000);

  it("hands over what needs the CAS, and long inputs", () => {
    expect(verifyMathInline("\\boxed{\\sqrt{8}}", "2\\sqrt{2}")).toBeUndefined();
    expect(verifyMathInline(`${"x".repeat(70_000)} \\boxed{5}`, "5")).toBeUndefined();
    expect(verifyMathInline("\\boxed{5}", "5")).toMatchObject({ score: 1 });
    expect(verifyMathInline("\\boxed{28}", "\\sqrt{34}+3\\sqrt{10}")).toMatchObject({
      score: 0,
      details: { method: "fast" },
    });
  });
});
