// The test formats trainers' data brings, scored from their native shapes (fixture: a few DeepCoder records, see
// test/fixtures/deepcoder/SOURCE.md): LeetCode `functional` references as objects and as JSON strings, Codeforces
// [{"input","output"}] lists, CodeContests / TACO {"inputs","outputs"}, TACO call-based `fn_name`. The full sets
// (200 LeetCode references, 573 stdin sets) are in the acceptance check and `npm run e2e:code`.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ComponentResult } from "../src/core/types.js";
import { probeBwrap } from "../src/sandbox/local.js";
import { nativeReference } from "../src/verifiers/code/reference.js";
import { codeVerifier } from "../src/verifiers/code/index.js";
import { ROOT } from "./helpers.js";

const unavailable = await probeBwrap();
interface Fixture {
  leetcode: Array<{ solutions: string; tests: { functional: string } }>;
  codeforces: Array<{ index: number; tests: Array<{ input: string; output: string }> }>;
  code_contests: Array<{ tests: { inputs: string[]; outputs: string[] } }>;
}
const fx = JSON.parse(readFileSync(join(ROOT, "test/fixtures/deepcoder/deepcoder-code-tests.json"), "utf8")) as Fixture;
const verify = codeVerifier.create(codeVerifier.options.parse({ uidBase: 144_000 }));
const py = (code: string): string => "```python\n" + code + "\n```";
const score = async (code: string, reference: unknown): Promise<ComponentResult> =>
  verify({ completion: py(code), reference, rollout: { id: "x", group: "g", completion: "" } });

describe("native reference shapes", () => {
  it("map onto the three kinds", () => {
    expect(
      nativeReference({ functional: "def check(candidate):\n    assert candidate(1) == 2\n\n\ncheck(Solution().f)" })
        .value,
    ).toMatchObject({ kind: "assert", prelude: "leetcode" });
    expect(nativeReference([{ input: "1\n", output: "2\n" }]).value).toEqual({
      kind: "stdio",
      cases: [{ stdin: "1\n", stdout: "2\n" }],
    });
    expect(nativeReference('{"inputs": ["1"], "outputs": ["2"]}').value).toEqual({
      kind: "stdio",
      cases: [{ stdin: "1", stdout: "2" }],
    });
    expect(nativeReference({ inputs: [[1, 2]], outputs: [[3]], fn_name: "add" }).value).toEqual({
      kind: "call",
      entryPoint: "add",
      compare: "taco",
      cases: [{ input: [1, 2], output: [3] }],
    });
    expect(nativeReference({ inputs: [["a", "b"]], outputs: [["x", "y"]] }).value).toEqual({
      kind: "stdio",
      cases: [{ stdin: "a\nb", stdout: "x\ny" }],
    });
    expect(nativeReference("not json").error).toMatch(/not JSON/);
    expect(nativeReference({ inputs: ["1"], outputs: [] }).error).toMatch(/differ in length/);
  });
});

describe.skipIf(unavailable !== undefined)("native test formats, scored", () => {
  it("LeetCode functional: reference solutions score 1 as objects and as JSON strings; None-returning mutants 0", async () => {
    const mutant =
      "\n\nfor _n, _v in list(vars(Solution).items()):\n    if callable(_v) and not _n.startswith('__'):\n        setattr(Solution, _n, lambda self, *a, **k: None)\n";
    const runs = fx.leetcode.flatMap((e) => [
      score(e.solutions, e.tests),
      score(e.solutions, JSON.stringify(e.tests)),
      score(e.solutions + mutant, e.tests),
    ]);
    const r = await Promise.all(runs);
    expect(r.map((x) => x.score)).toEqual(fx.leetcode.flatMap(() => [1, 1, 0]));
    expect(r[0]!.details).toMatchObject({ kind: "assert", tests: 3 });
  });

  it("Codeforces [{input, output}] and CodeContests {inputs, outputs}: correct solutions 1, echo and empty programs 0 with status ok", async () => {
    const sol: Record<number, string> = {
      0: "t = int(input())\nfor _ in range(t):\n    x, y = map(int, input().split())\n    print(min(x, y), max(x, y))",
      9: "t = int(input())\nfor _ in range(t):\n    input()\n    print('YES' if input().count('U') % 2 else 'NO')",
    };
    const cc =
      "import sys\nd = sys.stdin.read().split()\nn, m = int(d[0]), int(d[1])\ns = d[2:2 + n]\nkey = lambda t: tuple(ord(c) if i % 2 == 0 else -ord(c) for i, c in enumerate(t))\nprint(' '.join(str(i + 1) for i in sorted(range(n), key=lambda i: key(s[i]))) + ' ')";
    const echo = "import sys\nsys.stdout.write(sys.stdin.read())";
    const sets = [...fx.codeforces.map((e) => e.tests as unknown), ...fx.code_contests.map((e) => e.tests as unknown)];
    const good = await Promise.all([
      ...fx.codeforces.filter((e) => sol[e.index]).map((e) => score(sol[e.index]!, e.tests)),
      score(cc, fx.code_contests[0]!.tests),
    ]);
    expect(good.map((x) => x.score)).toEqual([1, 1, 1]);
    const bad = await Promise.all(sets.flatMap((t) => [score(echo, t), score("pass", t)]));
    expect(bad.map((x) => [x.status, x.score])).toEqual(bad.map(() => ["ok", 0]));
  });

  it("TACO call-based fn_name tests: a returned tuple matches a list, a wrapped expected value matches", async () => {
    const r = await score("def f(a, b):\n    return (a + b, a * b)", {
      inputs: [
        [2, 3],
        [1, 1],
      ],
      outputs: [[[5, 6]], [2, 1]],
      fn_name: "f",
    });
    expect(r.score).toBe(1);
    expect(
      (await score("def f(a, b):\n    return a", { inputs: [[2, 3]], outputs: [[5, 6]], fn_name: "f" })).score,
    ).toBe(0);
  });
});
