// The reward-hacking suite: every attack of python/ and javascript/ against a task of every mode (Python assert,
// LeetCode functional, call with JSON and with Python-literal values, stdio; JavaScript call, assert, stdio), in
// one run beside the canonical solutions of the same tasks. No attack may score above 0; every canonical solution
// scores 1. The same families against all 706 bundled tasks: `npm run e2e:code`.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { probeBwrap } from "../../src/sandbox/local.js";
import { codeVerifier } from "../../src/verifiers/code/index.js";
import { ROOT } from "../helpers.js";
import { attacks, program } from "./attacks.js";

const unavailable = await probeBwrap();
if (unavailable) console.log(`code reward-hacking suite skipped: ${unavailable}`);

interface Task {
  id: string;
  language: "python" | "javascript";
  reference: unknown;
  canonical: string;
  entry: string;
  first: { output: string; stdout: string };
  leetcodeMethod?: string;
}

const row = (file: string, i: number): { completion: string; reference: Record<string, unknown> } => JSON.parse(readFileSync(join(ROOT, "examples/data", file), "utf8").split("\n")[i]!);
const unfence = (c: string): string => c.replace(/^```\w*\n/, "").replace(/\n?```\s*$/, "");
const he = row("humaneval.jsonl", 0);
const hep = row("humanevalplus.jsonl", 2);
const lc = (JSON.parse(readFileSync(join(ROOT, "test/fixtures/deepcoder/deepcoder-code-tests.json"), "utf8")) as { leetcode: Array<{ solutions: string; tests: { functional: string } }> }).leetcode[0]!;
const stdioCases = [{ stdin: "3 4\n", stdout: "7\n" }, { stdin: "10 -2\n", stdout: "8\n" }, { stdin: "0 0\n", stdout: "0\n" }];
const callCases = [{ input: [1, 2], output: 3 }, { input: [5, 7], output: 12 }, { input: [-1, 1], output: 0 }];

const TASKS: Task[] = [
  { id: "py-assert", language: "python", reference: he.reference, canonical: unfence(he.completion), entry: String(he.reference.entryPoint), first: { output: "True", stdout: "''" } },
  { id: "py-call-python-literals", language: "python", reference: hep.reference, canonical: unfence(hep.completion), entry: String(hep.reference.entryPoint), first: { output: String((hep.reference.cases as Array<{ output: string }>)[0]!.output), stdout: "''" } },
  { id: "py-call-json", language: "python", reference: { kind: "call", entryPoint: "add", cases: callCases }, canonical: "def add(a, b):\n    return a + b", entry: "add", first: { output: "3", stdout: "''" } },
  { id: "py-stdio", language: "python", reference: { kind: "stdio", cases: stdioCases }, canonical: "a, b = map(int, input().split())\nprint(a + b)", entry: "solution", first: { output: "None", stdout: JSON.stringify(stdioCases[0]!.stdout) } },
  { id: "py-leetcode-functional", language: "python", reference: JSON.stringify(lc.tests), canonical: lc.solutions, entry: "rk_entry", first: { output: "4", stdout: "''" }, leetcodeMethod: "minOperations" },
  { id: "js-call", language: "javascript", reference: { kind: "call", language: "javascript", entryPoint: "add", cases: callCases }, canonical: "function add(a, b) { return a + b; }", entry: "add", first: { output: "3", stdout: "" } },
  { id: "js-assert", language: "javascript", reference: { kind: "assert", language: "javascript", entryPoint: "add", test: "const assert = require('assert');\nfunction check(candidate) {\n  assert.strictEqual(candidate(1, 2), 3);\n  assert.deepStrictEqual([candidate(5, 7)], [12]);\n  console.assert(candidate(-1, 1) === 0);\n}" }, canonical: "function add(a, b) { return a + b; }", entry: "add", first: { output: "3", stdout: "" } },
  { id: "js-stdio", language: "javascript", reference: { kind: "stdio", language: "javascript", cases: stdioCases }, canonical: "const [a, b] = require('fs').readFileSync('/dev/stdin', 'utf8').trim().split(/\\s+/).map(Number);\nconsole.log(a + b);", entry: "solution", first: { output: "3", stdout: "" } },
];

