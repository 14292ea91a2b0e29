import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmp } from "../../test/helpers.js";
import { describe, expect, it } from "vitest";
import type { Summary } from "../diagnostics/summary.js";
import { parseSpec } from "../spec/load.js";
import type { CompiledSpec } from "../spec/types.js";
import { checkPartials, mergePartials } from "./merge.js";
import { partialSummaryText, readPartial, shardInfo } from "./partial.js";
import type { PartialFile } from "./partial.js";
import { scoreFile } from "./score-file.js";
import type { ScoreFileOptions } from "./score-file.js";
import { shardOf } from "./shard.js";
import type { InputFingerprint, RoutedTrace, RunTrace } from "./trace.js";

const SPEC = `name: t
components:
  - {name: a, type: exact}
  - {name: b, type: contains, value: "x", weight: 0.5}
`;

/** 12 groups of 1–4 rollouts in shuffled order, steps 0/5, labels, records without group, and 4 malformed lines. */
function input(dir: string): string {
  const lines: string[] = [];
  for (let g = 0; g < 12; g++)
    for (let k = 0; k < 1 + (g % 4); k++) {
      const ok = (g + k) % 3 !== 0;
      const r: Record<string, unknown> = {
        id: `g${g}-${k}`,
        prompt: `question ${g}`,
        completion: ok ? `yes${k % 2 ? " x" : ""}` : "no",
        reference: "yes",
        step: g < 6 ? 0 : 5,
        labels: { ok: g % 5 === 0 ? "maybe" : ok !== (g === 7) },
      };
      if (g % 4 !== 3) r.group = `group-${g}`; // else: the group is the prompt's hash
      lines.push(JSON.stringify(r));
    }
  // a fixed shuffle: groups interleave
  const shuffled = lines.map((l, i) => ({ l, k: (i * 7) % lines.length })).sort((a, b) => a.k - b.k);
  const out = shuffled.map((x) => x.l);
  out.splice(3, 0, "{oops");
  out.splice(9, 0, JSON.stringify({ id: "no-group", completion: "yes" }));
  out.splice(15, 0, "[1]");
  out.splice(20, 0, JSON.stringify({ group: "g", prompt: "p" })); // no completion
  const file = join(dir, "in.jsonl");
  writeFileSync(file, out.join("\n") + "\n");
  return file;
}

type Opts = Pick<ScoreFileOptions, "labelField" | "map">;

/** Scores shard i of n in-process and writes its partial summary, as `score --shard i/n --summary` does. */
async function scoreShard(
  spec: CompiledSpec,
  file: string,
  dir: string,
  index: number,
  n: number,
  o: Opts = {},
): Promise<string> {
  let got: { trace: RunTrace | RoutedTrace; input: InputFingerprint } | undefined;
  const s = await scoreFile(spec, {
    ...o,
    input: file,
    output: join(dir, `s${index}of${n}.jsonl`),
    concurrency: 1,
    shard: { index, count: n },
    onTrace: (trace, fp) => (got = { trace, input: fp! }),
  });
  const out = join(dir, `s${index}of${n}-${spec.hash}.json`);
  const info = shardInfo({
    index,
    count: n,
    spec: "t.yaml",
    specHash: spec.hash,
    input: file,
    fingerprint: got!.input,
    options: { map: o.map ?? {}, label: o.labelField ?? null, labelComponent: null, maxLineBytes: 256 * 1024 * 1024 },
  });
  writeFileSync(out, partialSummaryText(s, info, got!.trace));
  return out;
}

async function shards(spec: CompiledSpec, file: string, dir: string, n: number, o: Opts = {}): Promise<PartialFile[]> {
  const files: string[] = [];
  for (let i = 0; i < n; i++) files.push(await scoreShard(spec, file, dir, i, n, o));
  return files.map((f) => readPartial(f));
}

/** A summary as its JSON file has it, timings left out. */
function figures(s: Summary): unknown {
  return JSON.parse(
    JSON.stringify(s, (k, v: unknown) => (k === "elapsedSeconds" || k === "rolloutsPerSecond" ? undefined : v)),
  );
}

