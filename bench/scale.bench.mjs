/**
 * Scale-out benchmark: math rollouts/s through real `rewardkit serve` processes for 1, 2 and 4 replicas sharing one
 * `redis-server` (`--store`), against 1 replica without a store (the baseline), measured in one run.
 *
 * Run:  npm run bench:scale                                   (builds first; needs redis-server on PATH)
 * Options (env): BENCH_SECONDS=5 (per cell), BENCH_REPS=3 (interleaved repetitions), BENCH_CONCURRENCY=8 (requests
 * in flight), BENCH_JOBS=1 (worker threads per replica, -j).
 *
 * The load generator (this process) sends whole groups, 8 groups of 8 rollouts per request, each request to the
 * replica its first group's id hashes to (as a client with several URLs, or haproxy's `balance hdr(...)`, does), with
 * `X-Rewardkit-Request-Id` on every request (the idempotency record is part of the store's cost). Every completion
 * carries a unique tag in the cold pass, so no cache (the replica's or the store's) holds its verdict; the warm pass
 * then replays the cold pass's rollouts under new request ids: every verdict is a cache hit.
 *
 * BENCH_SMOKE=1 (test/bench-smoke.test.ts): 1 replica without a store and 2 replicas on Redis, one request of 8 groups
 * to each; the last line is `smoke: agree (…)` when both fleets give every rollout the same reward and advantage,
 * `smoke: skipped (…)` without redis-server, else `smoke: DISAGREE (…)` and exit 1. No speed is judged.
 *
 * Cells are interleaved (each repetition runs every configuration, in a rotated order) and reported as median
 * (min–max) over the repetitions. Per cell: server CPU (user + system of every replica, from /proc) per rollout,
 * the replicas' wait on the store (`rewardkit_store_seconds_total`) per rollout, and Redis's own CPU per rollout.
 */
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import { createServer } from "node:net";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { mathRows, request, ROOT, startServer, tag } from "./server-common.mjs";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const REPS = Number(process.env.BENCH_REPS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const JOBS = String(process.env.BENCH_JOBS ?? 1);
const GROUPS_PER_REQUEST = 8;
const SPEC = join(ROOT, "examples/math.yaml");

const SMOKE = process.env.BENCH_SMOKE === "1";
if (spawnSync("redis-server", ["--version"]).status !== 0) {
  console.error("bench:scale needs redis-server on PATH (Debian: apt-get install redis-server)");
  if (SMOKE) console.log("smoke: skipped (redis-server not on PATH)");
  process.exit(SMOKE ? 0 : 1);
}

const rows = mathRows();
const groups = [];
for (let g = 0; g < rows.length / 8; g++) groups.push(rows.slice(g * 8, g * 8 + 8));

/** One rollout's JSON with `@G@` (its group's suffix) and `@N@` (its unique tag) to fill in. */
const templates = groups.map((gs) =>
  gs.map((r) =>
    JSON.stringify({
      id: "@I@",
      group: `${r.group}-@G@`,
      prompt: r.prompt,
      completion: `${r.completion}\n@N@`,
      reference: r.reference,
    }),
  ),
);

let nonce = 0;
/** Request ids, unique over the run (a replayed body under an id already used would be a 409). */
let requestIds = 0;
/** A request of 8 whole groups, every completion unique: its body and its first group's id. */
function coldRequest() {
  const k = nonce++;
  const parts = [];
  let first;
  for (let j = 0; j < GROUPS_PER_REQUEST; j++) {
    const g = (k * GROUPS_PER_REQUEST + j) % groups.length;
    const suffix = `q${k}`;
    first ??= `${groups[g][0].group}-${suffix}`;
    templates[g].forEach((t, i) =>
      parts.push(
        t
          .replace("@I@", `r${k}-${j}-${i}`)
          .replace("@G@", suffix)
          .replace("@N@", tag(k * 64 + j * 8 + i)),
      ),
    );
  }
  return { group: first, body: `{"rollouts":[${parts.join(",")}]}`, rollouts: parts.length };
}

/** FNV-1a of a string: the replica a group goes to. */
function hash(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** user + system CPU seconds of a process (/proc/<pid>/stat), 0 where /proc is missing. */
function cpuSeconds(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (100 Hz on Linux)
  } catch {
    return 0;
  }
}

async function storeSeconds(port) {
  const r = await request(undefined, port, "GET", "/metrics");
  const m = /^rewardkit_store_seconds_total (\S+)$/m.exec(r.text);
  return m ? Number(m[1]) : 0;
}

/** Runs `SECONDS` of load against `fleet`, requests from `next()`; returns rollouts/s and per-rollout costs. */
async function cell(fleet, redisPid, next) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const cpu0 = fleet.map((s) => cpuSeconds(s.child.pid));
  const redis0 = redisPid ? cpuSeconds(redisPid) : 0;
  const store0 = await Promise.all(fleet.map((s) => storeSeconds(s.port)));
  const sent = [];
  let rollouts = 0;
  let failures = 0;
  const t0 = performance.now();
  const end = t0 + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        const q = next();
        const s = fleet[hash(q.group) % fleet.length];
        const r = await request(agent, s.port, "POST", "/v1/score", q.body, {
          "X-Rewardkit-Request-Id": `req-${requestIds++}`,
        });
        sent.push(q);
        if (r.status === 200) rollouts += q.rollouts;
        else failures++;
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  agent.destroy();
  const cpu = fleet.reduce((a, s, i) => a + cpuSeconds(s.child.pid) - cpu0[i], 0);
  const store = (await Promise.all(fleet.map((s) => storeSeconds(s.port)))).reduce((a, v, i) => a + v - store0[i], 0);
  const redisCpu = redisPid ? cpuSeconds(redisPid) - redis0 : 0;
  return {
    rate: rollouts / secs,
    cpuMs: (cpu * 1000) / rollouts,
    storeMs: (store * 1000) / rollouts,
    redisMs: (redisCpu * 1000) / rollouts,
    failures,
    sent,
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// ---- start: one Redis, every fleet (kept for the whole run: idle replicas cost nothing)
const redisPort = await freePort();
const redis = spawn(
  "redis-server",
  ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
  { stdio: ["ignore", "pipe", "pipe"] },
);
await new Promise((resolve, reject) => {
  let out = "";
  redis.stdout.on("data", (d) => {
    out += d;
    if (out.includes("Ready to accept connections")) resolve();
  });
  redis.once("exit", (c) => reject(new Error(`redis-server exited ${c}: ${out}`)));
});
const store = `redis://127.0.0.1:${redisPort}`;
const CONFIGS = [
  { name: "1 replica, no store", replicas: 1, store: false },
  { name: "1 replica, --store", replicas: 1, store: true },
  { name: "2 replicas, --store", replicas: 2, store: true },
  { name: "4 replicas, --store", replicas: 4, store: true },
].filter((c) => !SMOKE || c.name === "1 replica, no store" || c.name === "2 replicas, --store");
const fleets = await Promise.all(
  CONFIGS.map((c) =>
    Promise.all(
      Array.from({ length: c.replicas }, () => startServer(SPEC, ["-j", JOBS, ...(c.store ? ["--store", store] : [])])),
    ),
  ),
);
const stopAll = () => {
  for (const f of fleets) for (const s of f) s.child.kill("SIGKILL");
  redis.kill("SIGKILL");
};
process.once("exit", stopAll);

console.log(
  `bench:scale: ${availableParallelism()} CPUs, load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(" ")}; ` +
    `${SECONDS} s per cell, ${REPS} interleaved repetitions, ${CONCURRENCY} requests of 64 rollouts in flight, -j ${JOBS} per replica, redis-server ${/v=(\S+)/.exec(spawnSync("redis-server", ["--version"], { encoding: "utf8" }).stdout)?.[1] ?? "?"}`,
);

if (SMOKE) {
  // one request of 8 groups to each fleet (the same body, its own request id): the same rewards and advantages
  const q = coldRequest();
  const answers = await Promise.all(
    fleets.map(async (fleet, i) => {
      const s = fleet[hash(q.group) % fleet.length];
      const r = await request(undefined, s.port, "POST", "/v1/score", q.body, {
        "X-Rewardkit-Request-Id": `smoke-${i}`,
      });
      return r.status === 200 ? JSON.parse(r.text).results : [];
    }),
  );
  const [a, b] = answers;
  const off = a.filter((x, i) => x.reward !== b[i]?.reward || x.advantage !== b[i]?.advantage).length;
  const ok = a.length === q.rollouts && b.length === q.rollouts && off === 0;
  console.log(
    `smoke: ${ok ? "agree" : "DISAGREE"} (${q.rollouts} rollouts, ${CONFIGS.map((c) => c.name).join(" vs ")}: ${a.length}/${b.length} answered, ${off} with a different reward or advantage)`,
  );
  process.exit(ok ? 0 : 1);
}

// warm-up: 4 requests (256 rollouts) per replica, 2 at a time (worker start, JIT of the math verifier)
await Promise.all(
  fleets.flat().map(async (s) => {
    for (let k = 0; k < 2; k++)
      await Promise.all([0, 1].map(() => request(undefined, s.port, "POST", "/v1/score", coldRequest().body)));
  }),
);

const results = CONFIGS.map(() => ({ cold: [], warm: [] }));
for (let rep = 0; rep < REPS; rep++) {
  const order = CONFIGS.map((_, i) => (i + rep) % CONFIGS.length);
  for (const i of order) {
    const fleet = fleets[i];
    const redisPid = CONFIGS[i].store ? redis.pid : undefined;
    const cold = await cell(fleet, redisPid, coldRequest);
    let k = 0;
    const replay = cold.sent;
    const warm = await cell(fleet, redisPid, () => replay[k++ % replay.length]);
    results[i].cold.push(cold);
    results[i].warm.push(warm);
    process.stderr.write(
      `  rep ${rep + 1} ${CONFIGS[i].name}: cold ${cold.rate.toFixed(0)}/s, warm ${warm.rate.toFixed(0)}/s` +
        `${cold.failures + warm.failures ? `, ${cold.failures + warm.failures} failed requests` : ""}\n`,
    );
  }
}
stopAll();

const fmt = (xs) => `${median(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`.padEnd(20);
const f2 = (xs) => median(xs).toFixed(3).padStart(8);
const base = { cold: median(results[0].cold.map((c) => c.rate)), warm: median(results[0].warm.map((c) => c.rate)) };
console.log("");
console.log(
  "| fleet | pass | rollouts/s median (min–max) | vs baseline | server CPU ms/rollout | store wait ms/rollout | redis CPU ms/rollout | failed requests |",
);
console.log("|---|---|---|---|---|---|---|---|");
CONFIGS.forEach((c, i) => {
  for (const pass of ["cold", "warm"]) {
    const cs = results[i][pass];
    const rates = cs.map((x) => x.rate);
    console.log(
      `| ${c.name} | ${pass} | ${fmt(rates)} | ${(median(rates) / base[pass]).toFixed(2)}x | ${f2(cs.map((x) => x.cpuMs))} | ` +
        `${c.store ? f2(cs.map((x) => x.storeMs)) : "       -"} | ${c.store ? f2(cs.map((x) => x.redisMs)) : "       -"} | ` +
        `${cs.reduce((a, x) => a + x.failures, 0)} |`,
    );
  }
});
console.log(
  "server CPU: user + system of every replica (worker threads included) / rollouts; store wait: rewardkit_store_seconds_total / " +
    "rollouts, the replicas' store operations' durations summed (they overlap each other and scoring, and include " +
    "event-loop delay): an upper bound, not a cost in series; redis CPU: redis-server's own user + system / rollouts",
);
const perRollout = (rate) => 1000 / rate;
for (const pass of ["cold", "warm"]) {
  const s1 = median(results[1][pass].map((c) => c.rate));
  console.log(
    `store overhead, 1 replica, ${pass}: ${(perRollout(s1) - perRollout(base[pass])).toFixed(3)} ms/rollout of wall time ` +
      `(${perRollout(base[pass]).toFixed(3)} → ${perRollout(s1).toFixed(3)} ms), ` +
      `store wait ${f2(results[1][pass].map((c) => c.storeMs)).trim()} ms/rollout (overlapped), ` +
      `server CPU ${(median(results[1][pass].map((c) => c.cpuMs)) - median(results[0][pass].map((c) => c.cpuMs))).toFixed(3)} ms/rollout more`,
  );
}
if (availableParallelism() <= 2)
  console.log(
    `note: ${availableParallelism()} CPUs for every replica, Redis and the load generator together: more replicas cannot add ` +
      "throughput here (expect flat or lower); server CPU ms/rollout is the figure that carries to a machine with more cores.",
  );
