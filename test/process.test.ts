import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { cli, readJsonl, ROOT, tmp } from "./helpers.js";

const GSM8K = "test/fixtures/processbench/gsm8k.json.gz";
const records = JSON.parse(gunzipSync(readFileSync(join(ROOT, GSM8K))).toString()) as { id: string; label: number }[];

describe("rewardkit score with process components", () => {
  const dir = tmp();
  const out = join(dir, "process.jsonl");
  const r = cli(["score", "examples/data/process-rollouts.jsonl", "--spec", "examples/process.yaml", "-o", out]);
  it("writes step_advantages (one per step) on every row, token_advantages where offsets are given", () => {
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const rows = readJsonl<{
      id: string;
      steps: string[];
      step_advantages: number[];
      token_advantages?: number[];
      advantage: number;
      completion_tokens?: number;
      components: Record<string, { score: number }>;
    }>(out);
    expect(rows).toHaveLength(8);
    for (const row of rows) {
      expect(row.step_advantages).toHaveLength(row.steps.length);
      expect(row.step_advantages.every(Number.isFinite)).toBe(true);
    }
    const a = rows.find((x) => x.id === "p1-a")!;
    expect(a.token_advantages).toHaveLength(40);
    expect(a.token_advantages![0]).toBe(a.step_advantages[0]);
    expect(a.token_advantages![39]).toBe(a.step_advantages[2]);
    // gated: the wrong answers get no step credit; the padded solution (p1-c) earns less than the direct one (p1-a)
    expect(rows.find((x) => x.id === "p1-b")!.components.process!.score).toBe(0);
    expect(rows.find((x) => x.id === "p1-c")!.components.process!.score).toBeLessThan(a.components.process!.score);
    // the first error of p1-b is its step 2 (0-based 1)
    expect(rows.find((x) => x.id === "p1-b")!.components.first_error!.score).toBe(1);
  });
});

describe("rewardkit evaluate process on the bundled ProcessBench gsm8k", () => {
  const dir = tmp();
  const write = (name: string, preds: number[]) => {
    const f = join(dir, name);
    writeFileSync(f, records.map((x, i) => JSON.stringify({ id: x.id, prediction: preds[i] })).join("\n") + "\n");
    return f;
  };

  it("oracle: F1 = 1; 'no error': accuracy 0 on the 207 erroneous, 1 on the 193 correct, F1 = 0", () => {
    const oracle = cli([
      "evaluate",
      "process",
      "--data",
      GSM8K,
      "--predictions",
      write(
        "oracle.jsonl",
        records.map((x) => x.label),
      ),
      "--json",
    ]);
    expect(oracle.code).toBe(0);
    expect(JSON.parse(oracle.stdout)).toMatchObject({
      n: 400,
      f1: 1,
      erroneous: { n: 207, matched: 207, accuracy: 1 },
      correct: { n: 193, matched: 193, accuracy: 1 },
    });
    const none = cli([
      "evaluate",
      "process",
      "--data",
      GSM8K,
      "--predictions",
      write(
        "none.jsonl",
        records.map(() => -1),
      ),
      "--json",
    ]);
    expect(JSON.parse(none.stdout)).toMatchObject({
      f1: 0,
      erroneous: { matched: 0, accuracy: 0 },
      correct: { matched: 193, accuracy: 1 },
    });
    const text = cli(["evaluate", "process", "--data", GSM8K, "--predictions", join(dir, "none.jsonl")]);
    expect(text.stdout).toContain("accuracy on erroneous  0.0000  (0/207)");
    expect(text.stdout).toContain("F1                     0.0000");
  });

  it("a step-score component plus a threshold predicts, and the sweep is printed (arithmetic checker: 9/207, 193/193)", () => {
    const r = cli([
      "evaluate",
      "process",
      "--data",
      GSM8K,
      "--spec",
      "examples/process-arithmetic.yaml",
      "--json",
      "--concurrency",
      "1",
    ]);
    expect(r.stderr).toBe("");
    const j = JSON.parse(r.stdout) as {
      f1: number;
      erroneous: { matched: number };
      correct: { matched: number };
      sweep: { threshold: number; f1: number }[];
    };
    expect(j.erroneous.matched).toBe(9);
    expect(j.correct.matched).toBe(193);
    const a = 9 / 207;
    expect(j.f1).toBeCloseTo((2 * a) / (a + 1), 12);
    expect(j.sweep).toHaveLength(19);
    // the checker scores 0 or 1, so every threshold in (0, 1] gives the same predictions
    expect(new Set(j.sweep.map((s) => s.f1)).size).toBe(1);
    const text = cli([
      "evaluate",
      "process",
      "--data",
      GSM8K,
      "--spec",
      "examples/process-arithmetic.yaml",
      "--thresholds",
      "0.5,1.5",
      "--concurrency",
      "1",
    ]);
    expect(text.stdout).toContain("threshold sweep");
    expect(text.stdout).toMatch(/1\.5\s+0\.1787\s+0\.0000\s+0\.0000/); // t above every score: "step 0 is wrong" everywhere, right on the 37 records labelled 0
  });

  it("given step scores: --scores with a threshold; bad input names file, line and field", () => {
    const f = join(dir, "scores.jsonl");
    // a perfect scorer: 0 at the labelled step, 1 elsewhere
    const data = JSON.parse(gunzipSync(readFileSync(join(ROOT, GSM8K))).toString()) as {
      id: string;
      label: number;
      steps: string[];
    }[];
    writeFileSync(
      f,
      data
        .map((x) => JSON.stringify({ id: x.id, step_scores: x.steps.map((_, k) => (k === x.label ? 0.2 : 0.9)) }))
        .join("\n") + "\n",
    );
    const r = cli(["evaluate", "process", "--data", GSM8K, "--scores", f, "--threshold", "0.5", "--json"]);
    const j = JSON.parse(r.stdout) as { f1: number; best: { threshold: number; f1: number } };
    expect(j.f1).toBe(1);
    expect(j.best.f1).toBe(1);
    const bad = join(dir, "bad.jsonl");
    writeFileSync(bad, `{"id": "gsm8k-0", "prediction": 0.5}\n`);
    const e = cli(["evaluate", "process", "--data", GSM8K, "--predictions", bad]);
    expect(e.code).toBe(1);
    expect(e.stderr).toContain(`${bad}:1 prediction: expected an integer >= -1`);
    const two = cli(["evaluate", "process", "--data", GSM8K, "--predictions", bad, "--scores", f]);
    expect(two.stderr).toContain("give exactly one of --predictions, --scores, --spec");
  });
});
