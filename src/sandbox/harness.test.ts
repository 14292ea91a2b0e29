// The harness on its own (plain processes, no sandbox): value encodings, comparison, test splitting, statuses,
// and the judge/worker split. Containment is tested through the sandbox in test/code-sandbox.test.ts, attacks in
// test/code-hacks/.
import { spawnSync } from "node:child_process";
import { tmp } from "../../test/helpers.js";
import { describe, expect, it } from "vitest";
import { parseReport } from "./report.js";
import { judgeStart, taskPayload } from "./task.js";
import type { HarnessTask, Language, RunReport } from "./types.js";
import { DEFAULT_LIMITS } from "./types.js";

function report(
  language: Language,
  task: HarnessTask,
  testTimeoutMs = 1000,
  fault: Record<string, unknown> = {},
): RunReport {
  const cwd = tmp();
  const payload = JSON.parse(taskPayload(language, task, { ...DEFAULT_LIMITS, testTimeoutMs }, "NONCE")) as object;
  const judge = judgeStart(JSON.stringify({ ...payload, ...fault }));
  const [exe, ...args] = judge.argv;
  const p = spawnSync(exe!, args, {
    cwd,
    input: judge.stdin,
    encoding: "utf8",
    env: { PATH: "/usr/bin:/bin", PYTHONHASHSEED: "0" },
    timeout: 30_000,
  });
  return parseReport("NONCE", {
    stdout: p.stdout,
    stderr: p.stderr,
    timedOut: false,
    exitCode: p.status,
    signal: p.signal,
    wallMs: 0,
  });
}
const run = (language: Language, task: HarnessTask, testTimeoutMs = 1000): string[] =>
  report(language, task, testTimeoutMs).statuses;

