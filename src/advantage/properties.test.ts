import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildGroupIndex } from "./groups.js";
import { MULTI_COMPONENT, SINGLE_REWARD, getEstimator } from "./registry.js";
import type { AdvantageInput } from "./types.js";

interface Batch {
  rewards: number[];
  groups: number[];
  comps: number[][];
  lengths: number[];
  strata: number[];
}

/** Batches of 1–6 groups of 2–8 rollouts, rewards on a small grid (ties happen), 3 components, lengths, strata. */
const batchArb = fc.array(fc.integer({ min: 2, max: 8 }), { minLength: 1, maxLength: 6 }).chain((sizes) => {
  const n = sizes.reduce((a, b) => a + b, 0);
  const groups = sizes.flatMap((s, g) => Array<number>(s).fill(g));
  const val = fc.integer({ min: -4, max: 4 }).map((x) => x / 2);
  return fc.record({
    rewards: fc.array(val, { minLength: n, maxLength: n }),
    groups: fc.constant(groups),
    comps: fc.array(fc.array(val, { minLength: n, maxLength: n }), { minLength: 3, maxLength: 3 }),
    lengths: fc.array(fc.integer({ min: 1, max: 50 }), { minLength: n, maxLength: n }),
    strata: fc.array(fc.integer({ min: 0, max: 1 }), { minLength: n, maxLength: n }),
  });
});

function toInput(b: Batch): AdvantageInput {
  return {
    rewards: Float64Array.from(b.rewards),
    groups: buildGroupIndex(b.groups),
    components: { names: ["a", "b", "c"], scores: b.comps.map((c) => Float64Array.from(c)) },
    lengths: Float64Array.from(b.lengths),
    strata: Int32Array.from(b.strata),
  };
}

function run(name: string, input: AdvantageInput, opts: Record<string, unknown> = {}): Float64Array {
  const est = getEstimator(name)!;
  return est.compute(input, est.options.parse(opts));
}

const near = (a: number, b: number, tol = 1e-9): boolean =>
  (Number.isNaN(a) && Number.isNaN(b)) || Math.abs(a - b) <= tol * Math.max(1, Math.abs(a), Math.abs(b));

