// Sandbox overhead benchmark (`npm run bench:code`): HumanEval canonical solutions through the sandbox pool
// (bubblewrap + prlimit + per-slot uid), beside the same harness and tasks run by one plain `python3` process each,
// without isolation, at the same concurrency. Prints tests/s and the per-rollout time ratio.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { PYTHON_HARNESS } from "../dist/sandbox/harness/python.js";
import { localBackend, probeBwrap } from "../dist/sandbox/local.js";
import { SandboxPool } from "../dist/sandbox/pool.js";
import { DEFAULT_LIMITS } from "../dist/sandbox/types.js";
import { extractProgram } from "../dist/verifiers/code/extract.js";

const root = new URL("..", import.meta.url).pathname;
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? availableParallelism());
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const rows = readFileSync(join(root, "examples/data/humaneval.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
const tasks = rows.map((r) => ({ kind: "assert", program: extractProgram(r.completion, "python", "last"), entryPoint: r.reference.entryPoint, test: r.reference.test }));

const why = await probeBwrap();
if (why) {
  console.log(`bench:code skipped: ${why}`);
  process.exit(0);
}

async function runAll(runOne) {
  const pool = new SandboxPool(concurrency);
  let tests = 0;
  let passed = 0;
  const started = performance.now();
  await Promise.all(tasks.map((t) => pool.run(async () => {
    const statuses = await runOne(t);
    tests += statuses.length;
    passed += statuses.filter((s) => s === "pass").length;
  })));
  const seconds = (performance.now() - started) / 1000;
  return { seconds, tests, passed };
}

// Baseline: the same harness, one bare python3 process per rollout, no isolation, no limits.
const dir = mkdtempSync(join(tmpdir(), "rewardkit-bench-"));
writeFileSync(join(dir, "harness.py"), PYTHON_HARNESS);
let seq = 0;
function bare(task) {
  const file = join(dir, `task-${seq++}.json`);
  writeFileSync(file, JSON.stringify({ ...task, nonce: "N", testTimeoutMs: DEFAULT_LIMITS.testTimeoutMs }));
  return new Promise((resolve) => {
    const p = spawn("/usr/bin/python3", ["-s", join(dir, "harness.py"), file], { env: { PATH: "/usr/bin:/bin", PYTHONHASHSEED: "0" }, stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    p.stdout.on("data", (b) => (out += b));
    p.on("close", () => resolve(out.split("\n").filter((l) => l.startsWith("N {\"t\"")).map((l) => JSON.parse(l.slice(2)).s)));
  });
}
const sandbox = localBackend(new SandboxPool(concurrency), { uidBase: 61_000, isolate: true });
const boxed = async (task) => (await sandbox.run("python", task, DEFAULT_LIMITS)).statuses;

const results = { bare: [], sandbox: [] };
for (let i = 0; i < rounds; i++) {
  // Alternate the order so that neither side always runs on a warmer machine.
  for (const [name, fn] of i % 2 === 0 ? [["bare", bare], ["sandbox", boxed]] : [["sandbox", boxed], ["bare", bare]]) results[name].push(await runAll(fn));
}
rmSync(dir, { recursive: true, force: true });
const best = (xs) => xs.reduce((a, b) => (b.seconds < a.seconds ? b : a));
const b = best(results.bare);
const s = best(results.sandbox);
const row = (name, r) => `${name.padEnd(22)} ${String(tasks.length).padStart(8)} ${String(r.tests).padStart(6)} ${String(r.passed).padStart(7)} ${r.seconds.toFixed(2).padStart(8)} ${(r.tests / r.seconds).toFixed(0).padStart(8)} ${((1000 * r.seconds * concurrency) / tasks.length).toFixed(1).padStart(12)}`;
console.log(`HumanEval canonical solutions, concurrency ${concurrency}, best of ${rounds}`);
console.log(`${"runner".padEnd(22)} ${"rollouts".padStart(8)} ${"tests".padStart(6)} ${"passed".padStart(7)} ${"seconds".padStart(8)} ${"tests/s".padStart(8)} ${"ms/rollout".padStart(12)}`);
console.log(row("bare python3", b));
console.log(row("sandbox (bwrap pool)", s));
console.log(`overhead ratio (sandbox / bare, per rollout): ${(s.seconds / b.seconds).toFixed(2)}x`);
