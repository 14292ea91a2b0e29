import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmp } from "../../test/helpers.js";
import { describe, expect, it } from "vitest";
import {
  alignPredictions,
  loadPredictions,
  loadProcessBench,
  processBenchMetrics,
  thresholdSweep,
} from "./processbench.js";

const FIXTURES = new URL("../../test/fixtures/processbench/", import.meta.url).pathname;

describe("ProcessBench metrics (QwenLM/ProcessBench run_eval_prm_trl.py, as fractions)", () => {
  it("hand-computed on five records", () => {
    // labels: two erroneous (2, 0), three correct (−1)
    const labels = [2, 0, -1, -1, -1];
    // predictions: right, off (1 ≠ 0), right, false alarm, right → a_e = 1/2, a_c = 2/3, F1 = 2·(1/2)(2/3)/(1/2 + 2/3) = 4/7
    const m = processBenchMetrics(labels, [2, 1, -1, 0, -1]);
    expect(m.erroneous).toEqual({ n: 2, matched: 1, accuracy: 0.5 });
    expect(m.correct).toEqual({ n: 3, matched: 2, accuracy: 2 / 3 });
    expect(m.f1).toBeCloseTo(4 / 7, 15);
    // "always no error": a_e = 0, a_c = 1 → F1 = 0 by definition
    expect(processBenchMetrics(labels, [-1, -1, -1, -1, -1])).toMatchObject({
      f1: 0,
      erroneous: { accuracy: 0 },
      correct: { accuracy: 1 },
    });
    // both zero: 0, not NaN
    expect(processBenchMetrics(labels, [0, 1, 0, 0, 0]).f1).toBe(0);
    expect(processBenchMetrics([-1], [-1]).f1).toBeNull(); // one side empty: undefined
    expect(() => processBenchMetrics([1], [])).toThrow(RangeError);
  });

  it("on the bundled gsm8k copy: oracle F1 = 1; 'no error' a_e = 0/207, a_c = 193/193, F1 = 0", async () => {
    const data = await loadProcessBench(join(FIXTURES, "gsm8k.json.gz"));
    expect(data).toHaveLength(400);
    const labels = data.map((r) => r.label);
    expect(processBenchMetrics(labels, labels)).toMatchObject({
      f1: 1,
      erroneous: { n: 207, matched: 207 },
      correct: { n: 193, matched: 193 },
    });
    expect(
      processBenchMetrics(
        labels,
        labels.map(() => -1),
      ),
    ).toEqual({
      n: 400,
      f1: 0,
      erroneous: { n: 207, matched: 0, accuracy: 0 },
      correct: { n: 193, matched: 193, accuracy: 1 },
    });
    // "first step is wrong" on everything: matches the 0-labelled erroneous records only
    const zeros = labels.filter((l) => l === 0).length;
    expect(
      processBenchMetrics(
        labels,
        labels.map(() => 0),
      ),
    ).toMatchObject({ f1: 0, erroneous: { matched: zeros }, correct: { matched: 0 } });
  });

  it("threshold sweep: prediction = first step below t", () => {
    const labels = [1, -1];
    const scores = [
      [0.9, 0.2],
      [0.8, 0.6],
    ];
    const [low, mid, high] = thresholdSweep(labels, scores, [0.1, 0.5, 0.7]);
    expect(low!.metrics).toMatchObject({ erroneous: { accuracy: 0 }, correct: { accuracy: 1 }, f1: 0 });
    expect(mid!.metrics.f1).toBe(1);
    expect(high!.metrics).toMatchObject({ erroneous: { accuracy: 1 }, correct: { accuracy: 0 } });
  });

  it("bad input names the file, record and field", async () => {
    const dir = tmp();
    const f = join(dir, "d.json");
    writeFileSync(
      f,
      JSON.stringify([
        { id: "a", steps: ["x"], label: 0 },
        { id: "b", steps: ["x"], label: 3 },
      ]),
    );
    await expect(loadProcessBench(f)).rejects.toThrow(`${f}:[1] label: expected an integer in [-1, 0]`);
    writeFileSync(f, JSON.stringify({ id: "a" }));
    await expect(loadProcessBench(f)).rejects.toThrow("expected a JSON array");
    const p = join(dir, "p.jsonl");
    writeFileSync(p, `{"id": "a", "prediction": 0}\n{"id": "b", "prediction": "1"}\n`);
    await expect(loadPredictions(p)).rejects.toThrow(`${p}:2 prediction: expected an integer >= -1`);
    writeFileSync(p, `{"id": "a", "prediction": 0}\n{"id": "a", "prediction": 1}\n`);
    await expect(loadPredictions(p)).rejects.toThrow(`${p}:2 id: duplicate id "a"`);
    writeFileSync(p, `{"id": "a", "prediction": 0}\n`);
    const records = [
      { id: "a", steps: ["x"], label: 0 },
      { id: "b", steps: ["x"], label: -1 },
    ];
    expect(() => alignPredictions(records, new Map([["a", 0]]), p)).toThrow(
      `${p}: 1 of 2 records have no prediction (first: id "b")`,
    );
  });
});
