// Sandbox overhead benchmark (`npm run bench:code`): the 164 HumanEval canonical solutions, per rollout,
//   harness  rewardkit's harness (judge and worker) in bare python3 processes: no bubblewrap, no limits;
//   sandbox  the same harness in the local backend: bubblewrap, seccomp, prlimit, locked uid, memory cgroup;
//   bare     one plain `python3 -s -c "<program> <test> check(<entry>)"` process: the naive runner, no isolation,
//            no per-test statuses, program and tests in one interpreter (the design a policy can fake).
// The sandbox's overhead is sandbox / harness; sandbox / bare is the whole price of the trust boundary.
// All at the same concurrency, interleaved rounds (the order rotates), median of the rounds. Prints wall ms per
// rollout (wall × concurrency / rollouts) and CPU ms per rollout (user + system time of every process of the
// run, from this process's cutime/cstime: robust on a shared machine), and the ratios measured in this run.
// Env: BENCH_CONCURRENCY (default: available parallelism), BENCH_ROUNDS (default 5).
// BENCH_SMOKE=1 (test/bench-smoke.test.ts): 8 tasks, one round; the last line is `smoke: agree (…)` when every runner
// passes every canonical solution, `smoke: skipped (…)` without bubblewrap, else `smoke: DISAGREE (…)` and exit 1.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { localBackend, probeBwrap } from "../dist/sandbox/local.js";
import { SandboxPool } from "../dist/sandbox/pool.js";
import { judgeStart, taskPayload } from "../dist/sandbox/task.js";
import { DEFAULT_LIMITS } from "../dist/sandbox/types.js";
import { extractProgram } from "../dist/verifiers/code/extract.js";
import { parseReport } from "../dist/sandbox/report.js";

const root = new URL("..", import.meta.url).pathname;
const SMOKE = process.env.BENCH_SMOKE === "1";
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? availableParallelism());
const rounds = SMOKE ? 1 : Number(process.env.BENCH_ROUNDS ?? 5);
const rows = readFileSync(join(root, "examples/data/humaneval.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .slice(0, SMOKE ? 8 : undefined)
  .map((l) => JSON.parse(l));
const tasks = rows.map((r) => ({
  kind: "assert",
  program: extractProgram(r.completion, "python", "last"),
  entryPoint: r.reference.entryPoint,
  test: r.reference.test,
}));

const why = await probeBwrap();
if (why) {
  console.log(`bench:code skipped: ${why}`);
  if (SMOKE) console.log(`smoke: skipped (bubblewrap unusable: ${why})`);
  process.exit(0);
}

const cwd = mkdtempSync(join(tmpdir(), "rewardkit-bench-"));
process.once("exit", () => rmSync(cwd, { recursive: true, force: true })); // also when a round throws
const env = { PATH: "/usr/bin:/bin", PYTHONHASHSEED: "0" };
function proc(argv, input) {
  return new Promise((resolve) => {
    const p = spawn(argv[0], argv.slice(1), {
      cwd,
      env,
      stdio: [input === undefined ? "ignore" : "pipe", "pipe", "ignore"],
    });
    let out = "";
    p.stdout.on("data", (b) => (out += b));
    p.on("close", (code) => resolve({ code, out }));
    if (input !== undefined) p.stdin.end(input);
  });
}
const runners = {
  bare: async (t) =>
    (await proc(["/usr/bin/python3", "-s", "-c", `${t.program}\n\n${t.test}\n\ncheck(${t.entryPoint})\n`])).code === 0,
  harness: async (t) => {
    const judge = judgeStart(taskPayload("python", t, DEFAULT_LIMITS, "N"));
    const { out, code } = await proc(judge.argv, judge.stdin);
    const r = parseReport("N", { stdout: out, stderr: "", timedOut: false, exitCode: code, signal: null, wallMs: 0 });
    return r.statuses.length > 0 && r.statuses.every((s) => s === "pass");
  },
  sandbox: (() => {
    const backend = localBackend(new SandboxPool(concurrency), { uidBase: 61_000, isolate: true });
    return async (t) => {
      const r = await backend.run("python", t, DEFAULT_LIMITS);
      return r.statuses.length > 0 && r.statuses.every((s) => s === "pass");
    };
  })(),
};

/** CPU seconds (user + system) of every child process this process has waited for, the sandboxes' trees included (each process is reaped by its parent, so its time adds up to here). */
function childCpu() {
  const f = readFileSync("/proc/self/stat", "utf8");
  const rest = f.slice(f.lastIndexOf(")") + 2).split(" ");
  return (Number(rest[13]) + Number(rest[14])) / 100; // cutime + cstime, in clock ticks (USER_HZ = 100)
}

async function runAll(fn) {
  const pool = new SandboxPool(concurrency);
  let passed = 0;
  const cpu0 = childCpu();
  const started = performance.now();
  await Promise.all(
    tasks.map((t) =>
      pool.run(async () => {
        if (await fn(t)) passed++;
      }),
    ),
  );
  return { seconds: (performance.now() - started) / 1000, cpu: childCpu() - cpu0, passed };
}

await runners.sandbox(tasks[0]); // locks the uids and warms the caches outside the measurement
const names = Object.keys(runners);
const results = Object.fromEntries(names.map((n) => [n, []]));
for (let i = 0; i < rounds; i++) {
  for (let j = 0; j < names.length; j++) {
    const n = names[(i + j) % names.length];
    results[n].push(await runAll(runners[n]));
  }
}
rmSync(cwd, { recursive: true, force: true });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = Object.fromEntries(
  names.map((n) => [n, (1000 * median(results[n].map((r) => r.seconds)) * concurrency) / tasks.length]),
);
const cpu = Object.fromEntries(names.map((n) => [n, (1000 * median(results[n].map((r) => r.cpu))) / tasks.length]));
console.log(
  `HumanEval canonical solutions (${tasks.length}), concurrency ${concurrency}, median of ${rounds} interleaved rounds`,
);
console.log(
  `${"runner".padEnd(10)} ${"passed".padStart(8)} ${"wall ms/rollout".padStart(16)} ${"CPU ms/rollout".padStart(15)}`,
);
for (const n of names)
  console.log(
    `${n.padEnd(10)} ${`${Math.min(...results[n].map((r) => r.passed))}/${tasks.length}`.padStart(8)} ${ms[n].toFixed(1).padStart(16)} ${cpu[n].toFixed(1).padStart(15)}`,
  );
console.log(
  `sandbox overhead (sandbox / the same harness in bare python3): wall ${(ms.sandbox / ms.harness).toFixed(2)}x, CPU ${(cpu.sandbox / cpu.harness).toFixed(2)}x`,
);
console.log(
  `trust boundary and sandbox together (sandbox / naive single python3): wall ${(ms.sandbox / ms.bare).toFixed(2)}x, CPU ${(cpu.sandbox / cpu.bare).toFixed(2)}x`,
);
if (SMOKE) {
  const sides = names.map((n) => `${n} ${Math.min(...results[n].map((r) => r.passed))}/${tasks.length}`).join(", ");
  const ok = names.every((n) => results[n].every((r) => r.passed === tasks.length));
  console.log(`smoke: ${ok ? "agree" : "DISAGREE"} (canonical solutions passed: ${sides})`);
  process.exit(ok ? 0 : 1);
}
process.exit(0);
