import { describe, it, expect } from "vitest";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { verifyMath } from "./index.js";

interface Row {
  id: string;
  completion: string;
  reference: string;
  labels: { peer_correct: boolean; peer_pred: string };
}

const file = fileURLToPath(new URL("../../../examples/data/math-rollouts.jsonl", import.meta.url));
const rows: Row[] = readFileSync(file, "utf8")
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l) as Row);

/** Rollouts where the peer grader is wrong (read by hand): the boxed answer is `4:30 \text{ p.m.}`
 * (peer extracted `4:30` and marked it wrong) and `10000` for gold `10{,}000`. */
const PEER_WRONG = new Set([
  "math-3-0",
  "math-3-1",
  "math-3-2",
  "math-3-3",
  "math-3-4",
  "math-3-5",
  "math-3-6",
  "math-3-7",
  "math-72-7",
]);

describe("real data: 800 Qwen rollouts on MATH", () => {
  it("agrees with the peer grader on ≥ 98.5 % and every disagreement is a known peer error", async () => {
    let agree = 0;
    const disagreements: string[] = [];
    for (const r of rows) {
      const res = await verifyMath(r.completion, r.reference);
      expect(res.details?.extracted).toBeDefined();
      if ((res.score === 1) === r.labels.peer_correct) agree++;
      else disagreements.push(r.id);
    }
    expect(rows.length).toBe(800);
    expect(agree / rows.length).toBeGreaterThanOrEqual(0.985);
    expect(disagreements.filter((id) => !PEER_WRONG.has(id))).toEqual([]);
  });
});
