import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { evaluateRm } from "../src/rm-eval/evaluate.js";
import { readPairs, splitDialogue } from "../src/rm-eval/pairs.js";
import { kendallTauB, ranks, spearman } from "../src/rm-eval/rank.js";
import { loadSpec, parseSpec } from "../src/spec/load.js";
import { cli, ROOT, tmp } from "./helpers.js";

const EXACT = parseSpec("name: exact\ncomponents:\n  - {name: hit, type: exact}\n", "exact.yaml");
const HH = join(ROOT, "test/fixtures/hh-rlhf/harmless-test-300.jsonl.gz");
const BON = join(ROOT, "test/fixtures/reward-bench-bon/bon-40");

describe("rank correlations (values of scipy.stats 1.x on the same inputs)", () => {
  it("spearmanr and kendalltau (tau-b) with ties", () => {
    expect(ranks([10, 20, 20, 5])).toEqual([2, 3.5, 3.5, 1]);
    expect(spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 7])).toBeCloseTo(0.8207826816681233, 12);
    expect(kendallTauB([1, 2, 3, 4, 5], [5, 6, 7, 8, 7])).toBeCloseTo(0.7378647873726218, 12);
    expect(spearman([1, 1, 1], [1, 2, 3])).toBeNull();
  });
});

describe("pairwise accuracy", () => {
  it("hand-made pairs: a win, a tie, a loss", async () => {
    const dir = tmp();
    const file = join(dir, "pairs.jsonl");
    writeFileSync(
      file,
      [
        { prompt: "p1", chosen: "yes", rejected: "no, no", reference: "yes" },
        { prompt: "p2", chosen: "a", rejected: "b", reference: "c" },
        { prompt: "p3", chosen: "long answer", rejected: "ok", reference: "ok" },
      ]
        .map((r) => JSON.stringify(r))
        .join("\n"),
    );
    const e = await evaluateRm(EXACT, { pairs: file, concurrency: 1 });
    expect(e.pairs!.scorer).toEqual({ n: 3, wins: 1, ties: 1, accuracy: 0.333333, accuracyTiesHalf: 0.5 });
    // length only: "no, no" > "yes" (loss), "a" = "b" (tie), "long answer" > "ok" (win)
    expect(e.pairs!.lengthBaseline).toEqual({ n: 3, wins: 1, ties: 1, accuracy: 0.333333, accuracyTiesHalf: 0.5 });
  });
  it("hh-rlhf dialogues split at the last assistant turn", async () => {
    expect(splitDialogue("\n\nHuman: hi\n\nAssistant: hello\n\nHuman: and?\n\nAssistant:  more ")).toEqual({
      prompt: "\n\nHuman: hi\n\nAssistant: hello\n\nHuman: and?\n\nAssistant:",
      response: "more",
    });
    const pairs = await readPairs(HH);
    expect(pairs).toHaveLength(300);
    expect(pairs[0]!.prompt).toBe(pairs[0]!.prompt.slice(0, pairs[0]!.prompt.lastIndexOf("\n\nAssistant:") + 12));
  });
  it("on 300 real hh-rlhf pairs the length baseline matches a count done here from the raw file", async () => {
    const raw = gunzipSync(readFileSync(HH))
      .toString("utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { chosen: string; rejected: string });
    const last = (d: string) => d.slice(d.lastIndexOf("\n\nAssistant:") + 12).trim().length;
    const longerChosen = raw.filter((r) => last(r.chosen) > last(r.rejected)).length;
    const spec = loadSpec(join(ROOT, "examples/rm-eval.yaml"));
    const e = await evaluateRm(spec, { pairs: HH, concurrency: 1 });
    expect(e.pairs!.lengthBaseline.wins).toBe(longerChosen);
    expect(e.pairs!.lengthBaseline.wins).toBe(127); // harmlessness: the chosen response is the longer one in only 42 %
    expect(e.pairs!.unscorable).toBe(0);
    expect(e.pairs!.scorer.n).toBe(300);
  });
});

describe("best-of-N", () => {
  function folder(): string {
    const dir = tmp();
    // two instructions × three samples; sample k of each instruction lives in folder model.<k>
    const I = [
      { instruction: "I1", ref: "ref", outputs: ["ref", "xxxxx", "yy"], prefs: [1.9, 1.2, 1.5] },
      { instruction: "I2", ref: "ref", outputs: ["a", "ref", "bbbb"], prefs: [1.1, 1.3, 1.8] },
    ];
    for (let k = 0; k < 3; k++) {
      mkdirSync(join(dir, `model.${k}`));
      writeFileSync(
        join(dir, `model.${k}`, "annotations.json.gz"),
        gzipSync(
          JSON.stringify(
            I.map((x) => ({
              instruction: x.instruction,
              dataset: "toy",
              output_1: x.ref,
              output_2: x.outputs[k],
              preference: String(x.prefs[k]),
            })),
          ),
        ),
      );
    }
    return dir;
  }
  it("top-1 win rate, random and oracle, Spearman per instruction (hand-computed)", async () => {
    const e = await evaluateRm(EXACT, { bon: folder(), concurrency: 1 });
    const b = e.bon!;
    expect(b.scorer.top1WinRate).toBe(0.6); // exact picks "ref": 0.9 and 0.3
    expect(b.lengthBaseline.top1WinRate).toBe(0.5); // longest: "xxxxx" 0.2, "bbbb" 0.8
    expect(b.randomWinRate).toBe(0.466667); // ((0.9 + 0.2 + 0.5) / 3 + (0.1 + 0.3 + 0.8) / 3) / 2
    expect(b.oracleWinRate).toBe(0.85);
    expect(b.scorer.spearmanPerInstruction).toBe(0.433013); // I1: 1.5/√3, I2: 0
    expect(Object.keys(b.bySource)).toEqual(["toy"]);
  });
  it("on the RewardBench subset: random, oracle and length-only figures match the raw files", async () => {
    const prefs = new Map<string, Array<{ p: number; len: number }>>();
    for (const d of readdirSync(BON)) {
      for (const r of JSON.parse(
        gunzipSync(readFileSync(join(BON, d, "annotations.json.gz"))).toString("utf8"),
      ) as Array<{ instruction: string; output_2: string; preference: string }>) {
        const l = prefs.get(r.instruction) ?? [];
        l.push({ p: Number(r.preference) - 1, len: r.output_2.length });
        prefs.set(r.instruction, l);
      }
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const groups = [...prefs.values()];
    const e = await evaluateRm(loadSpec(join(ROOT, "examples/rm-eval.yaml")), { bon: BON, concurrency: 1 });
    const b = e.bon!;
    expect(b.scorer.instructions).toBe(40);
    expect(b.scorer.samples).toBe(440);
    expect(b.randomWinRate).toBeCloseTo(mean(groups.map((g) => mean(g.map((x) => x.p)))), 6);
    expect(b.oracleWinRate).toBeCloseTo(mean(groups.map((g) => Math.max(...g.map((x) => x.p)))), 6);
    const longest = (g: Array<{ p: number; len: number }>) =>
      mean(g.filter((x) => x.len === Math.max(...g.map((y) => y.len))).map((x) => x.p));
    expect(b.lengthBaseline.top1WinRate).toBeCloseTo(mean(groups.map(longest)), 6);
    expect(Object.keys(b.bySource)).toEqual(["helpful_base", "koala", "oasst", "selfinstruct", "vicuna"]);
  });
  it("the CLI needs --pairs or --bon", () => {
    const r = cli(["evaluate", "rm", "--spec", "examples/rm-eval.yaml"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("give --pairs <file> or --bon <folder>");
  });
});
