/**
 * One road from scored rows to advantages: the score job's advantage step (`AdvantageBatch`, what `rewardkit score`,
 * `/v1/score` and `scoreBatch` run), `rewardkit advantages` (`advantagesFile`) and `POST /v1/advantages` give the
 * same advantages on the same rows, for every estimator. And an unscorable component under `onUnscorable: zero` is
 * exactly a scored 0, in every estimator, preset and path (the dangerous multi-component bug, huggingface/trl#6427).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { presetNames } from "../src/advantage/presets.js";
import { estimatorNames } from "../src/advantage/registry.js";
import { resolveEstimator } from "../src/advantage/resolve.js";
import { computeReward } from "../src/compose/reward.js";
import type { ComponentResult, Rollout } from "../src/core/types.js";
import { AdvantageBatch } from "../src/engine/advantage-batch.js";
import { advantagesFile } from "../src/engine/advantages-file.js";
import { componentsRecord } from "../src/engine/score-file.js";
import { planFor, planFromSpec, ScoredRows } from "../src/engine/scored-rows.js";
import { createApp } from "../src/server/app.js";
import { createContext } from "../src/server/context.js";
import { resolveOptions } from "../src/server/options.js";
import { createScorer } from "../src/engine/scorer.js";
import { parseSpec } from "../src/spec/load.js";
import type { CompiledSpec } from "../src/spec/types.js";
import { readJsonl, tmp } from "./helpers.js";

const SPEC = parseSpec(
  [
    "name: paths",
    "onUnscorable: zero",
    "components:",
    "  - {name: accuracy, type: contains, value: x}",
    "  - {name: format, type: contains, value: y, weight: 0.5}",
    "  - {name: overlong, type: contains, value: z}",
  ].join("\n"),
  "paths.yaml",
);
const KEY = "metadata.stratum";
const ok = (score: number): ComponentResult => ({ score, status: "ok" });
const unscorable: ComponentResult = { score: null, status: "unscorable", reason: "no_answer" };

/** Options an estimator needs to run on these rows (a stratum key). */
const needed = (est: string): Record<string, unknown> => (est === "stratified" ? { key: KEY } : {});

function withAdvantage(
  spec: CompiledSpec,
  est: string,
  preset: string | undefined,
  extra: Record<string, unknown> = {},
): CompiledSpec {
  const r = resolveEstimator(est, preset, { ...needed(est), ...extra });
  return { ...spec, advantage: { estimator: r.estimator, options: r.options } };
}

interface Scored {
  rollout: Rollout;
  results: ComponentResult[];
  reward: number | null;
}

function scoredOf(spec: CompiledSpec, rollouts: Rollout[], results: ComponentResult[][]): Scored[] {
  return rollouts.map((rollout, i) => ({ rollout, results: results[i]!, reward: computeReward(spec, results[i]!) }));
}

/** The three paths on the same scored rows. */
async function threePaths(
  spec: CompiledSpec,
  rows: Scored[],
  est: string,
  preset: string | undefined,
  extra: Record<string, unknown> = {},
): Promise<{ score: (number | null)[]; file: (number | null)[]; server: (number | null)[] }> {
  const s = withAdvantage(spec, est, preset, extra);
  const batch = new AdvantageBatch(s);
  for (const r of rows) batch.add(r.rollout, r.results, r.reward);
  const score = [...batch.advantages().advantages].map((x) => (Number.isNaN(x) ? null : x));
  // what `rewardkit score` writes, read back by `rewardkit advantages`
  const records = rows.map((r) => ({ ...r.rollout, reward: r.reward, components: componentsRecord(spec, r.results) }));
  const dir = tmp();
  writeFileSync(join(dir, "scored.jsonl"), records.map((x) => JSON.stringify(x)).join("\n") + "\n");
  const weights = Object.fromEntries(spec.components.map((c) => [c.name, c.weight]));
  const opts = {
    ...needed(est),
    ...extra,
    ...((s.advantage.estimator.needs ?? []).includes("components") ? { weights } : {}),
  };
  const plan = planFor(est, preset, opts, "zero");
  await advantagesFile(plan, { input: join(dir, "scored.jsonl"), output: join(dir, "out.jsonl") });
  const file = readJsonl<{ advantage: number | null }>(join(dir, "out.jsonl")).map((x) => x.advantage);
  const app = createApp(createContext(spec, createScorer(spec, { concurrency: 1 }), resolveOptions({})));
  const res = await app.request("/v1/advantages", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      rollouts: records,
      estimator: est,
      ...(preset ? { preset } : {}),
      options: { ...needed(est), ...extra },
    }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { results: { advantage: number | null; error?: unknown }[] };
  expect(body.results.filter((x) => x.error)).toEqual([]);
  return { score, file, server: body.results.map((x) => x.advantage) };
}

