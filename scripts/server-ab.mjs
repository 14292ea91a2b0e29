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
import http from "node:http";
import { resolve } from "node:path";
import {
  cpuSeconds,
  mathRows,
  request,
  ROOT,
  rolloutTemplates,
  startServer,
  uniqueBody,
} from "../bench/server-common.mjs";

const roots = process.argv.slice(2).map((r) => resolve(r));
if (roots.length === 0) {
  console.error("usage: node scripts/server-ab.mjs ROOT_A [ROOT_B …]");
  process.exit(2);
}
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const W = Number(process.env.W ?? 5);
const M = Number(process.env.M ?? 4);
const SPEC = resolve(ROOT, process.env.SPEC ?? "examples/math.yaml");
const tpls = rolloutTemplates(mathRows());

for (let round = 0; round < ROUNDS; round++)
  for (const root of roots) {
    const { child, port } = await startServer(SPEC, ["--max-queue", "1000000", "--max-rollouts", "4096"], root);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
    const load = async (batch, inflight, seconds) => {
      const end = performance.now() + seconds * 1000;
      let n = 0;
      await Promise.all(
        Array.from({ length: inflight }, async () => {
          while (performance.now() < end) {
            const r = await request(agent, port, "POST", "/v1/score", uniqueBody(tpls, batch));
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
      const c0 = cpuSeconds(child.pid);
      const n = await load(batch, inflight, M);
      out.push(((cpuSeconds(child.pid) - c0) / n) * 1e6);
    }
    console.log(
      `round ${round + 1}  ${root}  batch 1: ${out[0].toFixed(1)} µs/rollout  batch 256: ${out[1].toFixed(1)} µs/rollout  ratio ${(out[0] / out[1]).toFixed(2)}`,
    );
    agent.destroy();
    child.removeAllListeners("exit");
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
  }
