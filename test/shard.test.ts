import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseShard } from "../src/cli/options.js";
import { probeBwrap } from "../src/sandbox/local.js";
import { cli, cliAsync, ROOT, tmp } from "./helpers.js";

/**
 * Offline sharding end to end: `score --shard i/N` for every i, `merge`, and the same run unsharded. The merged
 * summary must equal the unsharded one in every field but the timings, and the shards' scored rows must be the
 * unsharded run's rows for their groups, byte for byte, each exactly once.
 */

const noBwrap = await probeBwrap();

/** Timing fields (the brief's list: a key path containing any of these words) are left out of the comparison. */
const TIMING = ["second", "ms", "rate", "time", "elapsed", "persec"];

/** Every number of a summary by key path, timings left out. */
function numbers(o: unknown, path = "", out = new Map<string, number>()): Map<string, number> {
  if (Array.isArray(o)) o.forEach((v, i) => numbers(v, `${path}[${i}]`, out));
  else if (o !== null && typeof o === "object") for (const [k, v] of Object.entries(o)) numbers(v, `${path}.${k}`, out);
  else if (typeof o === "number" && !TIMING.some((t) => path.toLowerCase().includes(t))) out.set(path, o);
  return out;
}

/** The summary without its run times (everything else must match exactly, strings included). */
function withoutTimes(o: unknown): unknown {
  return JSON.parse(
    JSON.stringify(o, (k, v: unknown) => (k === "elapsedSeconds" || k === "rolloutsPerSecond" ? undefined : v)),
  );
}

/**
 * examples/math.yaml and examples/routing.yaml with the math verifier's deadline raised from 5 s to 120 s: on a
 * starved machine (many test files at once) a slow answer can time out in one run and not in the other, a different
 * verdict that has nothing to do with sharding. Everything else is the examples' own.
 */
const specs = (() => {
  const dir = tmp();
  const math = readFileSync(join(ROOT, "examples/math.yaml"), "utf8");
  const slow = math.replace("    type: math ", "    timeoutMs: 120000\n    type: math ");
  expect(slow).not.toBe(math);
  writeFileSync(join(dir, "math.yaml"), slow);
  const routing = readFileSync(join(ROOT, "examples/routing.yaml"), "utf8");
  const routed = routing.replace("  code: code.yaml", `  code: ${join(ROOT, "examples/code.yaml")}`);
  expect(routed).not.toBe(routing);
  writeFileSync(join(dir, "routing.yaml"), routed);
  return { math: join(dir, "math.yaml"), routing: join(dir, "routing.yaml") };
})();

/** A scored line without the sandbox's wall time (a measurement, different on every run). */
const untimed = (line: string): string => line.replace(/,"wallMs":\d+(\.\d+)?/g, "");

/** The unsharded run of an input and spec (once per file: the math baseline serves N=4 and N=3). */
const baselines = new Map<string, Promise<{ dir: string; code: number; stderr: string }>>();
function unsharded(input: string, spec: string, extra: string[]) {
  const key = JSON.stringify([input, spec, extra]);
  let b = baselines.get(key);
  if (!b) {
    const dir = tmp();
    b = cliAsync(["score", input, "--spec", spec, "-o", join(dir, "all.jsonl"), "--summary", join(dir, "all.json"), "-q", ...extra]).then((r) => ({ dir, ...r })); // prettier-ignore
    baselines.set(key, b);
  }
  return b;
}

async function shardAndMerge(input: string, spec: string, n: number, extra: string[] = []) {
  const dir = tmp();
  const shard = (i: number) =>
    cliAsync(["score", input, "--spec", spec, "--shard", `${i}/${n}`, "-o", join(dir, `s${i}.jsonl`), "--summary", join(dir, `s${i}.json`), "-q", ...extra]); // prettier-ignore
  const [whole, ...shards] = await Promise.all([
    unsharded(input, spec, extra),
    ...Array.from({ length: n }, (_, i) => shard(i)),
  ]);
  expect(whole.code, whole.stderr).toBe(0);
  for (const s of shards) expect(s.code, s.stderr).toBe(0);
  // the partials in any order
  const files = Array.from({ length: n }, (_, i) => join(dir, `s${n - 1 - i}.json`));
  const merged = cli(["merge", ...files, "-o", join(dir, "merged.json"), "-q"]);
  expect(merged.code, merged.stderr).toBe(0);
  const lines = (f: string) => readFileSync(f, "utf8").split("\n").filter(Boolean);
  return {
    dir,
    all: JSON.parse(readFileSync(join(whole.dir, "all.json"), "utf8")) as Record<string, unknown>,
    merged: JSON.parse(readFileSync(join(dir, "merged.json"), "utf8")) as Record<string, unknown>,
    allRows: lines(join(whole.dir, "all.jsonl")),
    shardRows: Array.from({ length: n }, (_, i) => lines(join(dir, `s${i}.jsonl`))),
    partial: JSON.parse(readFileSync(join(dir, "s0.json"), "utf8")) as Record<string, unknown>,
  };
}

/** The merged summary is the unsharded one: every number (relative 1e-9) and, stronger, every field but timings. */
function expectSameSummary(all: unknown, merged: unknown): void {
  const a = numbers(all);
  const m = numbers(merged);
  expect(a.size).toBeGreaterThan(50);
  for (const [k, v] of a) {
    expect(m.has(k), `${k} missing from the merged summary`).toBe(true);
    expect(Math.abs(v - m.get(k)!), `${k}: ${v} vs ${m.get(k)}`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(v)));
  }
  expect(withoutTimes(merged)).toEqual(withoutTimes(all));
}

