/**
 * Saturating load on the reward server over loopback (not part of `npm test`; takes LOAD_SECONDS, default 60).
 *
 * Run:  npm run build && node bench/server.load.mjs [--spec examples/math.yaml] [--seconds 60] [--clients 32]
 *       [--batch 256] [--max-queue 2048]
 *
 * `clients` loops each send a batch with ids unique over the run, more than the queue holds, so the server must
 * refuse some with 429. A refused batch is retried after min(Retry-After, 0.2 s), keeping the pressure on. At the
 * end it checks, and exits 1 unless all hold:
 * - no response other than 200 and 429, no connection error;
 * - every 200 answer holds exactly the ids sent, in order, each with a numeric reward;
 * - every id sent was answered exactly once (nothing lost, nothing duplicated);
 * - server RSS, sampled each second from /metrics, stays within 20 % of its median once the bounded structures are
 *   full (from the first sample where the verdict cache holds its capacity; the second half of the run if it never
 *   fills): the cache and V8's heap grow to their working size first, then memory must stay flat.
 */
import http from "node:http";
import { parseArgs } from "node:util";
import { mathRows, request as requestOn, startServer, tag } from "./server-common.mjs";

const { values: a } = parseArgs({
  options: {
    spec: { type: "string", default: "examples/math.yaml" },
    seconds: { type: "string", default: process.env.LOAD_SECONDS ?? "60" },
    clients: { type: "string", default: "32" },
    batch: { type: "string", default: "256" },
    "max-queue": { type: "string", default: "2048" },
  },
});
const SECONDS = Number(a.seconds);
const CLIENTS = Number(a.clients);
const BATCH = Number(a.batch);

const rows = mathRows();
const tpls = rows.map((r) =>
  JSON.stringify({
    id: "@I@",
    group: r.group,
    prompt: r.prompt,
    completion: r.completion + "\n@N@",
    reference: r.reference,
  }),
);

const { child, port } = await startServer(a.spec, ["--max-queue", a["max-queue"], "--max-rollouts", String(BATCH)]);
const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS + 4 });

const request = (method, path, payload) => requestOn(agent, port, method, path, payload);

let nextId = 0;
const answered = new Map(); // id → times answered
const stats = { ok: 0, r429: 0, otherStatus: {}, connErrors: 0, mismatched: 0, rollouts: 0, lat: [] };
const t0 = performance.now();
const end = t0 + SECONDS * 1000;

async function client() {
  while (performance.now() < end) {
    const ids = [];
    const parts = [];
    for (let i = 0; i < BATCH; i++) {
      const n = nextId++;
      ids.push(`r${n}`);
      parts.push(tpls[n % tpls.length].replace("@I@", `r${n}`).replace("@N@", tag(n)));
    }
    const payload = `{"rollouts":[${parts.join(",")}]}`;
    for (;;) {
      const s = performance.now();
      let r;
      try {
        r = await request("POST", "/v1/score", payload);
      } catch {
        stats.connErrors++;
        break;
      }
      if (r.status === 429) {
        stats.r429++;
        const wait = Math.min(Number(r.headers["retry-after"] ?? 1) * 1000, 200);
        await new Promise((res) => setTimeout(res, wait));
        if (performance.now() >= end + 30_000) break;
        continue;
      }
      if (r.status !== 200) {
        stats.otherStatus[r.status] = (stats.otherStatus[r.status] ?? 0) + 1;
        break;
      }
      stats.ok++;
      stats.lat.push(performance.now() - s);
      const results = JSON.parse(r.text).results;
      const got = results.map((x) => x.id);
      if (
        got.length !== ids.length ||
        got.some((id, i) => id !== ids[i]) ||
        results.some((x) => typeof x.reward !== "number")
      )
        stats.mismatched++;
      for (const id of got) answered.set(id, (answered.get(id) ?? 0) + 1);
      stats.rollouts += got.length;
      break;
    }
  }
}