describe("Python harness", () => {
  it("call/json: tagged tuples, sets, NaN, big ints, non-string dict keys; atol", () => {
    const program = "def f(x):\n    return x\ndef g(x):\n    return x + 1e-9\n";
    const cases = [
      { input: [{ $tuple: [1, 2] }], output: { $tuple: [1, 2] } },
      { input: [{ $tuple: [1, 2] }], output: [1, 2] },
      { input: [{ $set: [3, 1] }], output: { $set: [1, 3] } },
      { input: [{ $float: "nan" }], output: { $float: "nan" } },
      { input: [{ $int: "123456789012345678901234567890" }], output: { $int: "123456789012345678901234567890" } },
      { input: [{ $dict: [[1, "a"]] }], output: { $dict: [[1, "a"]] } },
    ];
    expect(run("python", { kind: "call", program, entryPoint: "f", cases })).toEqual([
      "pass",
      "fail",
      "pass",
      "pass",
      "pass",
      "pass",
    ]);
    const near = [{ input: [1.0], output: 1.0 }];
    expect(run("python", { kind: "call", program, entryPoint: "g", cases: near })).toEqual(["fail"]);
    expect(run("python", { kind: "call", program, entryPoint: "g", cases: near, atol: 1e-6 })).toEqual(["pass"]);
    const inf = [
      { input: [{ $float: "inf" }], output: { $float: "inf" } },
      { input: [{ $float: "inf" }], output: { $float: "-inf" } },
    ];
    expect(run("python", { kind: "call", program, entryPoint: "f", cases: inf, atol: 1e-6 })).toEqual(["pass", "fail"]);
    expect(
      run("javascript", { kind: "call", program: "const f = (x) => x;", entryPoint: "f", cases: inf, atol: 1e-6 }),
    ).toEqual(["pass", "fail"]);
  });

  it("call/python: literals as repr() writes them; Counter, nested containers, a namedtuple as its tuple", () => {
    const program =
      "from collections import Counter, namedtuple\nP = namedtuple('P', 'a b')\ndef f(s):\n    return Counter(s), (1.0, {2}), float('inf')\ndef g():\n    return P(1, [2, {3: (4,)}])\n";
    const cases = [
      { input: "['aab']", output: "(Counter({'a': 2, 'b': 1}), (1.0, {2}), inf)" },
      { input: "['ab']", output: "(Counter({'a': 2}), (1.0, {2}), inf)" },
    ];
    expect(run("python", { kind: "call", program, entryPoint: "f", cases, encoding: "python" })).toEqual([
      "pass",
      "fail",
    ]);
    expect(
      run("python", {
        kind: "call",
        program,
        entryPoint: "g",
        cases: [{ input: "[]", output: "(1, [2, {3: (4,)}])" }],
        encoding: "python",
      }),
    ).toEqual(["pass"]);
  });

  it("call/taco: tuples as lists, an expected one-element list matches its element", () => {
    const program = "def f(x):\n    return (x, x)\ndef g(x):\n    return x * 2\n";
    expect(
      run("python", {
        kind: "call",
        program,
        entryPoint: "f",
        compare: "taco",
        cases: [
          { input: [1], output: [1, 1] },
          { input: [1], output: [[1, 1]] },
          { input: [1], output: [1, 2] },
        ],
      }),
    ).toEqual(["pass", "pass", "fail"]);
    expect(
      run("python", {
        kind: "call",
        program,
        entryPoint: "g",
        compare: "taco",
        cases: [
          { input: [3], output: [6] },
          { input: [3], output: 6 },
        ],
      }),
    ).toEqual(["pass", "pass"]);
  });

  it("statuses: runtime_error, timeout, memory_limit, compile_error, missing entry point", () => {
    const program =
      "def f(x):\n    if x == 1: raise ValueError('no')\n    if x == 2:\n        while True: pass\n    if x == 3: return bytearray(1 << 40)\n    return x\n";
    const cases = [1, 2, 3, 4].map((x) => ({ input: [x], output: x }));
    expect(run("python", { kind: "call", program, entryPoint: "f", cases }, 300)).toEqual([
      "runtime_error",
      "timeout",
      "memory_limit",
      "pass",
    ]);
    expect(run("python", { kind: "call", program: "def f(:\n", entryPoint: "f", cases })).toEqual(
      Array(4).fill("compile_error"),
    );
    expect(run("python", { kind: "call", program: "x = 1\n", entryPoint: "f", cases })).toEqual(
      Array(4).fill("runtime_error"),
    );
  });

  it("a test the program hangs in C code, or whose process it ends, fails alone: the next tests run in a fresh process", () => {
    const program =
      "import os\ndef f(x):\n    if x == 1: return sum(range(10**12))\n    if x == 2: os._exit(0)\n    return x\n";
    const r = report(
      "python",
      { kind: "call", program, entryPoint: "f", cases: [1, 0, 2, 3].map((x) => ({ input: [x], output: x })) },
      300,
    );
    expect(r.statuses).toEqual(["timeout", "pass", "runtime_error", "pass"]);
    expect(r.messages.get(2)).toMatch(/exited \(exit 0\)/);
  });

  it("assert: each top-level statement of check holding an assert is one test", () => {
    const test =
      "def check(candidate):\n    assert candidate(1) == 2\n    k = 3\n    assert candidate(k) == 7, 'k'\n    for i in range(3):\n        assert candidate(i) == 2 * i\n    assert True\n";
    expect(run("python", { kind: "assert", program: "def f(x):\n    return 2 * x\n", entryPoint: "f", test })).toEqual([
      "pass",
      "fail",
      "pass",
      "pass",
    ]);
    const unsplittable = "def check(candidate):\n    if candidate(1) == 2:\n        return\n    assert False\n";
    expect(
      run("python", { kind: "assert", program: "def f(x):\n    return 2 * x\n", entryPoint: "f", test: unsplittable }),
    ).toEqual(["pass"]);
  });

  it("assert: helpers of the program, its classes and their methods, exceptions and in-place changes cross as proxies", () => {
    const program = [
      "def helper(x):",
      "    return x + 1",
      "def f(xs):",
      "    xs.append(len(xs))",
      "    if not xs[0]: raise ValueError('empty')",
      "    return helper(xs[0])",
      "class Counter2:",
      "    def __init__(self, start):",
      "        self.n = start",
      "    def bump(self):",
      "        self.n += 1",
      "        return self.n",
    ].join("\n");
    const test = [
      "def check(candidate):",
      "    xs = [1]",
      "    assert candidate(xs) == 2 and xs == [1, 1]",
      "    assert helper(4) == 5",
      "    c = Counter2(3)",
      "    assert c.bump() == 4 and c.bump() == 5 and c.n == 5",
      "    try:",
      "        candidate([0])",
      "        assert False",
      "    except ValueError as e:",
      "        assert 'empty' in str(e)",
    ].join("\n");
    expect(run("python", { kind: "assert", program, entryPoint: "f", test })).toEqual(["pass", "pass", "pass", "pass"]);
  });

  it("assert: LeetCode functional tests call check(Solution().method) themselves, with the prelude in both processes", () => {
    const prelude = "from typing import *\nfrom math import *\n";
    const program =
      "class Solution:\n    def add(self, nums: List[int], k: int) -> int:\n        return sum(nums) + k + int(floor(0.5))\n";
    const test =
      "def check(candidate):\n    assert candidate(nums = [1,2], k = 3) == 6\n    assert candidate(nums = [], k = 0) == 1\n\n\ncheck(Solution().add)";
    expect(run("python", { kind: "assert", program, test, prelude })).toEqual(["pass", "fail"]);
  });

  it("assert: a linked structure of plain objects comes back as data; objects with their own comparison do not", () => {
    const program =
      "class Node:\n    def __init__(self, v, nxt=None):\n        self.val, self.next = v, nxt\ndef f(n):\n    head = None\n    for v in range(n, 0, -1):\n        head = Node(v, head)\n    return head\n";
    const test =
      "def check(candidate):\n    h = candidate(3000)\n    out = []\n    while h:\n        out.append(h.val)\n        h = h.next\n    assert out == list(range(1, 3001))\n";
    expect(run("python", { kind: "assert", program, entryPoint: "f", test })).toEqual(["pass"]);
    const same = "class Same:\n    def __eq__(self, other):\n        return True\ndef f(n):\n    return Same()\n";
    const r = report("python", {
      kind: "assert",
      program: same,
      entryPoint: "f",
      test: "def check(candidate):\n    assert candidate(1) == 2\n",
    });
    expect(r.statuses).toEqual(["runtime_error"]);
    expect(r.messages.get(0)).toMatch(/no literal form/);
  });

  it("stdio: input(), sys.stdin, exit(0), trailing whitespace; a fresh process per case", () => {
    const program =
      "import sys\nn = int(input())\nrest = sys.stdin.read().split()\nprint(n * 2, '  ')\nprint(len(rest))\nif n == 9: sys.exit(0)\nif n == 8: sys.exit(3)\n";
    const cases = [
      { stdin: "3\na b\n", stdout: "6\n2\n\n" },
      { stdin: "9\n", stdout: "18\n0" },
      { stdin: "8\n", stdout: "16\n0" },
      { stdin: "1\n", stdout: "3\n0" },
    ];
    expect(run("python", { kind: "stdio", program, cases })).toEqual(["pass", "pass", "runtime_error", "fail"]);
    const state =
      "import os\np = 'rk-seen-%d' % os.getppid()\nprint(os.path.exists(p))\nopen(p, 'w').close()\nglobal_counter = 1\n";
    expect(
      run("python", {
        kind: "stdio",
        program: state,
        cases: [
          { stdin: "", stdout: "False" },
          { stdin: "", stdout: "True" },
        ],
      }),
    ).toEqual(["pass", "pass"]);
  });

  it("stdio comparison: lines (default), tokens, numeric tolerance", () => {
    const program = "print('1.0000001   2')\nprint('x')";
    const cases = [{ stdin: "", stdout: "1.0000001 2\nx" }];
    expect(run("python", { kind: "stdio", program, cases })).toEqual(["fail"]);
    expect(run("python", { kind: "stdio", program, cases, compare: "tokens" })).toEqual(["pass"]);
    expect(run("python", { kind: "stdio", program, cases: [{ stdin: "", stdout: "1   2\nx" }], atol: 1e-6 })).toEqual([
      "pass",
    ]);
    expect(run("python", { kind: "stdio", program, cases: [{ stdin: "", stdout: "1   2\nx" }] })).toEqual(["fail"]);
  });
});