describe("merge: the shards' partial summaries give the unsharded summary", () => {
  const dir = tmp();
  const file = input(dir);
  const spec = parseSpec(SPEC, "t.yaml");

  it("for N = 1 … 5, with malformed lines, groups from prompts, steps, labels and a --map miss", async () => {
    const o: Opts = { labelField: "labels.ok", map: { metadata: "meta.none" } };
    const whole = figures(await scoreFile(spec, { ...o, input: file, output: join(dir, "all.jsonl"), concurrency: 1 }));
    expect(whole).toMatchObject({ count: 30, malformed: 4, label: { missingLabel: 6 } });
    expect((whole as Summary).hacking?.bySteps?.map((s) => s.step)).toEqual([0, 5]);
    expect((whole as Summary).warnings).toEqual(['--map metadata=meta.none: no input record has "meta.none"']);
    for (let n = 1; n <= 5; n++) {
      const parts = await shards(spec, file, dir, n, o);
      // shard 0 alone counts the malformed lines
      expect(parts.map((p) => (p.trace as RunTrace).malformed)).toEqual([4, ...new Array<number>(n - 1).fill(0)]);
      expect(figures(mergePartials([...parts].reverse(), spec)), `N=${n}`).toEqual(whole);
    }
  });

  it("puts whole groups in shards: each rollout in exactly one, the same shards when the lines are reordered", async () => {
    const place = async (f: string, d: string): Promise<Map<string, number>> => {
      const where = new Map<string, number>(); // rollout id → shard
      const groups = new Map<string, Set<number>>();
      for (let i = 0; i < 3; i++) {
        await scoreShard(spec, f, d, i, 3);
        for (const line of readFileSync(join(d, `s${i}of3.jsonl`), "utf8")
          .split("\n")
          .filter(Boolean)) {
          const { id, group } = JSON.parse(line) as { id: string; group: string };
          expect(where.has(id), `${id} in two shards`).toBe(false);
          where.set(id, i);
          groups.set(group, (groups.get(group) ?? new Set()).add(i));
        }
      }
      for (const [g, shards] of groups) expect(shards.size, `group ${g} split`).toBe(1);
      return where;
    };
    const here = await place(file, dir);
    expect(here.size).toBe(30);
    expect(new Set(here.values()).size).toBe(3); // no shard is empty here
    const dir2 = tmp();
    const reordered = join(dir2, "in.jsonl");
    writeFileSync(reordered, readFileSync(file, "utf8").split("\n").filter(Boolean).reverse().join("\n") + "\n");
    expect(await place(reordered, dir2)).toEqual(here);
  });

  it("writes the shard block and one traced rollout per line", () => {
    const text = readFileSync(join(dir, "s1of3-" + spec.hash + ".json"), "utf8");
    const p = JSON.parse(text) as { shard: Record<string, unknown>; partial: RunTrace; count: number };
    expect(p.shard).toMatchObject({ format: "rewardkit-partial-summary/1", index: 1, count: 3, spec_hash: spec.hash });
    expect(p.count).toBe(p.partial.rollouts.length);
    expect(p.partial.rollouts.every((r) => shardOf(r.group, 3) === 1)).toBe(true);
    expect(text.split("\n").filter((l) => l.startsWith('{"line":')).length).toBe(p.count);
  });
});

