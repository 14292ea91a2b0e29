// End to end: `rewardkit score` with examples/code.yaml on a subset of the bundled HumanEval, HumanEval+ and MBPP+
// rollouts (canonical solutions score 1) and of their mutants (caught by the tests). The full run is `npm run e2e:code`.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { probeBwrap } from "../src/sandbox/local.js";
import { cli, readJsonl, ROOT, tmp } from "./helpers.js";

const unavailable = await probeBwrap();
if (unavailable) console.log(`code e2e tests skipped: ${unavailable}`);

interface Row {
  id: string;
  reference: { kind: string; cases?: unknown[] };
  reward?: number | null;
  components?: Record<
    string,
    { score: number | null; status: string; reason?: string; details?: Record<string, unknown> }
  >;
}

const lines = (file: string): string[] =>
  readFileSync(join(ROOT, "examples/data", file), "utf8")
    .split("\n")
    .filter((l) => l.trim());

/** Every `step`-th line, `n` lines: a spread of tasks, not only the first ones. */
function sample(file: string, n: number): string[] {
  const all = lines(file);
  const step = Math.floor(all.length / n);
  return Array.from({ length: n }, (_, i) => all[i * step]!);
}

describe.skipIf(unavailable !== undefined)("code rewards on real data (subset; full: npm run e2e:code)", () => {
  const dir = tmp();

  it("canonical HumanEval, HumanEval+ and MBPP+ solutions score exactly 1", () => {
    const subset = [
      ...sample("humaneval.jsonl", 7),
      ...sample("humanevalplus.jsonl", 6),
      ...sample("mbppplus.jsonl", 7),
    ];
    writeFileSync(join(dir, "subset.jsonl"), subset.join("\n") + "\n");
    const r = cli(["score", join(dir, "subset.jsonl"), "--spec", "examples/code.yaml", "-o", join(dir, "out.jsonl")]);
    expect(r.code).toBe(0);
    const rows = readJsonl<Row>(join(dir, "out.jsonl"));
    expect(rows).toHaveLength(20);
    const notOne = rows.filter((x) => x.reward !== 1).map((x) => ({ id: x.id, c: x.components }));
    expect(notOne).toEqual([]);
    for (const x of rows) expect(x.components!.tests!.details!.tests).toBeGreaterThan(0);
  });

  it("mutated solutions are caught: scored 0, status ok, with per-test statuses", () => {
    const subset = sample("code-mutants.jsonl", 12);
    writeFileSync(join(dir, "mutants.jsonl"), subset.join("\n") + "\n");
    const r = cli([
      "score",
      join(dir, "mutants.jsonl"),
      "--spec",
      "examples/code.yaml",
      "-o",
      join(dir, "mutants.out.jsonl"),
    ]);
    expect(r.code).toBe(0);
    const rows = readJsonl<Row>(join(dir, "mutants.out.jsonl"));
    expect(rows.every((x) => x.components!.tests!.status === "ok")).toBe(true);
    const killed = rows.filter((x) => x.reward === 0).length;
    expect(killed / rows.length).toBeGreaterThanOrEqual(0.75);
    const failed = rows.find((x) => x.reward === 0)!.components!.tests!;
    expect(failed.reason).toBe("tests_failed");
    const failures = failed.details!.failures as Array<{ test: number; status: string; message: string }>;
    expect(failures.length).toBeGreaterThan(0);
    for (const f of failures) {
      expect(Number.isInteger(f.test)).toBe(true);
      expect(f.status).not.toBe("pass");
      expect(typeof f.message).toBe("string");
    }
  });

  it("JavaScript, stdio and partial credit through the CLI", () => {
    const rows = [
      {
        id: "js",
        group: "js",
        completion: "```js\nfunction add(a, b) { return a + b; }\n```",
        reference: {
          language: "javascript",
          kind: "call",
          entryPoint: "add",
          cases: [
            { input: [1, 2], output: 3 },
            { input: [{ $tuple: [1] }, [2]], output: "12" },
          ],
        },
      },
      {
        id: "stdio",
        group: "stdio",
        completion: "```python\nimport sys\nprint(sum(map(int, sys.stdin.read().split())))\n```",
        reference: {
          kind: "stdio",
          cases: [
            { stdin: "1 2\n", stdout: "3\n" },
            { stdin: "5 5", stdout: "10" },
          ],
        },
      },
      {
        id: "none",
        group: "none",
        completion: "I cannot write code.",
        reference: { kind: "stdio", cases: [{ stdin: "", stdout: "" }] },
      },
    ];
    writeFileSync(join(dir, "misc.jsonl"), rows.map((x) => JSON.stringify(x)).join("\n") + "\n");
    writeFileSync(join(dir, "fraction.yaml"), "components:\n  - name: tests\n    type: code\n    score: fraction\n");
    const r = cli([
      "score",
      join(dir, "misc.jsonl"),
      "--spec",
      join(dir, "fraction.yaml"),
      "-o",
      join(dir, "misc.out.jsonl"),
    ]);
    expect(r.code).toBe(0);
    const out = readJsonl<Row>(join(dir, "misc.out.jsonl"));
    expect(out.map((x) => x.components!.tests!.score)).toEqual([1, 1, null]);
    expect(out[2]!.components!.tests!.reason).toBe("no_answer");
  });
});
