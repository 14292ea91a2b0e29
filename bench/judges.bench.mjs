#!/usr/bin/env node
// Judge client benchmark: N rollouts scored by a `judge` component (the whole score job: JSONL in, scored JSONL out)
// against a replay server in another process that answers every chat completion after a fixed latency. The ideal
// time is ceil(N / concurrency) × latency (the endpoint's latency is the only cost); beside it, bare request loops
// (global fetch, and node:http with a keep-alive agent — the transport rewardkit's client uses) with the same
// concurrency against the same server: the best any client could do on this machine. Medians of interleaved runs.
// Run: npm run bench:judges   [-- --n 1000 --latency 20 --concurrency 32 --repeats 5]
// BENCH_SMOKE=1 (test/bench-smoke.test.ts): 64 rollouts, 5 ms, concurrency 8, one run; the last line is
// `smoke: agree (…)` when every rollout's judge score is the replayed rating (7 on 1–10: 2/3), else `smoke: DISAGREE (…)`
// and exit 1. No speed is judged.
import { spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileSpec } from "../dist/spec/compile.js";
import { scoreFile } from "../dist/engine/score-file.js";

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const SMOKE = process.env.BENCH_SMOKE === "1";
const N = arg("n", SMOKE ? 64 : 1000);
const LATENCY = arg("latency", SMOKE ? 5 : 20);
const C = arg("concurrency", SMOKE ? 8 : 32);
const REPEATS = SMOKE ? 1 : arg("repeats", 5);

const SERVER = `
const http = require("node:http");
const s = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => setTimeout(() => {
    const body = JSON.stringify({ object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: "Fine. Rating: [[7]]" }, finish_reason: "stop" }], usage: { prompt_tokens: 50, completion_tokens: 8 } });
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  }, ${LATENCY}));
});
s.keepAliveTimeout = 60000;
s.listen(0, "127.0.0.1", () => console.log(s.address().port));
`;

const server = spawn(process.execPath, ["-e", SERVER], { stdio: ["ignore", "pipe", "inherit"] });
const port = await new Promise((ok) => server.stdout.once("data", (d) => ok(Number(String(d).trim()))));
const url = `http://127.0.0.1:${port}/v1`;
const dir = mkdtempSync(join(tmpdir(), "rk-bench-judges-"));

let lastJudge;
try {
  let run = 0;
  async function judgeRun() {
    run++;
    const input = join(dir, `in-${run}.jsonl`);
    // distinct prompts every run: nothing is served from the cache
    writeFileSync(
      input,
      Array.from({ length: N }, (_, k) =>
        JSON.stringify({ id: `r${k}`, group: `g${k % 125}`, prompt: "p", completion: `run ${run} answer ${k}` }),
      ).join("\n") + "\n",
    );
    const c = compileSpec(
      {
        components: [
          {
            name: "judge",
            type: "judge",
            baseUrl: url,
            model: "m",
            template: "{{completion}}",
            parse: "mt-bench",
            concurrency: C,
          },
        ],
      },
      "bench",
    );
    if ("issues" in c) throw new Error(JSON.stringify(c.issues));
    const t0 = performance.now();
    const s = await scoreFile(c.spec, { input, output: join(dir, `out-${run}.jsonl`), concurrency: 2 });
    const ms = performance.now() - t0;
    if (s.judges.judge.calls !== N || s.components.judge.mean === null)
      throw new Error(`bad run: ${JSON.stringify(s.judges)}`);
    if (SMOKE) {
      // the replay answers "Rating: [[7]]" to every request: mt-bench's (7 − 1)/9 for each rollout
      const scored = readFileSync(join(dir, `out-${run}.jsonl`), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      lastJudge = { rollouts: scored.length, off: scored.filter((r) => Math.abs(r.reward - 2 / 3) > 1e-6).length };
    }
    return ms;
  }
  async function bareRun() {
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: C }, async () => {
        while (next < N) {
          const k = next++;
          const res = await fetch(`${url}/chat/completions`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ model: "m", messages: [{ role: "user", content: `bare ${k}` }] }),
          });
          await res.json();
        }
      }),
    );
    return performance.now() - t0;
  }
  const agent = new Agent({ keepAlive: true, maxSockets: C });
  async function httpRun() {
    let next = 0;
    const t0 = performance.now();
    const one = (k) =>
      new Promise((ok, fail) => {
        const body = JSON.stringify({ model: "m", messages: [{ role: "user", content: `http ${k}` }] });
        const req = request(
          `${url}/chat/completions`,
          {
            method: "POST",
            agent,
            headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
          },
          (res) => {
            const chunks = [];
            res.on("data", (c) => chunks.push(c));
            res.on("end", () => ok(JSON.parse(Buffer.concat(chunks).toString())));
          },
        );
        req.on("error", fail);
        req.end(body);
      });
    await Promise.all(
      Array.from({ length: C }, async () => {
        while (next < N) await one(next++);
      }),
    );
    return performance.now() - t0;
  }
  await bareRun(); // warm-up: connections, JIT
  await httpRun();
  await judgeRun();
  const judge = [];
  const bare = [];
  const http = [];
  for (let r = 0; r < REPEATS; r++) {
    bare.push(await bareRun());
    http.push(await httpRun());
    judge.push(await judgeRun());
  }
  agent.destroy();
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const ideal = Math.ceil(N / C) * LATENCY;
  const j = median(judge);
  const b = median(bare);
  const h = median(http);
  console.log(
    `judge bench: ${N} rollouts, replay latency ${LATENCY} ms, concurrency ${C}, ${REPEATS} interleaved runs (medians)`,
  );
  console.log(`  ideal  ceil(N/C)·latency  ${ideal.toFixed(0)} ms`);
  console.log(`  bare fetch loop           ${b.toFixed(0)} ms   ${(b / ideal).toFixed(3)}x ideal`);
  console.log(`  bare node:http loop       ${h.toFixed(0)} ms   ${(h / ideal).toFixed(3)}x ideal`);
  console.log(
    `  rewardkit score (judge)   ${j.toFixed(0)} ms   ${(j / ideal).toFixed(3)}x ideal   ${(j / h).toFixed(3)}x bare node:http   (target < 1.5x ideal)`,
  );
  if (SMOKE) {
    const ok = lastJudge.rollouts === N && lastJudge.off === 0;
    console.log(
      `smoke: ${ok ? "agree" : "DISAGREE"} (${lastJudge.rollouts}/${N} rollouts scored, ${lastJudge.off} not the replayed rating 7 → 2/3)`,
    );
    if (!ok) process.exitCode = 1;
  }
} finally {
  server.kill();
  rmSync(dir, { recursive: true, force: true });
}