describe("merge refuses what is not the N shards of one run, naming the file", () => {
  const dir = tmp();
  const file = input(dir);
  const spec = parseSpec(SPEC, "t.yaml");

  it("a file that is not a partial summary, not JSON, of another format, or with a malformed field", async () => {
    const plain = join(dir, "plain.json");
    writeFileSync(plain, JSON.stringify(await scoreFile(spec, { input: file, output: join(dir, "p.jsonl") })));
    expect(() => readPartial(plain)).toThrow(`${plain}: not a partial summary (no "shard" and "partial" blocks)`);
    const notJson = join(dir, "x.json");
    writeFileSync(notJson, "{");
    expect(() => readPartial(notJson)).toThrow(`${notJson}: not JSON`);
    expect(() => readPartial(join(dir, "missing.json"))).toThrow(/missing\.json: ENOENT/);

    const good = await scoreShard(spec, file, dir, 0, 2);
    const data = JSON.parse(readFileSync(good, "utf8")) as { shard: { format: string }; partial: RunTrace };
    const edited = join(dir, "edited.json");
    writeFileSync(edited, JSON.stringify({ ...data, shard: { ...data.shard, format: "rewardkit-partial-summary/0" } }));
    expect(() => readPartial(edited)).toThrow(
      `${edited}: shard.format is "rewardkit-partial-summary/0", this rewardkit reads "rewardkit-partial-summary/1"`,
    );
    data.partial.rollouts[2]!.line = "7" as unknown as number;
    writeFileSync(edited, JSON.stringify(data));
    expect(() => readPartial(edited)).toThrow(
      `${edited}: not a valid partial summary: partial.rollouts[2].line: expected number, received string`,
    );
  });

  it("partials of different shard counts, specs, inputs or flags", async () => {
    const a = await shards(spec, file, dir, 2);
    const b3 = await shards(spec, file, dir, 3);
    expect(() => checkPartials([a[0]!, b3[1]!])).toThrow(
      `${b3[1]!.file}: shard.count is 3, ${a[0]!.file} has 2: partials of one run only (score every shard with the same --shard i/N)`,
    );
    const other = parseSpec(SPEC.replace("weight: 0.5", "weight: 0.25"), "t.yaml");
    const o = await shards(other, file, dir, 2);
    expect(() => checkPartials([a[0]!, o[1]!])).toThrow(
      `${o[1]!.file}: shard.spec_hash is "${other.hash}", ${a[0]!.file} has "${spec.hash}"`,
    );
    const dir2 = tmp();
    const file2 = join(dir2, "in.jsonl");
    writeFileSync(file2, readFileSync(file, "utf8").replace('"yes x"', '"yes  x"'));
    const i2 = await shards(spec, file2, dir2, 2);
    expect(() => checkPartials([a[0]!, i2[1]!])).toThrow(/: the input \(shard\.input_digest\) is "sha256:/);
    const l = await shards(spec, file, tmp(), 2, {
      labelField: "labels.ok",
    });
    expect(() => checkPartials([a[0]!, l[1]!])).toThrow(/shard\.options is .*"label":"labels\.ok".*--label/);
  });

  it("a shard given twice, or missing shards (all of them named)", async () => {
    const p = await shards(spec, file, dir, 4);
    expect(() => checkPartials([p[0]!, p[1]!, p[1]!, p[3]!])).toThrow(
      `${p[1]!.file} and ${p[1]!.file} are both shard 1/4`,
    );
    expect(() => checkPartials([p[3]!, p[0]!])).toThrow(
      `shards 1, 2 of 4 are missing (given: 0 ${p[0]!.file}, 3 ${p[3]!.file})`,
    );
    expect(() => checkPartials([p[0]!, p[1]!, p[3]!])).toThrow(/^shard 2 of 4 is missing/);
    expect(() => checkPartials([])).toThrow("merge: no partial summaries given");
  });

  it("a spec other than the one the shards were scored with", async () => {
    const p = await shards(spec, file, dir, 2);
    const other = parseSpec(SPEC.replace("weight: 0.5", "weight: 2"), "t.yaml");
    expect(() => mergePartials(p, other)).toThrow(
      `spec t has hash ${other.hash}, the partials were scored with ${spec.hash} (t.yaml): merge with the spec they were scored with`,
    );
  });

  it("shards that overlap (two partials scored the same line)", async () => {
    const p = await shards(spec, file, dir, 2);
    const twin: PartialFile = { ...p[1]!, trace: p[0]!.trace };
    expect(() => mergePartials([p[0]!, twin], spec)).toThrow(/both scored input line \d+: the shards overlap/);
  });

  it("advantages the whole batch does not reproduce (an estimator with batch statistics got past score)", async () => {
    const wide = parseSpec(`${SPEC}advantage: {estimator: reinforce_pp_baseline}\n`, "t.yaml");
    const p = await shards(wide, file, dir, 2);
    expect(() => mergePartials(p, wide)).toThrow(
      /the advantage written for input line \d+ \(.+\) differs from the whole batch's \(.+\): estimator reinforce_pp_baseline uses statistics of other groups/,
    );
  });
});