describe("properties (fast-check)", () => {
  it("permutation equivariance: shuffling the batch permutes the advantages (every estimator)", () => {
    fc.assert(
      fc.property(batchArb, fc.func(fc.integer()), (b, key) => {
        const n = b.rewards.length;
        const perm = [...Array(n).keys()].sort((x, y) => key(x) - key(y) || x - y);
        const pb: Batch = {
          rewards: perm.map((i) => b.rewards[i]!),
          groups: perm.map((i) => b.groups[i]!),
          comps: b.comps.map((c) => perm.map((i) => c[i]!)),
          lengths: perm.map((i) => b.lengths[i]!),
          strata: perm.map((i) => b.strata[i]!),
        };
        for (const name of [...SINGLE_REWARD, ...MULTI_COMPONENT]) {
          const a = run(name, toInput(b));
          const p = run(name, toInput(pb));
          perm.forEach((i, k) => expect(near(p[k]!, a[i]!), `${name} at ${i}: ${p[k]} vs ${a[i]}`).toBe(true));
        }
      }),
      { numRuns: 60 },
    );
  });

  it("centered estimators have zero group mean", () => {
    const centered: [string, Record<string, unknown>][] = [
      ["grpo", {}],
      ["grpo", { baseline: "leave-one-out" }],
      ["grpo", { std: "population", epsilon: 1e-8 }],
      ["dr_grpo", {}],
      ["rloo", {}],
      ["gpg", {}],
      ["rank", {}],
      ["gdpo", { batchNorm: "none" }],
      ["mo_grpo", {}],
      ["corr_grpo", {}],
      ["rdpo", {}],
    ];
    fc.assert(
      fc.property(batchArb, (b) => {
        const input = toInput(b);
        for (const [name, o] of centered) {
          const a = run(name, input, o);
          const { order, offsets } = input.groups;
          for (let g = 0; g < input.groups.count; g++) {
            let s = 0;
            let scale = 0;
            for (let k = offsets[g]!; k < offsets[g + 1]!; k++) {
              s += a[order[k]!]!;
              scale = Math.max(scale, Math.abs(a[order[k]!]!));
            }
            expect(Math.abs(s), `${name} ${JSON.stringify(o)} group ${g}`).toBeLessThanOrEqual(
              1e-9 * Math.max(1, scale),
            );
          }
        }
      }),
      { numRuns: 80 },
    );
  });

  it("batch-whitened estimators have zero batch mean and unit unbiased variance (ε = 0)", () => {
    fc.assert(
      fc.property(batchArb, (b) => {
        const input = toInput(b);
        for (const [name, o] of [
          ["reinforce_pp_baseline", { epsilon: 0 }],
          ["gdpo", { batchEpsilon: 0 }],
        ] as const) {
          const a = [...run(name, input, o)];
          const m = a.reduce((s, x) => s + x, 0) / a.length;
          const v = a.reduce((s, x) => s + (x - m) ** 2, 0) / (a.length - 1);
          expect(Math.abs(m)).toBeLessThan(1e-9);
          if (a.some((x) => x !== 0)) expect(Math.abs(v - 1)).toBeLessThan(1e-9);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("affine invariance: each method's claimed transform leaves the advantages unchanged", () => {
    fc.assert(
      fc.property(
        batchArb,
        fc.double({ min: 0.1, max: 10, noNaN: true }),
        fc.double({ min: -10, max: 10, noNaN: true }),
        (b, scale, shift) => {
          const input = toInput(b);
          const aff = (xs: Float64Array) => xs.map((x) => scale * x + shift);
          const moved: AdvantageInput = {
            ...input,
            rewards: aff(input.rewards),
            components: { names: ["a", "b", "c"], scores: input.components!.scores.map(aff) },
          };
          // per-component transforms with different scales
          const perComp: AdvantageInput = {
            ...input,
            components: {
              names: ["a", "b", "c"],
              scores: input.components!.scores.map((s, k) => s.map((x) => (k + 1) * scale * x - k * shift)),
            },
          };
          const invariant: [string, Record<string, unknown>, AdvantageInput][] = [
            ["grpo", { epsilon: 0 }, moved], // r ↦ a r + b, a > 0
            ["grpo", { std: "population", epsilon: 0 }, moved],
            [
              "grpo",
              { baseline: "leave-one-out", stdOver: "others", epsilon: 0, epsilonWhere: "positive-std" },
              shifted(input, shift),
            ],
            ["reinforce_pp_baseline", { epsilon: 0 }, moved],
            ["stratified", { epsilon: 0 }, moved],
            ["rank", {}, { ...input, rewards: input.rewards.map((x) => Math.exp(x) + x ** 3) }], // any increasing map
            ["dr_grpo", {}, shifted(input, shift)],
            ["rloo", {}, shifted(input, shift)],
            ["opo", {}, shifted(input, shift)],
            ["opo", {}, { ...input, lengths: input.lengths!.map((l) => l * 3) }],
            ["gdpo", { epsilon: 0 }, perComp], // batch ε kept: a sum that is 0 up to rounding must not be blown up
            ["mo_grpo", { epsilon: 0 }, perComp],
            ["rdpo", {}, perComp],
            [
              "corr_grpo",
              {},
              {
                ...input,
                components: {
                  names: ["a", "b", "c"],
                  scores: input.components!.scores.map((s, k) => s.map((x) => x + k * shift)),
                },
              },
            ],
          ];
          for (const [name, o, other] of invariant) {
            const a = run(name, input, o);
            const c = run(name, other, o);
            for (let i = 0; i < a.length; i++)
              expect(near(a[i]!, c[i]!, 1e-7), `${name} ${JSON.stringify(o)} at ${i}: ${a[i]} vs ${c[i]}`).toBe(true);
          }
          // scale equivariance where claimed: Dr.GRPO, RLOO, GPG-free baselines scale with the rewards
          const dr = run("dr_grpo", input);
          const drs = run("dr_grpo", { ...input, rewards: input.rewards.map((x) => scale * x) });
          for (let i = 0; i < dr.length; i++) expect(near(scale * dr[i]!, drs[i]!, 1e-9)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("mo_grpo with one component keeps the reward's preference order", () => {
    fc.assert(
      fc.property(batchArb, (b) => {
        const input = toInput(b);
        const one = { ...input, components: { names: ["a"], scores: [input.rewards] } };
        const a = run("mo_grpo", one);
        const { order, offsets } = input.groups;
        for (let g = 0; g < input.groups.count; g++) {
          for (let x = offsets[g]!; x < offsets[g + 1]!; x++) {
            for (let y = offsets[g]!; y < offsets[g + 1]!; y++) {
              const i = order[x]!;
              const j = order[y]!;
              if (input.rewards[i]! > input.rewards[j]!) expect(a[i]!).toBeGreaterThan(a[j]!);
            }
          }
        }
      }),
      { numRuns: 60 },
    );
  });
});

function shifted(input: AdvantageInput, shift: number): AdvantageInput {
  return { ...input, rewards: input.rewards.map((x) => x + shift) };
}
