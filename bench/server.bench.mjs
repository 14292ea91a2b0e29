/**
 * Reward-server benchmark: rollouts/s and request latency (p50/p99) over loopback HTTP at batch 1 and 256,
 * with the bundled math spec and a format-only spec, against a baseline measured in the same run (the same
 * rollouts scored in-process with `scoreBatch`, no HTTP). Then a long format-only run (default 1 M rollouts)
 * with the server's RSS before and after.
 *
 * Run:  npm run build && npm run bench:server            (from the repository root)
 * Options (env): BENCH_SECONDS=5 (per cell), BENCH_WARMUP=2 (unmeasured seconds before each cell, at that cell's
 * batch size and concurrency: the steady state is timed, not the JIT's first seconds), BENCH_TOTAL=1000000 (rollouts
 * in the RSS run; 0 skips it).
 * BENCH_SMOKE=1 (test/bench-smoke.test.ts): one request of 64 math rollouts over HTTP and the same rollouts through
 * the in-process engine (the baseline's side); the last line is `smoke: agree (…)` when every reward and advantage is
 * the same on both sides, else `smoke: DISAGREE (…)` and exit 1. No speed is judged.
 *
 * The server runs as its own process (`bin/rewardkit.js serve`); this process is the load generator: keep-alive
 * `http` connections, a fixed number of requests in flight, bodies built by string concatenation so every
 * completion is unique (no verdict-cache hits: the cold, pessimistic case).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { scoreBatch } from "../dist/engine/batch.js";
import { createScorer } from "../dist/engine/scorer.js";
import { loadSpec } from "../dist/spec/load.js";
import { cpuSeconds, mathRows, request, ROOT, rolloutTemplates, startServer, uniqueBody } from "./server-common.mjs";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const TOTAL = Number(process.env.BENCH_TOTAL ?? 1_000_000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
let rssLine = "";

const rows = mathRows();

const dir = mkdtempSync(join(tmpdir(), "rewardkit-bench-"));
process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
const formatSpec = join(dir, "format.yaml");
writeFileSync(formatSpec, "name: format-only\ncomponents:\n  - name: format\n    type: think-format\n");
const SPECS = { math: join(ROOT, "examples/math.yaml"), "format-only": formatSpec };

const templates = (spec) => rolloutTemplates(rows, spec === "format-only");
const body = uniqueBody;

async function rss(agent, port) {
  const { text } = await request(agent, port, "GET", "/metrics");
  return Number(/^process_resident_memory_bytes (\d+)/m.exec(text)[1]);
}

/** Keeps `inflight` requests of `batch` rollouts going for `seconds` (or until `total` rollouts). */
async function load(agent, port, tpls, batch, inflight, { seconds = Infinity, total = Infinity }) {
  const lat = [];
  let rollouts = 0;
  let errors = 0;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  async function worker() {
    while (performance.now() < end && rollouts < total) {
      const payload = body(tpls, batch);
      const s = performance.now();
      const r = await request(agent, port, "POST", "/v1/score", payload);
      lat.push(performance.now() - s);
      if (r.status === 200) rollouts += batch;
      else errors++;
    }
  }
  await Promise.all(Array.from({ length: inflight }, worker));
  const secs = (performance.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  const q = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))];
  return { rate: rollouts / secs, p50: q(0.5), p99: q(0.99), errors, requests: lat.length, rollouts, secs };
}

/** The engine alone: the same rollouts scored in-process in batches with `scoreBatch`, no HTTP (the baseline). */
async function baseline(scorer, tpls, batch, seconds) {
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < seconds * 1000) {
    await scoreBatch(scorer, JSON.parse(body(tpls, batch)).rollouts);
    n += batch;
  }
  return n / ((performance.now() - t0) / 1000);
}

const fmt = (x, d = 0) =>
  Number.isFinite(x) ? x.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d }) : "-";
const table = [
  [
    "spec",
    "batch",
    "in flight",
    "rollouts/s",
    "req/s",
    "p50 ms",
    "p99 ms",
    "server CPU µs/rollout",
    "engine alone rollouts/s",
    "server / engine",
    "errors",
  ],
];

