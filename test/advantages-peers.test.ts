/**
 * Golden advantages from the peers' own code (verl, OpenRLHF, TRL, NeMo-RL, GOPO), run in float64 by
 * scripts/advantages-peer-goldens.py at the commits recorded in the fixture; rewardkit's presets must reproduce
 * them to 1e-9 (relative to max(1, |A|)). See test/fixtures/advantages/SOURCE.md.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { advantages } from "../src/advantage/compute.js";
import { ROOT } from "./helpers.js";

interface Case {
  name: string;
  peer: string;
  commit: string;
  function: string;
  estimator: string;
  preset: string | null;
  options: Record<string, unknown>;
  batch: {
    rewards: (number | null)[];
    groups: string[];
    lengths: number[];
    components?: Record<string, (number | null)[]>;
  };
  expected: number[];
}

const fixture = JSON.parse(readFileSync(join(ROOT, "test/fixtures/advantages/peer-goldens.json"), "utf8")) as {
  cases: Case[];
};

describe("presets reproduce the peers' own functions (float64 goldens)", () => {
  it("the fixture covers every peer", () => {
    expect(new Set(fixture.cases.map((c) => c.peer))).toEqual(new Set(["verl", "openrlhf", "trl", "nemo", "gopo"]));
  });
  for (const c of fixture.cases) {
    it(`${c.name}: ${c.estimator}${c.preset ? ` --preset ${c.preset}` : ""} = ${c.peer} ${c.function} @ ${c.commit.slice(0, 7)}`, () => {
      const got = advantages(c.batch, {
        estimator: c.estimator,
        ...(c.preset ? { preset: c.preset } : {}),
        options: c.options,
      });
      let worst = 0;
      c.expected.forEach((want, i) => {
        if (c.batch.rewards[i] === null) {
          // TRL gives a rollout with a null reward 0 (nan_to_num); rewardkit gives it no advantage
          expect(want).toBe(0);
          expect(got[i]).toBeNaN();
          return;
        }
        worst = Math.max(worst, Math.abs(got[i]! - want) / Math.max(1, Math.abs(want)));
      });
      expect(worst).toBeLessThanOrEqual(1e-9);
      expect(c.expected.some((x) => Math.abs(x) > 0.1)).toBe(true); // a golden that is all zeros would test nothing
    });
  }
});

describe("CorrGRPO: the authors' core code (paper Appendix B, Listing 1), transcribed independently", () => {
  // per group: s'_k = w_k s_k; c_i = Σ_k (s'_ik − mean s'_k); ρ = Pearson matrix of the s'_k with zero rows and
  // columns for a constant one; D = Σ ρ; A_i = c_i / sqrt(max(D, 0) + 1e-6)
  function listing(cols: number[][], w: number[]): number[] {
    const n = cols[0]!.length;
    const s = cols.map((c, k) => c.map((x) => w[k]! * x));
    const mu = s.map((c) => c.reduce((a, b) => a + b, 0) / n);
    const act = s.map((c) => Math.max(...c) !== Math.min(...c));
    let D = 0;
    for (let k = 0; k < s.length; k++)
      for (let l = 0; l < s.length; l++) {
        if (!act[k] || !act[l]) continue;
        let ab = 0;
        let aa = 0;
        let bb = 0;
        for (let i = 0; i < n; i++) {
          ab += (s[k]![i]! - mu[k]!) * (s[l]![i]! - mu[l]!);
          aa += (s[k]![i]! - mu[k]!) ** 2;
          bb += (s[l]![i]! - mu[l]!) ** 2;
        }
        D += ab / Math.sqrt(aa * bb);
      }
    return Array.from({ length: n }, (_, i) =>
      act.some(Boolean) ? s.reduce((a, c, k) => a + c[i]! - mu[k]!, 0) / Math.sqrt(Math.max(D, 0) + 1e-6) : 0,
    );
  }
  const groups = [
    [
      [1, 0],
      [0.2, 0.9],
      [0.5, 0.5],
    ], // n = 2, opposite components: Σρ = 0 → ±|c|/sqrt(1e-6), not ±|c|/1e-6
    [
      [1, 0, 1, 0, 1, 1, 0, 0],
      [0.3, 0.9, 0.4, 0.1, 0.8, 0.2, 0.5, 0.7],
      [0.05, 0.01, 0.09, 0.02, 0.03, 0.08, 0.04, 0.06],
    ],
    [
      [0, 1, 1],
      [1, 1, 1],
      [0.25, 0.5, 0.125],
    ],
  ];
  it("weights only inside the components, ε inside the root", () => {
    const w = [0.6, 0.3, 0.1];
    const comps: Record<string, number[]> = { a: [], b: [], c: [] };
    const keys: string[] = [];
    const want: number[] = [];
    groups.forEach((cols, g) => {
      cols.forEach((c, k) => comps["abc"[k]!]!.push(...c));
      keys.push(...cols[0]!.map(() => `g${g}`));
      want.push(...listing(cols, w));
    });
    const got = advantages(
      { rewards: keys.map(() => 0), groups: keys, components: comps },
      { estimator: "corr_grpo", options: { weights: { a: 0.6, b: 0.3, c: 0.1 } } },
    );
    want.forEach((x, i) => expect(Math.abs(got[i]! - x) / Math.max(1, Math.abs(x))).toBeLessThanOrEqual(1e-9));
    expect(Math.abs(got[0]!)).toBeGreaterThan(100); // ±150-ish, the n = 2 case
    expect(Math.abs(got[0]!)).toBeLessThan(1000);
  });
});
