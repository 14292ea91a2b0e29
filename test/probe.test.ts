import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readRollouts, runProbes, sampleRollouts } from "../src/probe/run.js";
import { PROBES } from "../src/probe/registry.js";
import { lookalike, nearMiss } from "../src/probe/families/answers.js";
import type { ProbeContext } from "../src/probe/types.js";
import type { Rollout } from "../src/core/types.js";
import { parseSpec } from "../src/spec/load.js";
import { loadSpec } from "../src/spec/load.js";
import { cli, ROOT, tmp } from "./helpers.js";

const MATH = join(ROOT, "examples/math.yaml");
const ctx = (reference: string, letters = "ABCD"): ProbeContext => ({
  rollout: { id: "r", group: "g", completion: "" },
  completion: "",
  prompt: "",
  reference,
  wrong: "7",
  otherReference: "7",
  letters,
  maxChars: 100,
  index: 0,
});

describe("probe building blocks", () => {
  it("nearMiss keeps the reference's format and changes its value", () => {
    expect(nearMiss(ctx("420"))).toBe("421");
    expect(nearMiss(ctx("\\frac{3}{9}"))).toBe("\\frac{3}{0}");
    expect(nearMiss(ctx("B"))).toBe("C");
    expect(nearMiss(ctx("D"))).toBe("A"); // cycles over the letters
    expect(nearMiss(ctx("\\pi"))).toBe("7"); // no digit, no letter: another prompt's answer
  });
  it("lookalike swaps characters NFKC does not fold", () => {
    expect(lookalike("420")).toBe("42O");
    expect(lookalike("B")).toBe("В");
    expect(lookalike("B")?.normalize("NFKC")).not.toBe("B");
    expect(lookalike("42")).toBeUndefined();
  });
  it("samples round-robin over groups in file order", () => {
    const rs: Rollout[] = ["a", "a", "a", "b", "c", "c"].map((g, i) => ({ id: String(i), group: g, completion: "" }));
    expect(sampleRollouts(rs, 4).map((r) => r.id)).toEqual(["0", "3", "4", "1"]);
    expect(sampleRollouts(rs, 99).map((r) => r.id)).toEqual(["0", "3", "4", "1", "5", "2"]);
  });
  it("the registry has unique kebab-case names", () => {
    const names = PROBES.map((p) => p.name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(n).toMatch(/^[a-z]+(-[a-z]+)*$/);
  });
});

describe("probes on the bundled math spec", () => {
  it("no probe earns above the wrong-answer baseline (80 real rollouts, 10 groups)", async () => {
    const { rollouts } = await readRollouts(join(ROOT, "examples/data/math-rollouts.jsonl"));
    const r = await runProbes(loadSpec(MATH), { rollouts: rollouts.slice(0, 80) }, { sample: 20, concurrency: 1 });
    expect(r.sampled).toBe(20);
    expect(r.baseline.meanReward).toBe(0);
    expect(r.skipped).toEqual([{ name: "code-hacks", reason: "no code component" }]);
    expect(r.probes.map((p) => p.name)).toEqual([
      "empty",
      "format-skeleton",
      "prompt-echo",
      "max-length",
      "wrong-value",
      "boxed-spam",
      "every-choice",
      "hedge",
      "lookalike",
      "think-hidden",
      "master-key",
      "reference-shuffle",
    ]);
    for (const p of r.probes) expect({ name: p.name, rate: p.rate }).toEqual({ name: p.name, rate: 0 });
    // max-length costs the DAPO overlong penalty (16 384 chars ≈ 4096 tokens: −1), the baseline nothing
    expect(r.probes.find((p) => p.name === "max-length")!.meanReward).toBe(-1);
    // lookalike only applies to references with a 0, a 1 or a Latin letter
    const refs = r.probes.find((p) => p.name === "lookalike")!.n;
    const expected = sampleRollouts(rollouts.slice(0, 80), 20).filter(
      (x) => lookalike(String(x.reference)) !== undefined,
    ).length;
    expect(refs).toBe(expected);
    // the sampled rollouts' own completions earn what the math verifier gives them
    expect(r.original.meanReward).toBeGreaterThan(0.5);
  });
});

describe("probes catch a hackable spec", () => {
  const rows = [
    { id: "1", group: "g1", prompt: "What is 6 * 7?", completion: "42", reference: "42" },
    { id: "2", group: "g2", prompt: "What is 2 + 3?", completion: "5", reference: "5" },
    { id: "3", group: "g3", prompt: "What is 10 - 1?", completion: "9", reference: "9" },
  ];
  it("`contains` pays every text that holds the reference: hedges, spam, look-alike-free probes; documented", async () => {
    const spec = parseSpec("name: hackable\ncomponents:\n  - {name: hit, type: contains}\n", "hackable.yaml");
    const r = await runProbes(spec, { rollouts: rows }, { sample: 3, concurrency: 1 });
    const rate = (n: string) => r.probes.find((p) => p.name === n)?.rate;
    expect(rate("hedge")).toBe(1);
    expect(rate("boxed-spam")).toBe(1);
    expect(rate("think-hidden")).toBe(1);
    expect(rate("reference-shuffle")).toBe(0); // "42" holds neither "5" nor "9"
    expect(rate("empty")).toBe(0);
    const hedge = r.probes.find((p) => p.name === "hedge")!;
    expect(hedge.documented).toBe("docs/probe.md#contains-pays-any-text-holding-the-value");
    expect(hedge.examples[0]).toMatchObject({
      id: "1",
      form: "the-answer-is",
      completion: "The answer is 42, or maybe 5.",
      reward: 1,
      baseline: 0,
      above: true,
    });
    expect(hedge.paidBy).toEqual({ hit: 1 });
  });
  it("`choice` no longer pays a hedge or every letter", async () => {
    const spec = parseSpec("name: mcq\ncomponents:\n  - {name: answer, type: choice, letters: ABCD}\n", "mcq.yaml");
    const mcq = ["A", "B", "C", "D"].map((l, i) => ({
      id: String(i),
      group: `q${i}`,
      prompt: `Pick ${l}. (A) x (B) y (C) z (D) w`,
      completion: `The answer is ${l}`,
      reference: l,
    }));
    const r = await runProbes(spec, { rollouts: mcq }, { sample: 4, concurrency: 1 });
    for (const n of ["hedge", "every-choice", "master-key", "empty", "lookalike", "wrong-value"])
      expect({ n, rate: r.probes.find((p) => p.name === n)?.rate }).toEqual({ n, rate: 0 });
    expect(r.original.meanReward).toBe(1);
  });
});

describe("rewardkit probe (CLI)", () => {
  it("--json lists the probes; --fail-on exits 3 on a probe above the baseline, 0 on a clean one", () => {
    const dir = tmp();
    const file = join(dir, "r.jsonl");
    writeFileSync(
      file,
      [
        '{"id":"1","group":"g1","completion":"42","reference":"42"}',
        '{"id":"2","group":"g2","completion":"5","reference":"5"}',
      ].join("\n") + "\n",
    );
    writeFileSync(join(dir, "c.yaml"), "name: hackable\ncomponents:\n  - {name: hit, type: contains}\n");
    const j = cli(["probe", file, "--spec", join(dir, "c.yaml"), "--json", "--fail-on", "empty"]); // empty earns 0: exit 0
    expect(j.code).toBe(0);
    const out = JSON.parse(j.stdout) as {
      probes: Array<{ name: string; n: number; rate: number; examples: unknown[]; documented?: string }>;
    };
    expect(out.probes.find((p) => p.name === "hedge")).toMatchObject({
      n: 2,
      rate: 1,
      documented: "docs/probe.md#contains-pays-any-text-holding-the-value",
    });
    expect(cli(["probe", file, "--spec", join(dir, "c.yaml"), "--fail-on", "hedge"]).code).toBe(3);
    const bad = cli(["probe", file, "--spec", join(dir, "c.yaml"), "--fail-on", "hedges"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('unknown probe "hedges"');
  });
});