function same(a: (number | null)[], b: (number | null)[]): void {
  expect(b.length).toBe(a.length);
  a.forEach((x, i) => {
    if (x === null) expect(b[i], `row ${i}`).toBeNull();
    else expect(Math.abs(b[i]! - x), `row ${i}: ${b[i]} vs ${x}`).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(x)));
  });
}

/** Every (estimator, preset) pair rewardkit accepts. */
const PAIRS: [string, string | undefined][] = estimatorNames().flatMap((e) => [
  [e, undefined] as [string, string | undefined],
  ...presetNames(e).map((p) => [e, p] as [string, string]),
]);

describe("score, advantages and /v1/advantages agree on the same rows, for every estimator", () => {
  // 12 groups of 1–8, some unscorable components, lengths, a stratum key that some rows lack or hold as an object
  let seed = 12;
  const rand = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const rollouts: Rollout[] = [];
  const results: ComponentResult[][] = [];
  [1, 2, 2, 3, 4, 5, 6, 8, 8, 3, 4, 8].forEach((n, g) => {
    for (let i = 0; i < n; i++) {
      const flat = g === 3 || g === 8;
      const r: Rollout = {
        id: `p${g}-${i}`,
        group: `q${g}`,
        completion: "x".repeat(1 + Math.floor(rand() * 400)),
        completion_tokens: 20 + Math.floor(rand() * 3000),
      };
      if (!(g === 5 && i < 2)) r.metadata = { stratum: g === 6 && i === 0 ? { k: 1 } : rand() < 0.5 ? "easy" : "hard" };
      rollouts.push(r);
      results.push(
        flat
          ? [ok(1), ok(1), ok(0)]
          : [
              rand() < 0.15 ? unscorable : ok(rand() < 0.5 ? 1 : 0),
              ok([0, 0.5, 1][Math.floor(rand() * 3)]!),
              rand() < 0.1 ? unscorable : ok(-Math.floor(rand() * 5) / 4),
            ],
      );
    }
  });
  const rows = scoredOf(SPEC, rollouts, results);

  for (const [est, preset] of PAIRS) {
    it(`${est}${preset ? ` --preset ${preset}` : ""}`, async () => {
      const p = await threePaths(SPEC, rows, est, preset);
      same(p.score, p.file);
      same(p.score, p.server);
      expect(p.score.filter((x) => x !== null && x !== 0).length).toBeGreaterThan(5); // grpo_passk: one per group
    });
  }

  it("filter: zero_variance means the same everywhere: every row stays, the flat groups' rows get null", async () => {
    for (const est of ["grpo", "gdpo", "stratified"]) {
      const p = await threePaths(SPEC, rows, est, undefined, { filter: "zero_variance" });
      same(p.score, p.file);
      same(p.score, p.server);
      expect(p.score).toHaveLength(rows.length);
      const nulls = p.score.flatMap((x, i) => (x === null ? [rollouts[i]!.group] : []));
      expect(new Set(nulls)).toEqual(new Set(["q0", "q3", "q8"])); // the singleton and the two flat groups
    }
  });

  it("a missing stratum key is its own stratum, an object key is not '[object Object]'", () => {
    const plan = planFor("stratified", undefined, { key: KEY }, "zero");
    const mk = (stratum: unknown[]): Float64Array => {
      const sr = new ScoredRows(plan);
      stratum.forEach((s, i) => sr.add({ group: "g", reward: [1, 0, 1, 0, 1, 0][i]!, stratum: s }));
      return sr.compute().advantages;
    };
    // {a: 1} and {a: 2} are two strata; if both became "[object Object]" they would be one
    const objects = mk([{ a: 1 }, { a: 1 }, { a: 2 }, { a: 2 }, { a: 1 }, { a: 2 }]);
    const strings = mk(["x", "x", "y", "y", "x", "y"]);
    same([...objects], [...strings]);
    // a missing key is one more stratum, never the string "null"
    const missing = mk([undefined, undefined, "null", "null", undefined, "null"]);
    same([...missing], [...strings]);
    const sr = new ScoredRows(plan);
    sr.add({ group: "g", reward: 1 });
    sr.add({ group: "g", reward: 0, stratum: "a" });
    expect(sr.compute().warnings).toEqual([
      '1 rollouts lack the stratum key metadata.stratum: each group\'s such rollouts form one "missing" stratum',
    ]);
  });
});