if (process.env.BENCH_SMOKE === "1") {
  const { child, port } = await startServer(SPECS.math, []);
  const agent = new http.Agent({ keepAlive: true });
  const scorer = createScorer(loadSpec(SPECS.math));
  try {
    const payload = body(templates("math"), 64);
    const served = JSON.parse((await request(agent, port, "POST", "/v1/score", payload)).text).results;
    const local = await scoreBatch(scorer, JSON.parse(payload).rollouts);
    const none = (x) => x === null || Number.isNaN(x);
    const same = (a, b) => (none(a) || none(b) ? none(a) === none(b) : Math.abs(a - b) <= 1e-12);
    const off = local.scores.filter(
      (sc, i) =>
        !same(served[i]?.reward ?? null, sc.reward) || !same(served[i]?.advantage ?? null, local.advantages[i]),
    ).length;
    console.log(
      `smoke: ${off === 0 ? "agree" : "DISAGREE"} (64 math rollouts over HTTP and in process: ${off} with a different reward or advantage)`,
    );
    if (off !== 0) process.exitCode = 1;
  } finally {
    await scorer.close();
    agent.destroy();
    child.kill("SIGTERM");
  }
  process.exit();
}

for (const [name, specPath] of Object.entries(SPECS)) {
  const tpls = templates(name);
  const { child, port } = await startServer(specPath, ["--max-queue", "1000000", "--max-rollouts", "4096"]);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const scorer = createScorer(loadSpec(specPath));
  try {
    await load(agent, port, tpls, 64, 4, { seconds: 1 }); // warm-up: JIT, workers, CAS load
    await baseline(scorer, tpls, 64, 1);
    for (const [batch, inflight] of [
      [1, 16],
      [256, 4],
    ]) {
      // unmeasured, at this cell's own shape: the JIT tiers up the code a request shape runs (the per-request
      // path at batch 1, the per-rollout loops at 256) before the steady state a training run meets is timed
      await load(agent, port, tpls, batch, inflight, { seconds: WARMUP });
      const c0 = cpuSeconds(child.pid);
      const r = await load(agent, port, tpls, batch, inflight, { seconds: SECONDS });
      const cpu = cpuSeconds(child.pid) - c0;
      const base = await baseline(scorer, tpls, batch, Math.min(SECONDS, 3));
      table.push([
        name,
        String(batch),
        String(inflight),
        fmt(r.rate),
        fmt(r.requests / r.secs),
        fmt(r.p50, 2),
        fmt(r.p99, 2),
        fmt((cpu / r.rollouts) * 1e6, 1),
        fmt(base),
        fmt(r.rate / base, 2),
        String(r.errors),
      ]);
      process.stderr.write(`${name} batch ${batch}: ${fmt(r.rate)} rollouts/s\n`);
    }
    if (name === "format-only" && TOTAL > 0) {
      // RSS every 10 % of the run: the verdict cache (100 000 entries by default) fills first, then memory must stay flat
      const marks = [await rss(agent, port)];
      const c0 = cpuSeconds(child.pid);
      const t0 = performance.now();
      let done = 0;
      let errors = 0;
      const lat = [];
      while (done < TOTAL) {
        const r = await load(agent, port, tpls, 256, 4, { total: Math.ceil(TOTAL / 10) });
        done += r.rollouts;
        errors += r.errors;
        lat.push(r.p50);
        marks.push(await rss(agent, port));
      }
      const cpu = cpuSeconds(child.pid) - c0;
      const secs = (performance.now() - t0) / 1000;
      table.push([
        `${name}, ${fmt(done)} rollouts`,
        "256",
        "4",
        fmt(done / secs),
        fmt(done / 256 / secs),
        fmt(lat.sort((a, b) => a - b)[lat.length >> 1], 2),
        "",
        fmt((cpu / done) * 1e6, 1),
        "",
        "",
        String(errors),
      ]);
      const mib = marks.map((x) => fmt(x / 2 ** 20, 0));
      const steady = marks.slice(Math.min(2, marks.length - 1)); // the verdict cache (100 000) is full by the 2nd mark
      const lo = Math.min(...steady);
      const hi = Math.max(...steady);
      rssLine = `server RSS (MiB) every ${fmt(done / (marks.length - 1))} rollouts: ${mib.join(" → ")}; once the verdict cache is full: ${fmt(lo / 2 ** 20, 0)} … ${fmt(hi / 2 ** 20, 0)} MiB`;
    }
  } finally {
    await scorer.close();
    agent.destroy();
    child.kill("SIGTERM");
  }
}

const widths = table[0].map((_, j) => Math.max(...table.map((r) => r[j].length)));
for (const r of table)
  process.stdout.write(r.map((c, j) => (j < 1 ? c.padEnd(widths[j]) : c.padStart(widths[j]))).join("  ") + "\n");
if (rssLine) process.stdout.write(rssLine + "\n");
process.stdout.write(
  `machine: ${availableParallelism()} CPUs, load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(" ")} at the end (the load generator shares the machine)\n`,
);
