import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tmp as testDir } from "../../test/helpers.js";
import { parseSpec } from "../spec/load.js";
import { InputError, scoreFile } from "./score-file.js";

describe("scoreFile error paths leave no temporary files", () => {
  const saved = process.env.TMPDIR;
  let tmp: string;
  let input: string;
  beforeEach(() => {
    const dir = testDir();
    input = join(dir, "in.jsonl");
    tmp = mkdtempSync(join(dir, "tmp-")); // the spill folder appears (and must vanish) in here
    process.env.TMPDIR = tmp;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  });

  const spec = parseSpec(`components:\n  - {name: a, type: contains, value: "x"}`, "t.yaml");

  it("a strict run that stops at a malformed line", async () => {
    writeFileSync(input, `{"completion": "x"}\nnot json\n{"completion": "y"}\n`);
    await expect(
      scoreFile(spec, { input, output: join(input, "..", "out.jsonl"), strict: true }),
    ).rejects.toBeInstanceOf(InputError);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it("a schedule state of another spec", async () => {
    writeFileSync(input, `{"completion": "x"}\n`);
    const state = { version: 1, frontier: -1, schedules: { "components.a.weight": {} }, pending: [] };
    await expect(
      scoreFile(spec, { input, output: join(input, "..", "out.jsonl"), scheduleState: state as never }),
    ).rejects.toThrow("this spec has none");
    expect(readdirSync(tmp)).toEqual([]);
  });
});

describe("scoreFile with a scheduled passThreshold", () => {
  it("judges each rollout's pass by the threshold in force at its step (summary and --label)", async () => {
    const dir = testDir();
    const input = join(dir, "in.jsonl");
    // wrong answers (score 0) at steps 0 and 10; the threshold drops from 1 to 0 at step 10
    writeFileSync(
      input,
      [0, 10]
        .map((step) =>
          JSON.stringify({ id: `s${step}`, group: "g", completion: "no", reference: "yes", step, ok: step === 10 }),
        )
        .join("\n") + "\n",
    );
    const spec = parseSpec(
      `components:\n  - {name: a, type: exact, passThreshold: {schedule: piecewise, stages: [{startStep: 0, value: 1}, {startStep: 10, value: 0}]}}`,
      "t.yaml",
    );
    const summary = await scoreFile(spec, { input, output: join(dir, "out.jsonl"), labelField: "ok", concurrency: 1 });
    expect(summary.components.a!.passRate).toBe(0.5);
    expect(summary.label).toMatchObject({ n: 2, agree: 2, falsePositives: 0, falseNegatives: 0 });
  });
});
