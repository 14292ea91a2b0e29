// The harnesses on their own (plain interpreter, trusted test programs): value encodings, comparison, test
// splitting and statuses. Containment is tested through the sandbox in test/code-sandbox.test.ts.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JAVASCRIPT_HARNESS } from "./harness/javascript.js";
import { PYTHON_HARNESS } from "./harness/python.js";
import { parseReport } from "./report.js";
import type { HarnessTask, Language } from "./types.js";

function run(language: Language, task: HarnessTask, testTimeoutMs = 1000): string[] {
  const dir = mkdtempSync(join(tmpdir(), "rewardkit-harness-"));
  const harness = join(dir, language === "python" ? "harness.py" : "harness.mjs");
  writeFileSync(harness, language === "python" ? PYTHON_HARNESS : JAVASCRIPT_HARNESS);
  writeFileSync(join(dir, "task.json"), JSON.stringify({ ...task, nonce: "NONCE", testTimeoutMs }));
  const exe = language === "python" ? "/usr/bin/python3" : process.execPath;
  const p = spawnSync(exe, [harness, join(dir, "task.json")], { cwd: dir, encoding: "utf8", env: { PATH: "/usr/bin:/bin", PYTHONHASHSEED: "0" }, timeout: 20_000 });
  return parseReport("NONCE", { stdout: p.stdout, stderr: p.stderr, timedOut: false, exitCode: p.status, signal: p.signal, wallMs: 0 }).statuses;
}

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
    expect(run("python", { kind: "call", program, entryPoint: "f", cases })).toEqual(["pass", "fail", "pass", "pass", "pass", "pass"]);
    const near = [{ input: [1.0], output: 1.0 }];
    expect(run("python", { kind: "call", program, entryPoint: "g", cases: near })).toEqual(["fail"]);
    expect(run("python", { kind: "call", program, entryPoint: "g", cases: near, atol: 1e-6 })).toEqual(["pass"]);
    const inf = [{ input: [{ $float: "inf" }], output: { $float: "inf" } }, { input: [{ $float: "inf" }], output: { $float: "-inf" } }];
    expect(run("python", { kind: "call", program, entryPoint: "f", cases: inf, atol: 1e-6 })).toEqual(["pass", "fail"]);
    expect(run("javascript", { kind: "call", program: "const f = (x) => x;", entryPoint: "f", cases: inf, atol: 1e-6 })).toEqual(["pass", "fail"]);
  });

  it("call/python: literals as repr() writes them", () => {
    const program = "from collections import Counter\ndef f(s):\n    return Counter(s), (1.0, {2}), float('inf')\n";
    const cases = [
      { input: "['aab']", output: "(Counter({'a': 2, 'b': 1}), (1.0, {2}), inf)" },
      { input: "['ab']", output: "(Counter({'a': 2}), (1.0, {2}), inf)" },
    ];
    expect(run("python", { kind: "call", program, entryPoint: "f", cases, encoding: "python" })).toEqual(["pass", "fail"]);
  });

  it("statuses: runtime_error, timeout, memory_limit, compile_error, missing entry point", () => {
    const program = "def f(x):\n    if x == 1: raise ValueError('no')\n    if x == 2:\n        while True: pass\n    if x == 3: return bytearray(1 << 40)\n    return x\n";
    const cases = [1, 2, 3, 4].map((x) => ({ input: [x], output: x }));
    expect(run("python", { kind: "call", program, entryPoint: "f", cases }, 300)).toEqual(["runtime_error", "timeout", "memory_limit", "pass"]);
    expect(run("python", { kind: "call", program: "def f(:\n", entryPoint: "f", cases })).toEqual(Array(4).fill("compile_error"));
    expect(run("python", { kind: "call", program: "x = 1\n", entryPoint: "f", cases })).toEqual(Array(4).fill("runtime_error"));
  });

  it("assert: each top-level statement of check holding an assert is one test", () => {
    const test = "def check(candidate):\n    assert candidate(1) == 2\n    k = 3\n    assert candidate(k) == 7, 'k'\n    for i in range(3):\n        assert candidate(i) == 2 * i\n    assert True\n";
    expect(run("python", { kind: "assert", program: "def f(x):\n    return 2 * x\n", entryPoint: "f", test })).toEqual(["pass", "fail", "pass", "pass"]);
    const unsplittable = "def check(candidate):\n    if candidate(1) == 2:\n        return\n    assert False\n";
    expect(run("python", { kind: "assert", program: "def f(x):\n    return 2 * x\n", entryPoint: "f", test: unsplittable })).toEqual(["pass"]);
  });

  it("stdio: input(), sys.stdin, exit(0), trailing whitespace", () => {
    const program = "import sys\nn = int(input())\nrest = sys.stdin.read().split()\nprint(n * 2, '  ')\nprint(len(rest))\nif n == 9: sys.exit(0)\nif n == 8: sys.exit(3)\n";
    const cases = [
      { stdin: "3\na b\n", stdout: "6\n2\n\n" },
      { stdin: "9\n", stdout: "18\n0" },
      { stdin: "8\n", stdout: "16\n0" },
      { stdin: "1\n", stdout: "3\n0" },
    ];
    expect(run("python", { kind: "stdio", program, cases })).toEqual(["pass", "pass", "runtime_error", "fail"]);
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
    ];
    expect(run("javascript", { kind: "call", program, entryPoint: "f", cases })).toEqual(["pass", "pass", "pass", "fail"]);
    expect(run("javascript", { kind: "call", program, entryPoint: "g", cases: [{ input: [2, 3], output: 6 }] })).toEqual(["pass"]);
    expect(run("javascript", { kind: "call", program, entryPoint: "spin", cases: [{ input: [], output: null }] }, 200)).toEqual(["timeout"]);
    expect(run("javascript", { kind: "call", program: "function (", entryPoint: "f", cases: [{ input: [], output: null }] })).toEqual(["compile_error"]);
  });

  it("assert and stdio", () => {
    const test = "function check(candidate) { if (candidate(2) !== 4) throw new Error('no'); }";
    expect(run("javascript", { kind: "assert", program: "function f(x) { return x * 2; }", entryPoint: "f", test })).toEqual(["pass"]);
    expect(run("javascript", { kind: "assert", program: "function f(x) { return x; }", entryPoint: "f", test })).toEqual(["runtime_error"]);
    const program = "const s = require('fs').readFileSync(0, 'utf8');\nconsole.log(s.split(' ').map(Number).reduce((a, b) => a + b));";
    expect(run("javascript", { kind: "stdio", program, cases: [{ stdin: "1 2", stdout: "3" }, { stdin: "2 2", stdout: "5" }] })).toEqual(["pass", "fail"]);
  });
});
