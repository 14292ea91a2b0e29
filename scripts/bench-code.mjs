// Code-reward throughput benchmark (`npm run bench:code`): the 164 HumanEval canonical solutions, per rollout,
//   bare     one plain `python3 -s -c "<program> <test> check(<entry>)"` process: the naive runner, no isolation,
//            no per-test statuses, program and tests in one interpreter (the design a policy can fake);
//   harness  rewardkit's harness (judge and worker) in bare python3 processes: no bubblewrap, no limits;
//   sandbox  the local backend as it runs by default: the slot's zygote forks each rollout's judge and worker into
//            fresh namespaces (bubblewrap, seccomp, rlimits, locked uid, memory cgroup);
//   classic  the same backend without zygotes (REWARDKIT_ZYGOTE=off): one new sandbox and interpreter per rollout;
//   prime    verl's local `prime_code` scorer (no sandbox: the speed a user gives up safety for), extracted at run
//            time from the verl mirror (../.mirror/verl-project+verl beside the checkout, or BENCH_VERL_MIRROR) into a temp dir and
//            run by scripts/bench-code-prime.py; it scores call-based cases only, so it gets the same 164 tasks'
//            HumanEval+ cases (the first BENCH_PRIME_CASES, default 8: about as many as HumanEval's asserts).
// sandbox / bare is the whole price of the trust boundary (the issue's target: CPU <= 1.5x).
// All at the same concurrency, interleaved rounds (the order rotates). Prints, per runner, the median and
// [min-max] over the rounds of wall ms per rollout (wall x concurrency / rollouts) and CPU ms per rollout (user +
// system time of every process of the run, from this process's cutime/cstime: robust on a shared machine; the
// zygotes are closed at the end of each of their rounds, inside the measurement, so that their time and their
// rollouts' is reaped into it), and each ratio as the median [min-max] of its per-round ratios.
// Env: BENCH_CONCURRENCY (default: available parallelism), BENCH_ROUNDS (default 5).
// BENCH_SMOKE=1 (test/bench-smoke.test.ts): 8 tasks, one round; the last line is `smoke: agree (…)` when every runner
// passes every canonical solution, `smoke: skipped (…)` without bubblewrap, else `smoke: DISAGREE (…)` and exit 1.
import { execSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { localBackend, probeBwrap } from "../dist/sandbox/local.js";
import { SandboxPool } from "../dist/sandbox/pool.js";
import { closeZygotes } from "../dist/sandbox/zygote.js";
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

const primeCases = Number(process.env.BENCH_PRIME_CASES ?? 8);
const primeRows = readFileSync(join(root, "examples/data/humanevalplus.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l))
  .map((r) => ({
    completion: r.completion,
    cases: r.reference.cases.slice(0, primeCases),
    fn: r.reference.entryPoint,
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
function sandboxRunner(zygote) {
  const backend = localBackend(new SandboxPool(concurrency), { uidBase: 61_000, isolate: true, zygote });
  return async (t) => {
    const r = await backend.run("python", t, DEFAULT_LIMITS);
    return r.statuses.length > 0 && r.statuses.every((s) => s === "pass");
  };
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
  sandbox: sandboxRunner(true),
  classic: sandboxRunner(false),
};
// Runners that take the whole task list at once: ({passed}) after running every rollout.
const batchRunners = {};

// the tool library's mirror beside the checkout (`fetch github:verl-project/verl`), or BENCH_VERL_MIRROR
const mirror = process.env.BENCH_VERL_MIRROR ?? join(root, "..", ".mirror", "verl-project+verl", "repo");
let primeSkipped;
if (!existsSync(mirror)) primeSkipped = `no verl mirror at ${mirror} (fetch github:verl-project/verl)`;
else {
  try {
    const dir = join(cwd, "verl");
    execSync(
      `mkdir -p "${dir}" && git --git-dir="${mirror}" archive HEAD verl/utils/reward_score/prime_code | tar -x -C "${dir}"`,
      { stdio: "ignore" },
    );
    const pkg = join(dir, "verl/utils/reward_score");
    batchRunners.prime = async () => {
      // one scorer process per lane, each calling compute_score per rollout (as verl's reward workers do)
      const lanes = Array.from({ length: concurrency }, (_, i) => primeRows.filter((_, j) => j % concurrency === i));
      const outs = await Promise.all(
        lanes.map((rows) =>
          proc(
            ["/usr/bin/python3", "-s", join(root, "scripts/bench-code-prime.py"), pkg],
            rows.map((r) => JSON.stringify(r)).join("\n") + "\n",
          ),
        ),
      );
      return { passed: outs.reduce((n, o) => n + (Number(o.out.trim()) || 0), 0) };
    };
  } catch (e) {
    primeSkipped = `could not extract prime_code from ${mirror}: ${e.message}`;
  }
}

/** CPU seconds (user + system) of every child process this process has waited for, the sandboxes' trees included (each process is reaped by its parent, so its time adds up to here). */
function childCpu() {
  const f = readFileSync("/proc/self/stat", "utf8");
  const rest = f.slice(f.lastIndexOf(")") + 2).split(" ");
  return (Number(rest[13]) + Number(rest[14])) / 100; // cutime + cstime, in clock ticks (USER_HZ = 100)
}

async function runAll(name) {
  const pool = new SandboxPool(concurrency);
  let passed = 0;
  const cpu0 = childCpu();
  const started = performance.now();
  if (batchRunners[name]) passed = (await batchRunners[name]()).passed;
  else
    await Promise.all(
      tasks.map((t) =>
        pool.run(async () => {
          if (await runners[name](t)) passed++;
        }),
      ),
    );
  if (name === "sandbox") await closeZygotes(); // their CPU time (and their rollouts') is reaped into this process
  return { seconds: (performance.now() - started) / 1000, cpu: childCpu() - cpu0, passed };
}

await runners.sandbox(tasks[0]); // locks the uids and warms the caches outside the measurement
await runners.classic(tasks[0]);
await closeZygotes();
const names = [...Object.keys(runners), ...Object.keys(batchRunners)];
const results = Object.fromEntries(names.map((n) => [n, []]));
for (let i = 0; i < rounds; i++) {
  for (let j = 0; j < names.length; j++) {
    const n = names[(i + j) % names.length];
    results[n].push(await runAll(n));
  }
}
rmSync(cwd, { recursive: true, force: true });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const spread = (xs, d = 1) => `${median(xs).toFixed(d)} [${Math.min(...xs).toFixed(d)}-${Math.max(...xs).toFixed(d)}]`;
const wallMs = (n) => results[n].map((r) => (1000 * r.seconds * concurrency) / tasks.length);
const cpuMs = (n) => results[n].map((r) => (1000 * r.cpu) / tasks.length);
const total = (n) => (n === "prime" ? primeRows.length : tasks.length);
console.log(
  `HumanEval canonical solutions (${tasks.length}), concurrency ${concurrency}, ${rounds} interleaved rounds: median [min-max]`,
);
console.log(
  `${"runner".padEnd(10)} ${"passed".padStart(8)} ${"wall ms/rollout".padStart(22)} ${"CPU ms/rollout".padStart(22)}`,
);
for (const n of names)
  console.log(
    `${n.padEnd(10)} ${`${Math.min(...results[n].map((r) => r.passed))}/${total(n)}`.padStart(8)} ${spread(wallMs(n)).padStart(22)} ${spread(cpuMs(n)).padStart(22)}`,
  );
/** "wall Wx, CPU Cx" of a / b: medians of the per-round ratios, then their ranges. */
function ratio(a, b) {
  const per = (f) => f(a).map((x, i) => x / f(b)[i]);
  const w = per(wallMs);
  const c = per(cpuMs);
  return `wall ${median(w).toFixed(2)}x, CPU ${median(c).toFixed(2)}x (per round: wall ${Math.min(...w).toFixed(2)}-${Math.max(...w).toFixed(2)}x, CPU ${Math.min(...c).toFixed(2)}-${Math.max(...c).toFixed(2)}x)`;
}
console.log(`sandbox overhead (sandbox / the same harness in bare python3): ${ratio("sandbox", "harness")}`);
console.log(
  `zygote speed-up (sandbox / classic, one sandbox and interpreter per rollout): ${ratio("sandbox", "classic")}`,
);
console.log(`classic sandbox (classic / naive single python3): ${ratio("classic", "bare")}`);
if (primeSkipped) console.log(`verl prime_code row skipped: ${primeSkipped}`);
else
  console.log(
    `verl prime_code, no sandbox (sandbox / prime_code; prime on the HumanEval+ cases, first ${primeCases} per task): ${ratio("sandbox", "prime")}`,
  );
console.log(`trust boundary and sandbox together (sandbox / naive single python3): ${ratio("sandbox", "bare")}`);
if (SMOKE) {
  const sides = names.map((n) => `${n} ${Math.min(...results[n].map((r) => r.passed))}/${total(n)}`).join(", ");
  // prime_code converts the cases to JSON (tuples and floats break): its row measures speed only
  const ok = names.filter((n) => n !== "prime").every((n) => results[n].every((r) => r.passed === total(n)));
  console.log(`smoke: ${ok ? "agree" : "DISAGREE"} (canonical solutions passed: ${sides})`);
  process.exit(ok ? 0 : 1);
}
process.exit(0);
