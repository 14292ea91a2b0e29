import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, readJsonl, tmp } from "./helpers.js";

interface Row {
  id: string;
  completion: string;
  group: string;
  reward: number | null;
  advantage: number | null;
  components: Record<string, { score: number | null }>;
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const ustd = (xs: number[]) => {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1));
};
function byGroup(rows: Row[]): Map<string, Row[]> {
  const g = new Map<string, Row[]>();
  for (const r of rows) g.set(r.group, [...(g.get(r.group) ?? []), r]);
  return g;
}

describe("rewardkit advantages on the bundled math rollouts scored with examples/math.yaml", () => {
  const dir = tmp();
  const scored = join(dir, "scored.jsonl");
  const s = cli(["score", "examples/data/math-rollouts.jsonl", "--spec", "examples/math.yaml", "-o", scored]);

  it("scores 800 rollouts", () => {
    expect(s.code).toBe(0);
    expect(readJsonl<Row>(scored)).toHaveLength(800);
  });

  // The peers' published GRPO formulas: (r − μ_g)/(σ_{n−1} + ε), ε = 1e-6 (verl), 1e-4 (TRL), 1e-9 (OpenRLHF)
  for (const [preset, eps] of [
    ["verl", 1e-6],
    ["trl", 1e-4],
    ["openrlhf", 1e-9],
  ] as const) {
    it(`--preset ${preset} gives (r − μ)/(σ_unbiased + ${eps})`, () => {
      const out = join(dir, `${preset}.jsonl`);
      const r = cli(["advantages", scored, "--estimator", "grpo", "--preset", preset, "-o", out]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`preset ${preset}`);
      const rows = readJsonl<Row>(out);
      expect(rows).toHaveLength(800);
      let nonzero = 0;
      for (const group of byGroup(rows).values()) {
        const rs = group.map((x) => x.reward!);
        const m = mean(rs);
        const sd = ustd(rs);
        for (const row of group) {
          const want = rs.every((x) => x === rs[0]) ? 0 : (row.reward! - m) / (sd + eps);
          expect(Math.abs(row.advantage! - want)).toBeLessThanOrEqual(1e-12);
          if (want !== 0) nonzero++;
        }
      }
      expect(nonzero).toBeGreaterThan(50);
    });
  }

  it("gdpo --preset verl: per component (r − μ)/(σ_unbiased + 1e-6), summed, whitened per token with sqrt(var + 1e-8)", () => {
    const out = join(dir, "gdpo.jsonl");
    const r = cli([
      "advantages",
      scored,
      "--estimator",
      "gdpo",
      "--preset",
      "verl",
      "--weights",
      "format=0",
      "-o",
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const rows = readJsonl<Row>(out);
    const sums = new Map<string, number>();
    for (const group of byGroup(rows).values()) {
      for (const row of group) sums.set(row.id, 0);
      for (const k of ["accuracy", "overlong"]) {
        const xs = group.map((x) => x.components[k]!.score ?? NaN);
        const ok = xs.filter((x) => !Number.isNaN(x));
        const m = mean(ok);
        const sd = ustd(ok);
        group.forEach((row, i) => {
          const x = xs[i]!;
          if (!Number.isNaN(x) && !ok.every((v) => v === ok[0]))
            sums.set(row.id, sums.get(row.id)! + (x - m) / (sd + 1e-6));
        });
      }
    }
    // verl masked_whiten over the response tokens: no completion_tokens here, so each rollout's length is the
    // documented ceil(characters / 4); W = Σ L, unbiased over W − 1 tokens
    const L = new Map(rows.map((x) => [x.id, Math.ceil(x.completion.length / 4)]));
    const W = [...L.values()].reduce((a, b) => a + b, 0);
    const m = rows.reduce((a, x) => a + L.get(x.id)! * sums.get(x.id)!, 0) / W;
    const v = rows.reduce((a, x) => a + L.get(x.id)! * (sums.get(x.id)! - m) ** 2, 0) / (W - 1);
    expect(r.stderr).toContain("batch statistics per token");
    for (const row of rows)
      expect(Math.abs(row.advantage! - (sums.get(row.id)! - m) / Math.sqrt(v + 1e-8))).toBeLessThanOrEqual(1e-12);
  });

  it("--filter zero_variance: flat groups get advantage null and every row is written; --diagnostics writes the run's diagnostics", () => {
    const out = join(dir, "filtered.jsonl");
    const diag = join(dir, "diag.json");
    const r = cli([
      "advantages",
      scored,
      "--preset",
      "verl",
      "--filter",
      "zero_variance",
      "--diagnostics",
      diag,
      "-o",
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const all = readJsonl<Row>(scored);
    const flat = [...byGroup(all).values()].filter((g) => g.every((x) => x.reward === g[0]!.reward));
    const rows = readJsonl<Row>(out);
    expect(rows.map((x) => x.id)).toEqual(all.map((x) => x.id));
    const dropped = new Set(flat.flatMap((g) => g.map((x) => x.id)));
    expect(dropped.size).toBeGreaterThan(0);
    for (const row of rows) expect(row.advantage === null).toBe(dropped.has(row.id));
    expect(r.stderr).toContain(`; ${dropped.size} rollouts in zero-variance groups filtered (advantage null)`);
    const d = JSON.parse(readFileSync(diag, "utf8"));
    expect(d.estimator).toBe("grpo");
    expect(d.groups.count).toBe(100);
    expect(d.groups.zeroVariance).toBe(flat.length); // flagged in the input, then dropped
    expect(d.nullCount).toBe(dropped.size);
    expect(d.componentCorrelation.names).toEqual(["accuracy", "format", "overlong"]);
    expect(d.ess).toBeGreaterThan(0);
  });

  it("the spec's advantage block takes a preset", () => {
    const spec = join(dir, "trl.yaml");
    const yaml = readFileSync("examples/math.yaml", "utf8").replace(
      /advantage:[\s\S]*$/,
      "advantage:\n  estimator: grpo\n  preset: trl\n",
    );
    writeFileSync(spec, yaml);
    const out = join(dir, "spec-trl.jsonl");
    const r = cli(["score", "examples/data/math-rollouts.jsonl", "--spec", spec, "-o", out]);
    expect(r.code, r.stderr).toBe(0);
    const viaCli = readJsonl<Row>(join(dir, "trl.jsonl"));
    const rows = readJsonl<Row>(out);
    rows.forEach((row, i) => expect(Math.abs(row.advantage! - viaCli[i]!.advantage!)).toBeLessThanOrEqual(1e-12));
    writeFileSync(spec, yaml.replace("preset: trl", "preset: nope"));
    const bad = cli(["check", spec]);
    expect(bad.code).not.toBe(0);
    expect(bad.stdout + bad.stderr).toMatch(/no preset "nope" for estimator grpo/);
  });

  it("refuses unknown presets and multi-component estimators without components", () => {
    const r = cli(["advantages", scored, "--estimator", "rloo", "--preset", "trl"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no preset "trl" for estimator rloo; known: verl, openrlhf/);
    const bare = cli(["advantages", "-", "--estimator", "gdpo"], '{"id":"a","group":"g","reward":1}\n');
    expect(bare.code).toBe(1);
    expect(bare.stderr).toMatch(/needs per-component scores/);
  });
});