describe("R1: an unscorable component under onUnscorable: zero is a scored 0, in every estimator, preset and path", () => {
  const spec = parseSpec(
    [
      "name: r1",
      "onUnscorable: zero",
      "components:",
      "  - {name: accuracy, type: contains, value: x}",
      "  - {name: overlong, type: contains, value: y}",
    ].join("\n"),
    "r1.yaml",
  );
  const A: Rollout = {
    id: "A",
    group: "g",
    completion: "I do not know.",
    completion_tokens: 5,
    metadata: { stratum: "s" },
  };
  const B: Rollout = {
    id: "B",
    group: "g",
    completion: "So the answer is \\boxed{42}.",
    completion_tokens: 3584,
    metadata: { stratum: "s" },
  };
  const r1 = scoredOf(
    spec,
    [A, B],
    [
      [unscorable, ok(0)],
      [ok(1), ok(-0.5)],
    ],
  );
  const twin = scoredOf(
    spec,
    [A, B],
    [
      [ok(0), ok(0)],
      [ok(1), ok(-0.5)],
    ],
  );

  it("the fixture: A's reward is 0 both ways, B's 0.5", () => {
    expect(r1.map((r) => r.reward)).toEqual([0, 0.5]);
    expect(twin.map((r) => r.reward)).toEqual([0, 0.5]);
  });
  for (const [est, preset] of PAIRS) {
    it(`${est}${preset ? ` --preset ${preset}` : ""}: A gets its zero twin's advantage and is never above B`, async () => {
      const a = await threePaths(spec, r1, est, preset);
      const z = await threePaths(spec, twin, est, preset);
      for (const path of ["score", "file", "server"] as const) {
        expect(a[path]).toEqual(z[path]); // exactly: (null) and (0) are one outcome under `zero`
        expect(a[path][0]).not.toBeNull();
        expect(a[path][0]!).toBeLessThanOrEqual(a[path][1]! + 1e-12);
      }
    });
  }
});

describe("property: under zero, an unscorable component never lifts a rollout above a sibling better on every component", () => {
  // Monotone estimators: each component's map is increasing and the weights are positive, so a rollout that is
  // at least as good on every component (its unscorable ones counted as 0) gets at least the advantage. Excluded,
  // with the reason: leave-one-out with the others' std (NeMo: each rollout has its own σ), stratified (a
  // stratum's own normalization), rdpo (ZCA whitening mixes components) — for them only the equivalence holds.
  const NOT_MONOTONE = new Set(["grpo/nemo", "gdpo/nemo", "stratified", "rdpo"]);
  const plans = PAIRS.map(([e, p]) => ({ name: p ? `${e}/${p}` : e, plan: planFor(e, p, {}, "zero") }));
  const cell = fc.oneof(fc.constant(null), fc.constantFrom(0, 0.25, 0.5, 1));
  const row = fc.tuple(fc.integer({ min: 0, max: 3 }), cell, cell, cell);

  it("equivalence with the zero twin (every estimator) and dominance (monotone ones)", () => {
    fc.assert(
      fc.property(fc.array(row, { minLength: 2, maxLength: 24 }), (batch) => {
        for (const { name, plan } of plans) {
          const run = (nullsAsZero: boolean): Float64Array => {
            const sr = new ScoredRows(plan, ["a", "b", "c"]);
            for (const [g, ...c] of batch) {
              const vals = c.map((v) => (v === null && nullsAsZero ? 0 : v));
              sr.add({
                group: `g${g}`,
                reward: vals.reduce<number>((s, v) => s + (v ?? 0), 0),
                components: vals,
                length: 10,
              });
            }
            return sr.compute().advantages;
          };
          const adv = run(false);
          const twin = run(true);
          adv.forEach((x, i) => expect(x, name).toBe(twin[i]));
          if (NOT_MONOTONE.has(name) || NOT_MONOTONE.has(name.split("/")[0]!)) continue;
          for (let i = 0; i < batch.length; i++) {
            for (let j = 0; j < batch.length; j++) {
              if (batch[i]![0] !== batch[j]![0]) continue;
              const [, ...ci] = batch[i]!;
              const [, ...cj] = batch[j]!;
              if (ci.every((v, k) => (v ?? 0) >= (cj[k] ?? 0)))
                expect(adv[i]!, `${name}: rollout ${i} dominates ${j}`).toBeGreaterThanOrEqual(
                  adv[j]! - 1e-9 * Math.max(1, Math.abs(adv[j]!)),
                );
            }
          }
        }
      }),
      { numRuns: 60, seed: 12 },
    );
  });

  it("the spec's plan uses the spec's counting components and onUnscorable", () => {
    const p = planFromSpec(withAdvantage(SPEC, "gdpo", "verl"));
    expect(p.options.components).toEqual(["accuracy", "format", "overlong"]);
    expect(p.options.weights).toEqual({ accuracy: 1, format: 0.5, overlong: 1 });
    expect(p.onUnscorable).toBe("zero");
  });
});