describe("JavaScript harness", () => {
  it("call: const/function/module.exports entry points, NaN, Sets, tuples as arrays, timeout", () => {
    const program = "const f = (x) => x;\nfunction spin() { for (;;) {} }\nmodule.exports.g = (a, b) => a * b;\n";
    const cases = [
      { input: [{ $tuple: [1, 2] }], output: [1, 2] },
      { input: [{ $float: "nan" }], output: { $float: "nan" } },
      { input: [{ $set: [1, 2] }], output: { $set: [2, 1] } },
      { input: [{ a: 1 }], output: { a: 2 } },
      { input: [true], output: 1 },
    ];
    expect(run("javascript", { kind: "call", program, entryPoint: "f", cases })).toEqual([
      "pass",
      "pass",
      "pass",
      "fail",
      "fail",
    ]);
    expect(
      run("javascript", { kind: "call", program, entryPoint: "g", cases: [{ input: [2, 3], output: 6 }] }),
    ).toEqual(["pass"]);
    expect(
      run("javascript", { kind: "call", program, entryPoint: "spin", cases: [{ input: [], output: null }] }, 200),
    ).toEqual(["timeout"]);
    expect(
      run("javascript", { kind: "call", program: "function (", entryPoint: "f", cases: [{ input: [], output: null }] }),
    ).toEqual(["compile_error"]);
  });

  it("assert (check(candidate), console.assert, node:assert) and stdio", () => {
    const test = "function check(candidate) { if (candidate(2) !== 4) throw new Error('no'); }";
    expect(
      run("javascript", { kind: "assert", program: "function f(x) { return x * 2; }", entryPoint: "f", test }),
    ).toEqual(["pass"]);
    expect(
      run("javascript", { kind: "assert", program: "function f(x) { return x; }", entryPoint: "f", test }),
    ).toEqual(["runtime_error"]);
    const deep =
      "const assert = require('assert');\nfunction check(c) { assert.deepStrictEqual(c(2), [2, { a: new Set([1]) }]); }";
    expect(
      run("javascript", {
        kind: "assert",
        program: "function f(x) { return [x, { a: new Set([1]) }]; }",
        entryPoint: "f",
        test: deep,
      }),
    ).toEqual(["pass"]);
    expect(
      run("javascript", {
        kind: "assert",
        program: "function f(x) { return [x]; }",
        entryPoint: "f",
        test: "console.assert(f(3)[0] === 4)",
      }),
    ).toEqual(["fail"]);
    const program =
      "const s = require('fs').readFileSync('/dev/stdin', 'utf8');\nconsole.log(s.split(' ').map(Number).reduce((a, b) => a + b));";
    expect(
      run("javascript", {
        kind: "stdio",
        program,
        cases: [
          { stdin: "1 2", stdout: "3" },
          { stdin: "2 2", stdout: "5" },
        ],
      }),
    ).toEqual(["pass", "fail"]);
    expect(run("javascript", { kind: "stdio", program: "let x = (;", cases: [{ stdin: "", stdout: "" }] })).toEqual([
      "compile_error",
    ]);
  });
});

