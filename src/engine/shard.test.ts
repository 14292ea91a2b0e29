import { describe, expect, it } from "vitest";
import { parseAnySpec } from "../spec/routes.js";
import { parseSpec } from "../spec/load.js";
import { InputDigest, MALFORMED_SHARD, ownsGroup, ownsMalformed, shardOf, shardRefusal } from "./shard.js";

describe("shardOf: FNV-1a of the group id, modulo the shard count", () => {
  it("is FNV-1a 32-bit over the UTF-8 bytes (the published test vectors; é is two bytes)", () => {
    const full = 2 ** 32; // modulo 2^32: the hash itself
    expect(shardOf("", full)).toBe(0x811c9dc5);
    expect(shardOf("a", full)).toBe(0xe40c292c);
    expect(shardOf("foobar", full)).toBe(0xbf9cf968);
    expect(shardOf("é", full)).toBe(0x1e9de8c1);
  });

  it("gives the values the docs' Python one-liner gives (stable across runs and machines)", () => {
    expect(shardOf("math-0", 4)).toBe(2); // 0x5e828302 % 4
    expect(shardOf("math-0", 3)).toBe(0);
    expect(shardOf("HumanEval/0", 4)).toBe(3);
  });

  it("puts every group in exactly one shard, for any N, and spreads 100 groups over every shard", () => {
    const groups = Array.from({ length: 100 }, (_, i) => `math-${i}`);
    for (let n = 1; n <= 8; n++) {
      const sizes = new Array<number>(n).fill(0);
      for (const g of groups) {
        const owners = [...Array(n).keys()].filter((i) => ownsGroup({ index: i, count: n }, g));
        expect(owners, `${g} of ${n}`).toEqual([shardOf(g, n)]);
        sizes[owners[0]!]!++;
      }
      for (const s of sizes) expect(s, `N=${n}: ${sizes.join(" ")}`).toBeGreaterThan(100 / n / 2);
    }
  });

  it("without a shard every group and every malformed line is the run's; with one, malformed lines are shard 0's", () => {
    expect(ownsGroup(undefined, "x")).toBe(true);
    expect(ownsMalformed(undefined)).toBe(true);
    expect(MALFORMED_SHARD).toBe(0);
    expect([0, 1, 2].map((index) => ownsMalformed({ index, count: 3 }))).toEqual([true, false, false]);
  });
});

describe("shardRefusal: specs that shards cannot reproduce exactly", () => {
  const components = "components:\n  - {name: a, type: exact}\n";

  it("accepts a group-local estimator (the default grpo, rloo, grpo with a group std)", () => {
    expect(shardRefusal(parseSpec(components, "t.yaml"))).toBeUndefined();
    expect(shardRefusal(parseSpec(`${components}advantage: {estimator: rloo}\n`, "t.yaml"))).toBeUndefined();
  });

  it("refuses an estimator with batch statistics, saying which and why", () => {
    expect(shardRefusal(parseSpec(`${components}advantage: {estimator: reinforce_pp_baseline}\n`, "t.yaml"))).toMatch(
      /^advantage estimator reinforce_pp_baseline: r − group mean is whitened over the whole batch, so a shard's advantages would differ/,
    );
    expect(shardRefusal(parseSpec(`${components}advantage: {estimator: grpo, scale: batch}\n`, "t.yaml"))).toMatch(
      /grpo: scale: batch divides by the std of the whole batch/,
    );
  });

  it("refuses a performance schedule (it learns from every group's results as the run goes)", () => {
    const spec = parseSpec(
      "components:\n  - name: a\n    type: exact\n    passThreshold: {schedule: performance, from: 0.25, to: 1, increment: 0.25, window: 4, passRate: 0.75}\n",
      "t.yaml",
    );
    expect(shardRefusal(spec)).toMatch(/^components\.a\.passThreshold has a performance schedule/);
  });

  it("looks into every route of a routed spec, and at its own batch-wide estimator", () => {
    const routes = `routes:\n  by: kind\n  x:\n    ${components.replace("\n  ", "\n      ")}`;
    expect(shardRefusal(parseAnySpec(routes, "r.yaml"))).toBeUndefined();
    expect(shardRefusal(parseAnySpec(`${routes}    advantage: {estimator: gpg}\n`, "r.yaml"))).toMatch(
      /^route x: advantage estimator gpg: α counts the non-zero rewards of the whole batch/,
    );
    expect(shardRefusal(parseAnySpec(`advantage: {estimator: reinforce_pp}\n${routes}`, "r.yaml"))).toMatch(
      /^the routed spec's advantage estimator reinforce_pp: the rewards are whitened over the whole batch/,
    );
  });
});

describe("InputDigest", () => {
  const digest = (lines: [number, string][]): string => {
    const d = new InputDigest();
    for (const [n, t] of lines) d.update(n, t);
    return d.digest();
  };

  it("is the same for the same lines and differs when a line, its number or the order differs", () => {
    const a = digest([
      [1, "{}"],
      [2, '{"a":1}'],
    ]);
    expect(a).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(
      digest([
        [1, "{}"],
        [2, '{"a":1}'],
      ]),
    ).toBe(a);
    expect(
      digest([
        [1, "{}"],
        [2, '{"a":2}'],
      ]),
    ).not.toBe(a);
    expect(
      digest([
        [1, "{}"],
        [3, '{"a":1}'],
      ]),
    ).not.toBe(a);
    expect(
      digest([
        [1, '{"a":1}'],
        [2, "{}"],
      ]),
    ).not.toBe(a);
  });
});