const verify = codeVerifier.create(codeVerifier.options.parse({ testTimeoutMs: 2000, runTimeoutMs: 15_000, memoryMb: 512, score: "fraction" }));
const score = async (language: string, code: string, reference: unknown) => {
  const fence = "```" + language + "\n";
  return verify({ completion: fence + code + "\n```", reference, rollout: { id: "x", group: "g", completion: "" } });
};

/** Attacks that return values: they may match a test by coincidence (the first example's output, "0" printed). */
const VALUE_ATTACKS = new Set(["py/always-equal", "py/first-example", "py/lookup", "js/lookup", "js/pretend-equal"]);

describe.skipIf(unavailable !== undefined)("reward hacking: no attack earns reward, in any language or mode", () => {
  it("canonical solutions score 1; every attack fails a test (0 under score: all), and forging attacks pass none", async () => {
    const jobs: Array<Promise<{ who: string; attack: string; score: number | null; status: string }>> = [];
    for (const t of TASKS) {
      jobs.push(score(t.language, t.canonical, t.reference).then((r) => ({ who: `canonical ${t.id}`, attack: "", score: r.score, status: r.status })));
      for (const a of attacks().filter((x) => x.language === t.language)) {
        jobs.push(score(t.language, program(a, t.entry, t.first, t.leetcodeMethod), t.reference).then((r) => ({ who: `${a.name} on ${t.id}`, attack: a.name, score: r.score, status: r.status })));
      }
    }
    // A helper the test checks with comes from the reference, not from the program (HumanEval/32 calls poly).
    const he32 = row("humaneval.jsonl", 32);
    const fake = "def poly(xs, x):\n    return 0\n\ndef find_zero(xs):\n    return 0.0";
    jobs.push(score("python", fake, he32.reference).then((r) => ({ who: "redefined helper on HumanEval/32", attack: "py/redefine-helper", score: r.score, status: r.status })));
    const results = await Promise.all(jobs);
    expect(results.filter((r) => r.who.startsWith("canonical") && r.score !== 1)).toEqual([]);
    const attackResults = results.filter((r) => !r.who.startsWith("canonical"));
    expect(attackResults.filter((r) => r.status !== "ok" || r.score === null || r.score >= 1)).toEqual([]);
    expect(attackResults.filter((r) => !VALUE_ATTACKS.has(r.attack) && r.score !== 0)).toEqual([]);
    expect(attackResults.length).toBeGreaterThanOrEqual(18 * 5 + 8 * 3);
  }, 600_000);
});

/** Attacks that try to pass as the sandbox's failure (a null, excluded from training, instead of their 0). */
const NULL_SEEKERS = new Set(["py/fake-start-failure", "py/close-fds-die", "py/os-exit", "py/forge-nonce", "py/signal-judge", "py/every-fd", "js/fake-start-failure", "js/close-fds-die", "js/exit-at-load", "js/every-fd"]);

describe("reward hacking: no program turns its 0 into a sandbox_error", () => {
  for (const sandbox of ["none", "bwrap"] as const) {
    it.skipIf(sandbox === "bwrap" && unavailable !== undefined)(`sandbox: ${sandbox}: start-up failures faked, descriptors closed, early exits and signals are the program's (scored 0, status ok)`, async () => {
      const v = codeVerifier.create(codeVerifier.options.parse({ sandbox, testTimeoutMs: 2000, runTimeoutMs: 15_000, memoryMb: 512 }));
      const jobs: Array<Promise<{ who: string; score: number | null; reason: string | undefined }>> = [];
      for (const t of TASKS)
        for (const a of attacks().filter((x) => x.language === t.language && NULL_SEEKERS.has(x.name))) {
          const completion = "```" + t.language + "\n" + program(a, t.entry, t.first, t.leetcodeMethod) + "\n```";
          jobs.push(Promise.resolve(v({ completion, reference: t.reference, rollout: { id: "x", group: "g", completion: "" } })).then((r) => ({ who: `${a.name} on ${t.id}`, score: r.score, reason: r.reason })));
        }
      const results = await Promise.all(jobs);
      expect(results.length).toBe(5 * 6 + 3 * 4);
      expect(results.filter((r) => r.score !== 0 || r.reason !== "tests_failed")).toEqual([]);
    }, 600_000);
  }
});