describe("start-up: a process that fails before the program was sent anywhere is the sandbox's failure", () => {
  const call: HarnessTask = {
    kind: "call",
    program: "def f(x):\n    return x + 1\n",
    entryPoint: "f",
    cases: [{ input: [1], output: 2 }],
  };
  const jsCall: HarnessTask = { ...call, program: "function f(x) { return x + 1; }" };
  const jsAssert: HarnessTask = {
    kind: "assert",
    program: "function f(x) { return x + 1; }",
    entryPoint: "f",
    test: "function check(c) { console.assert(c(1) === 2); }",
  };
  const stdio: HarnessTask = {
    kind: "stdio",
    program: "print(int(input()) + 1)",
    cases: [{ stdin: "1", stdout: "2" }],
  };
  // "AAAA": a seccomp filter of no instructions, which the kernel refuses (EINVAL) in the worker's hardening
  const badFilter = { bpf: "AAAA" };

  it("the worker's hardening fails (Python call, assert and stdio; JavaScript call): sandboxError, with why", () => {
    const assertTask: HarnessTask = {
      kind: "assert",
      program: call.program,
      entryPoint: "f",
      test: "def check(c):\n    assert c(1) == 2\n",
    };
    for (const [language, task] of [
      ["python", call],
      ["python", assertTask],
      ["python", stdio],
      ["javascript", jsCall],
    ] as const) {
      const r = report(language, task, 1000, badFilter);
      expect(r.statuses).toEqual([]);
      expect(r.sandboxError).toMatch(/^harness: the worker did not start \(exit 121\): OSError: .*PR_SET_SECCOMP/);
      expect(r.stderr).toMatch(/rewardkit harness: the worker could not start/);
    }
  });
  it("node cannot start (JavaScript worker, JavaScript test runner): sandboxError", () => {
    const noNode = { node: ["/nonexistent/node"] };
    const a = report("javascript", jsCall, 1000, noNode);
    expect(a.sandboxError).toMatch(/node \(the JavaScript worker\) did not start \(exit 121\): FileNotFoundError/);
    const b = report("javascript", jsAssert, 1000, { nodeCheck: ["/nonexistent/node"] });
    expect(b.sandboxError).toMatch(/node \(the JavaScript test runner\) did not start \(exit 121\): FileNotFoundError/);
    // node that starts and dies at once (here: an option it refuses) never arms either
    const c = report("javascript", jsCall, 1000, { node: ["/usr/bin/node", "--no-such-option"] });
    expect(c.sandboxError).toMatch(/node \(the JavaScript worker\) did not start \(exit 9\)/);
  });
  it("once the program has run, a fresh worker that cannot start is the program's failure, never a sandbox error", () => {
    // fresh workers (after the program ended its first one) run the task's harness source: break it
    const broken = { harness: "import os\nos._exit(3)" };
    const crash = {
      kind: "call" as const,
      program: "import os\ndef f(x):\n    if x == 0:\n        os._exit(0)\n    return x + 1\n",
      entryPoint: "f",
      cases: [
        { input: [1], output: 2 },
        { input: [0], output: 1 },
        { input: [2], output: 3 },
      ],
    };
    const r = report("python", crash, 1000, broken);
    expect(r.sandboxError).toBeUndefined();
    expect(r.statuses).toEqual(["pass", "runtime_error", "runtime_error"]);
    expect(r.messages.get(2)).toMatch(/did not start \(exit 3\)/);
    // the same break does not touch a run whose program never ends its process
    expect(report("python", call, 1000, broken).statuses).toEqual(["pass"]);
  });
});
