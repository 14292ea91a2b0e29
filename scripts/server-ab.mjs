#!/usr/bin/env node
/**
 * Same-run A/B of the reward server's CPU per rollout between builds: for each ROUND, each build's server is started
 * in turn (`<root>/bin/rewardkit.js serve`, the math spec), warmed W seconds at each shape, then measured M seconds at
 * batch 1 × 16 in flight and at batch 256 × 4; server CPU (user + system, every thread) from /proc. Prints one line
 * per server run: µs/rollout at batch 1, at batch 256, and their ratio.
 *
 * Usage: node scripts/server-ab.mjs ROOT_A ROOT_B …   (each ROOT a checkout with `node_modules/` and `dist/` built,
 *        e.g. `git worktree add ../base <commit> && cp -a node_modules ../base/ && (cd ../base && npm run build)`).
 *        Env: ROUNDS=2, W=5, M=4, SPEC=examples/math.yaml.
 */
import { spawn } from "node:child_process";
import http from "node:http";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { mathRows, request, ROOT, tag } from "../bench/server-common.mjs";

const roots = process.argv.slice(2).map((r) => resolve(r));
if (roots.length === 0) {
  console.error("usage: node scripts/server-ab.mjs ROOT_A [ROOT_B …]");
  process.exit(2);
}
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const W = Number(process.env.W ?? 5);
const M = Number(process.env.M ?? 4);
const SPEC = resolve(ROOT, process.env.SPEC ?? "examples/math.yaml");

const tpls = mathRows().map((r) =>
  JSON.stringify({
    id: "@I@",
    group: r.group,
    prompt: r.prompt,
    completion: `${r.completion}\n@N@`,
    reference: r.reference,
  }),
);
let nonce = 0;
/** A request body of `b` rollouts, every completion unique (no verdict-cache hits). */
function body(b) {
  const parts = [];
  for (let i = 0; i < b; i++) {
    const n = nonce++;
    parts.push(tpls[n % tpls.length].replace("@I@", `r${n}`).replace("@N@", tag(n)));
  }
  return `{"rollouts":[${parts.join(",")}]}`;
}
/** CPU seconds of a process so far (utime + stime, clock ticks of 1/100 s). */
function cpu(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
}
function start(root) {
  const child = spawn(
    process.execPath,
    [
      `${root}/bin/rewardkit.js`,
      "serve",
      "--spec",
      SPEC,
      "--port",
      "0",
      "--max-queue",
      "1000000",
      "--max-rollouts",
      "4096",
    ],
    { cwd: root, stdio: ["ignore", "ignore", "pipe"] },
  );
  let log = "";
  return new Promise((res, rej) => {
    child.stderr.on("data", (d) => {
      log += d;
      const m = /on http:\/\/127\.0\.0\.1:(\d+)/.exec(log);
      if (m) res({ child, port: Number(m[1]) });
    });
    child.once("exit", (code) => rej(new Error(`server from ${root} exited ${code}: ${log}`)));
  });
}

for (let round = 0; round < ROUNDS; round++)
  for (const root of roots) {
    const { child, port } = await start(root);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
    const load = async (batch, inflight, seconds) => {
      const end = performance.now() + seconds * 1000;
      let n = 0;
      await Promise.all(
        Array.from({ length: inflight }, async () => {
          while (performance.now() < end) {
            const r = await request(agent, port, "POST", "/v1/score", body(batch));
            if (r.status !== 200) throw new Error(`status ${r.status}: ${r.text.slice(0, 200)}`);
            n += batch;
          }
        }),
      );
      return n;
    };
    const out = [];
    for (const [batch, inflight] of [
      [1, 16],
      [256, 4],
    ]) {
      await load(batch, inflight, W);
      const c0 = cpu(child.pid);
      const n = await load(batch, inflight, M);
      out.push(((cpu(child.pid) - c0) / n) * 1e6);
    }
    console.log(
      `round ${round + 1}  ${root}  batch 1: ${out[0].toFixed(1)} µs/rollout  batch 256: ${out[1].toFixed(1)} µs/rollout  ratio ${(out[0] / out[1]).toFixed(2)}`,
    );
    agent.destroy();
    child.removeAllListeners("exit");
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
  }