const rssSamples = [];
const sampler = setInterval(async () => {
  try {
    const { text } = await request("GET", "/metrics");
    rssSamples.push({
      t: (performance.now() - t0) / 1000,
      rss: Number(/^process_resident_memory_bytes (\d+)/m.exec(text)[1]),
      heap: Number(/^nodejs_heap_used_bytes (\d+)/m.exec(text)[1]),
      cache: Number(/^rewardkit_cache_entries (\d+)/m.exec(text)[1]),
      depth: Number(/^rewardkit_queue_depth (\d+)/m.exec(text)[1]),
    });
  } catch {
    /* counted by the clients */
  }
}, 1000);

await Promise.all(Array.from({ length: CLIENTS }, client));
clearInterval(sampler);
const secs = (performance.now() - t0) / 1000;
const metrics = (await request("GET", "/metrics")).text;
agent.destroy();
const exited = new Promise((resolve) => child.once("exit", resolve));
child.kill("SIGTERM");
const code = await exited;

const sent = nextId;
let lost = 0;
let dup = 0;
for (let n = 0; n < sent; n++) {
  const k = answered.get(`r${n}`) ?? 0;
  if (k === 0) lost++;
  if (k > 1) dup++;
}
// ids of batches abandoned because of a connection error or a non-429 failure are lost too: they count above
const cacheCap = Math.max(0, ...rssSamples.map((s) => s.cache));
const fullAt = rssSamples.find((s) => s.cache >= cacheCap && cacheCap >= 100_000)?.t;
const from = fullAt ?? SECONDS / 2;
const steady = rssSamples.filter((s) => s.t >= from).map((s) => s.rss);
const sorted = [...steady].sort((x, y) => x - y);
const median = sorted[sorted.length >> 1] ?? NaN;
const spread = steady.length ? Math.max(...steady.map((x) => Math.abs(x / median - 1))) : NaN;
stats.lat.sort((x, y) => x - y);
const q = (p) => stats.lat[Math.min(stats.lat.length - 1, Math.floor(p * stats.lat.length))] ?? NaN;
const mib = (x) => (x / 2 ** 20).toFixed(0);

console.log(
  `spec ${a.spec}, ${CLIENTS} clients × batch ${BATCH}, queue ${a["max-queue"]} rollouts, ${secs.toFixed(1)} s`,
);
console.log(
  `200: ${stats.ok} requests, ${stats.rollouts} rollouts (${(stats.rollouts / secs).toFixed(0)}/s), p50 ${q(0.5).toFixed(0)} ms, p99 ${q(0.99).toFixed(0)} ms`,
);
console.log(
  `429: ${stats.r429}; other statuses: ${JSON.stringify(stats.otherStatus)}; connection errors: ${stats.connErrors}; answers with wrong ids: ${stats.mismatched}`,
);
console.log(`ids sent ${sent}, lost ${lost}, duplicated ${dup}`);
console.log(`RSS MiB (1 s samples): ${rssSamples.map((s) => mib(s.rss)).join(" ")}`);
console.log(`main-thread heap used MiB: ${rssSamples.map((s) => mib(s.heap)).join(" ")}`);
console.log(
  `RSS from ${from.toFixed(0)} s (${fullAt === undefined ? "second half: the cache never filled" : "verdict cache full"}) to the end: median ${mib(median)} MiB, max deviation ${(spread * 100).toFixed(1)} %; max queue depth ${Math.max(0, ...rssSamples.map((s) => s.depth))}`,
);
console.log(
  `server metrics: ${metrics
    .split("\n")
    .filter((l) => /^rewardkit_(rollouts_scored_total|cache_hit_ratio|rollout_deadline_exceeded_total) /.test(l))
    .join("; ")}; exit code ${code}`,
);

const failures = [];
if (Object.keys(stats.otherStatus).length || stats.connErrors) failures.push("errors other than 429");
if (stats.r429 === 0) failures.push("no 429: the load did not saturate the queue");
if (stats.mismatched) failures.push("answers with wrong ids");
if (lost || dup) failures.push("lost or duplicated results");
if (!(spread <= 0.2)) failures.push("RSS not flat within 20 %");
if (code !== 0) failures.push(`server exit code ${code}`);
console.log(
  failures.length
    ? `FAIL: ${failures.join("; ")}`
    : "PASS: no errors but 429s, nothing lost or duplicated, RSS flat within 20 %",
);
process.exitCode = failures.length ? 1 : 0;
