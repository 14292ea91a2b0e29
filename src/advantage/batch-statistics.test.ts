import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildGroupIndex } from "./groups.js";
import { estimators, getEstimator } from "./registry.js";
import type { AdvantageInput } from "./types.js";

/**
 * `batchStatistics` is what `rewardkit score --shard` trusts: an estimator that declares no batch statistics must give
 * every group the same advantages, bit for bit, whatever other groups share the batch.
 */

interface Batch {
  rewards: number[];
  groups: number[];
  comps: number[][];
  lengths: number[];
  strata: number[];
}

/** 2–6 groups of 1–6 rollouts, rewards on a small grid with some nulls (NaN), 2 components, lengths, strata. */
const batchArb = fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 2, maxLength: 6 }).chain((sizes) => {
  const n = sizes.reduce((a, b) => a + b, 0);
  const groups = sizes.flatMap((s, g) => Array<number>(s).fill(g));
  const val = fc.integer({ min: -3, max: 5 }).map((x) => (x === 5 ? NaN : x / 2));
  return fc.record({
    rewards: fc.array(val, { minLength: n, maxLength: n }),
    groups: fc.constant(groups),
    comps: fc.array(fc.array(val, { minLength: n, maxLength: n }), { minLength: 2, maxLength: 2 }),
    lengths: fc.array(fc.integer({ min: 1, max: 50 }), { minLength: n, maxLength: n }),
    strata: fc.array(fc.integer({ min: 0, max: 1 }), { minLength: n, maxLength: n }),
  });
});

/** The batch's rows whose group is kept, in order, with groups and strata renumbered densely (as a shard has them). */
function subset(b: Batch, keep: (group: number) => boolean): { input: AdvantageInput; rows: number[] } {
  const rows = b.groups.map((g, i) => (keep(g) ? i : -1)).filter((i) => i >= 0);
  const dense = (xs: number[]): Int32Array => {
    const ids = new Map<number, number>();
    return Int32Array.from(xs.map((x) => ids.get(x) ?? (ids.set(x, ids.size), ids.size - 1)));
  };
  const pick = (xs: number[]): Float64Array => Float64Array.from(rows.map((i) => xs[i]!));
  return {
    rows,
    input: {
      rewards: pick(b.rewards),
      groups: buildGroupIndex(dense(rows.map((i) => b.groups[i]!))),
      components: { names: ["a", "b"], scores: b.comps.map(pick) },
      lengths: pick(b.lengths),
      strata: dense(rows.map((i) => b.strata[i]!)),
    },
  };
}

/** Option sets per estimator: the defaults and the variants whose batch statistics differ. */
const VARIANTS: Record<string, Record<string, unknown>[]> = {
  grpo: [{}, { scale: "batch" }, { baseline: "leave-one-out", stdOver: "others" }, { filter: "zero_variance" }],
  dr_grpo: [{}, { scale: "batch" }],
  gdpo: [{}, { batchNorm: "none" }],
  mo_grpo: [{}, { batchNorm: "sqrt-var" }],
  corr_grpo: [{}, { batchNorm: "std-plus" }],
  rdpo: [{}],
};

describe("estimators' batchStatistics (what score --shard relies on)", () => {
  it("every built-in estimator declares it", () => {
    for (const e of estimators.values()) expect(typeof e.batchStatistics, e.name).toBe("function");
  });

  it("an estimator that declares none gives each group the same advantages, bit for bit, in any sub-batch of groups", () => {
    const cases = estimators.names().flatMap((name) => (VARIANTS[name] ?? [{}]).map((o) => ({ name, o })));
    const local = cases.filter(({ name, o }) => {
      const e = getEstimator(name)!;
      return e.batchStatistics!(e.options.parse(o)) === undefined;
    });
    // the group-local ones include the spec defaults most runs use
    expect(local.map((c) => c.name)).toEqual(expect.arrayContaining(["grpo", "rloo", "dr_grpo", "rank", "opo"]));
    fc.assert(
      fc.property(batchArb, fc.func(fc.boolean()), (b, keep) => {
        const all = subset(b, () => true);
        const part = subset(b, (g) => keep(g));
        for (const { name, o } of local) {
          const e = getEstimator(name)!;
          const opts = e.options.parse(o);
          const whole = e.compute(all.input, opts);
          const shard = e.compute(part.input, opts);
          part.rows.forEach((i, k) =>
            expect(
              Object.is(shard[k], whole[i]),
              `${name} ${JSON.stringify(o)} row ${i}: ${shard[k]} vs ${whole[i]}`,
            ).toBe(true),
          );
        }
      }),
      { numRuns: 150 },
    );
  });

  it("the batch-wide ones say why, and a sub-batch does change their advantages", () => {
    const b: Batch = {
      rewards: [1, 0, 0, 3, 2, 0.5],
      groups: [0, 0, 0, 1, 1, 1],
      comps: [
        [1, 0, 0, 1, 1, 0],
        [0, 1, 0.5, 0, 1, 0.5],
      ],
      lengths: [10, 20, 30, 5, 40, 8],
      strata: [0, 1, 0, 1, 0, 1],
    };
    const all = subset(b, () => true);
    const part = subset(b, (g) => g === 0);
    for (const [name, o] of [
      ["grpo", { scale: "batch" }],
      ["reinforce_pp", {}],
      ["reinforce_pp_baseline", {}],
      ["gpg", {}],
      ["gdpo", {}],
      ["mo_grpo", { batchNorm: "sqrt-var" }],
      ["rdpo", {}],
    ] as const) {
      const e = getEstimator(name)!;
      const opts = e.options.parse(o);
      expect(e.batchStatistics!(opts), name).toMatch(/whole batch/);
      const whole = e.compute(all.input, opts);
      const shard = e.compute(part.input, opts);
      expect(
        part.rows.some((i, k) => !Object.is(shard[k], whole[i])),
        `${name}: a sub-batch gives the same advantages`,
      ).toBe(true);
    }
  });
});