/** Each shard's rows are the unsharded rows of its rollouts (same bytes, input order); together, each row once. */
function expectSameRows(allRows: string[], shardRows: string[][], clean = (l: string) => l): void {
  const idOf = (l: string) => (JSON.parse(l) as { id: string }).id;
  const position = new Map(allRows.map((l, i) => [idOf(l), i]));
  const seen = new Set<string>();
  for (const rows of shardRows) {
    let last = -1;
    for (const row of rows) {
      const id = idOf(row);
      const i = position.get(id);
      expect(i, `${id}: not in the unsharded output`).toBeDefined();
      expect(clean(row)).toBe(clean(allRows[i!]!));
      expect(i!, `${id}: out of input order`).toBeGreaterThan(last);
      last = i!;
      expect(seen.has(id), `${id} in two shards`).toBe(false);
      seen.add(id);
    }
  }
  expect(seen.size).toBe(allRows.length);
}

describe("score --shard i/N and merge on the 800 bundled math rollouts", () => {
  for (const n of [4, 3]) {
    it(`N=${n}: the merged summary is the unsharded summary, and the shards' rows are its rows`, async () => {
      const r = await shardAndMerge("examples/data/math-rollouts.jsonl", specs.math, n, ["--label", "labels.peer_correct"]); // prettier-ignore
      expectSameSummary(r.all, r.merged);
      expect(r.merged).toMatchObject({ count: 800, groups: { count: 100 }, label: { n: 800 } });
      // 9 false positives, the first 5 in input order kept as examples: no single shard has those 5
      const label = r.merged.label as { falsePositives: number; examples: { falsePositives: { id: string }[] } };
      expect(label.falsePositives).toBe(9);
      expect(label.examples.falsePositives).toHaveLength(5);
      expectSameRows(r.allRows, r.shardRows);
      expect(r.shardRows.map((rows) => rows.length).reduce((a, b) => a + b, 0)).toBe(800);
      // whole groups: a group's 8 rollouts are all in one shard
      for (const rows of r.shardRows) expect(rows.length % 8).toBe(0);
      expect(r.partial.shard).toMatchObject({
        index: 0,
        count: n,
        spec: specs.math,
        spec_hash: (r.all.spec as { hash: string }).hash,
        input: "examples/data/math-rollouts.jsonl",
        input_lines: 800,
      });
      expect(r.merged).not.toHaveProperty("shard");
      expect(r.merged).not.toHaveProperty("partial");
      if (n === 3) {
        // merge names the missing shard (its other refusals: src/engine/merge.test.ts)
        const s1 = join(r.dir, "s1.json");
        const missing = cli(["merge", s1, join(r.dir, "s2.json")]);
        expect(missing.code).toBe(1);
        expect(missing.stderr).toBe(
          `rewardkit: shard 0 of 3 is missing (given: 1 ${s1}, 2 ${join(r.dir, "s2.json")})\n`,
        );
      }
    });
  }
});

describe.skipIf(noBwrap)("score --shard and merge on the routed mixed batch (examples/routing.yaml)", () => {
  it("N=4: the routed summary (routes.<key> included) and the rows", async () => {
    const r = await shardAndMerge("examples/data/mixed-rollouts.jsonl", specs.routing, 4, ["--concurrency", "1"]); // prettier-ignore
    expectSameSummary(r.all, r.merged);
    expect(Object.keys(r.merged.routes as object)).toEqual(["math", "code", "json", "ifeval", "tool", "default"]);
    expect(r.merged.count).toBe(38);
    expectSameRows(r.allRows, r.shardRows, untimed);
  });
});

describe("usage errors", () => {
  it("--shard that is not i/N with 0 ≤ i < N names the flag (and an empty index the variable that should hold it)", () => {
    for (const bad of ["4/4", "1", "-1/4", "a/b", "1/0", "1.5/4"])
      expect(() => parseShard(bad), bad).toThrow(`--shard: expected i/N with 0 ≤ i < N, e.g. 0/4; got "${bad}"`);
    expect(() => parseShard("/4")).toThrow("is the variable that holds it, e.g. $JOB_COMPLETION_INDEX, set?");
    expect(parseShard("3/4")).toEqual({ index: 3, count: 4 });
    expect(parseShard("0/1")).toEqual({ index: 0, count: 1 });
    const r = cli([
      "score",
      "examples/data/process-rollouts.jsonl",
      "--spec",
      "examples/process.yaml",
      "--shard",
      "4/4",
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('rewardkit: --shard: expected i/N with 0 ≤ i < N, e.g. 0/4; got "4/4"\n');
  });

  it("--shard with an estimator that has batch statistics, and --state with a performance schedule", () => {
    const dir = tmp();
    writeFileSync(
      join(dir, "wide.yaml"),
      "components: [{name: a, type: exact}]\nadvantage: {estimator: reinforce_pp_baseline}\n",
    );
    const input = "examples/data/process-rollouts.jsonl";
    const wide = cli(["score", input, "--spec", join(dir, "wide.yaml"), "--shard", "0/2"]);
    expect(wide.code).toBe(1);
    expect(wide.stderr).toContain(
      "rewardkit: --shard: advantage estimator reinforce_pp_baseline: r − group mean is whitened over the whole batch",
    );
    writeFileSync(
      join(dir, "perf.yaml"),
      "components:\n  - name: a\n    type: exact\n    passThreshold: {schedule: performance, from: 0.25, to: 1, increment: 0.25, window: 4, passRate: 0.75}\n",
    );
    const state = cli(["score", input, "--spec", join(dir, "perf.yaml"), "--shard", "0/2", "--state", join(dir, "s.json")]); // prettier-ignore
    expect(state.code).toBe(1);
    expect(state.stderr).toContain("rewardkit: --state cannot be used with --shard: the spec's performance schedules");
  });
});
