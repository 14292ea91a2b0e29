#!/usr/bin/env node
// Advantage-estimator benchmark: 1 M rollouts in groups of 16 with 4 components, rollouts/s per estimator,
// beside a plain numpy implementation of the same formulas (bench/advantages.py) run on the same batch.
// Run: npm run build && npm run bench:advantages   [-- --n 1000000 --group 16 --repeats 5 --only grpo,gdpo]
// numpy: Debian's python3-numpy (`apt-get update && apt-get install -y python3-numpy` as root); without it the
// numpy column is skipped with a message.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildGroupIndex } from "../dist/advantage/groups.js";
import { presetOptions } from "../dist/advantage/presets.js";
import { getEstimator, MULTI_COMPONENT, SINGLE_REWARD } from "../dist/advantage/registry.js";

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const n = Number(arg("n", 1_000_000));
const gs = Number(arg("group", 16));
const K = 4;
const repeats = Number(arg("repeats", 5));
const only = arg("only", "");
const G = Math.floor(n / gs);
const N = G * gs;

// deterministic batch (xorshift32): accuracy-like binary, a continuous format score on a 1e-3 grid, a sparse
// overlong penalty in [−1, 0], and a 5-level judge score; reward = their sum. Strata 0/1 (for `stratified`).
let seed = 0x9e3779b9;
const rand = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 4294967296;
};
const comps = Array.from({ length: K }, () => new Float64Array(N));
const rewards = new Float64Array(N);
const lengths = new Float64Array(N);
const strata = new Int32Array(N);
const groupIds = new Int32Array(N);
for (let g = 0; g < G; g++) {
  const p = rand();
  for (let j = 0; j < gs; j++) {
    const i = g * gs + j;
    groupIds[i] = g;
    comps[0][i] = rand() < p ? 1 : 0;
    comps[1][i] = Math.round(rand() * 1000) / 1000;
    comps[2][i] = rand() < 0.1 ? -Math.round(rand() * 100) / 100 : 0;
    comps[3][i] = Math.floor(rand() * 5) / 4;
    rewards[i] = comps[0][i] + comps[1][i] + comps[2][i] + comps[3][i];
    lengths[i] = 100 + Math.floor(rand() * 4000);
    strata[i] = rand() < 0.5 ? 0 : 1;
  }
}
const input = {
  rewards,
  groups: buildGroupIndex(groupIds),
  components: { names: ["accuracy", "format", "overlong", "judge"], scores: comps },
  lengths,
  strata,
};

const presets = { grpo: "verl", dr_grpo: "verl", rloo: "verl", reinforce_pp_baseline: "verl", opo: "verl", gpg: "verl", grpo_passk: "verl", gdpo: "verl" };
const names = [...SINGLE_REWARD, ...MULTI_COMPONENT].filter((e) => !only || only.split(",").includes(e));
// Timed twice: into a reused output buffer (`compute(input, options, out)`, like numpy's allocator reusing the
// freed block of the previous result), and with a fresh 8 MB array per call (V8 zero-fills new large arrays).
const ts = {};
const fresh = {};
const outputs = {};
const buffer = new Float64Array(N);
const time = (f) => {
  f(); // warm-up
  let best = Infinity;
  for (let r = 0; r < repeats; r++) {
    const t = process.hrtime.bigint();
    f();
    best = Math.min(best, Number(process.hrtime.bigint() - t) / 1e9);
  }
  return best;
};
for (const name of names) {
  const est = getEstimator(name);
  const opts = est.options.parse(presets[name] ? presetOptions(name, presets[name]) : {});
  ts[name] = time(() => est.compute(input, opts, buffer));
  fresh[name] = time(() => (outputs[name] = est.compute(input, opts)));
}

// numpy, on the same batch
const dir = mkdtempSync(join(tmpdir(), "rk-bench-"));
let np = null;
let npNote = "";
try {
  writeFileSync(join(dir, "rewards.f64"), Buffer.from(rewards.buffer));
  const flat = new Float64Array(K * N);
  comps.forEach((c, k) => flat.set(c, k * N));
  writeFileSync(join(dir, "components.f64"), Buffer.from(flat.buffer));
  writeFileSync(join(dir, "lengths.f64"), Buffer.from(lengths.buffer));
  writeFileSync(join(dir, "strata.f64"), Buffer.from(Float64Array.from(strata).buffer));
  const probe = spawnSync("python3", ["-c", "import numpy; print(numpy.__version__)"], { encoding: "utf8" });
  if (probe.status !== 0) {
    npNote = probe.error
      ? "python3 not found: numpy column skipped (install: apt-get update && apt-get install -y python3 python3-numpy)"
      : "numpy not installed: numpy column skipped (install Debian's python3-numpy: apt-get update && apt-get install -y python3-numpy)";
  } else {
    const script = new URL("./advantages.py", import.meta.url).pathname;
    const r = spawnSync("python3", [script, dir, String(N), String(gs), String(K), String(repeats), names.join(",")], { encoding: "utf8", maxBuffer: 1 << 24 });
    if (r.status !== 0) npNote = `numpy run failed: ${r.stderr.trim().split("\n").pop()}`;
    else {
      np = JSON.parse(r.stdout);
      npNote = `numpy ${probe.stdout.trim()}`;
      for (const name of names) {
        const ref = new Float64Array(readFileSync(join(dir, `np-${name}.f64`)).buffer.slice(0));
        let maxDiff = 0;
        for (let i = 0; i < N; i++) maxDiff = Math.max(maxDiff, Math.abs(ref[i] - outputs[name][i]));
        np[name].maxDiff = maxDiff;
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const fmt = (x) => (x >= 1e6 ? `${(x / 1e6).toFixed(1)} M` : `${(x / 1e3).toFixed(0)} k`);
console.log(`advantage estimators: ${N.toLocaleString("en")} rollouts, groups of ${gs}, ${K} components, best of ${repeats}; Node ${process.version}; ${npNote}`);
console.log(`${"estimator".padEnd(22)} ${"kind".padEnd(6)} ${"rewardkit/s".padStart(12)} ${"numpy/s".padStart(10)} ${"ratio".padStart(7)}  ${"fresh/s".padStart(9)} ${"ratio".padStart(7)}  ${"max |Δ|".padStart(9)}`);
let slow = 0;
for (const name of names) {
  const kind = MULTI_COMPONENT.includes(name) ? "multi" : "single";
  const rk = N / ts[name];
  const nps = np ? N / np[name].seconds : null;
  const ratio = nps ? rk / nps : null;
  const fr = N / fresh[name];
  if (kind === "single" && ratio !== null && ratio < 0.5) slow++;
  console.log(
    `${name.padEnd(22)} ${kind.padEnd(6)} ${fmt(rk).padStart(12)} ${(nps ? fmt(nps) : "—").padStart(10)} ${(ratio ? `${ratio.toFixed(2)}×` : "—").padStart(7)}  ${fmt(fr).padStart(9)} ${(nps ? `${(fr / nps).toFixed(2)}×` : "—").padStart(7)}  ${(np ? np[name].maxDiff.toExponential(1) : "—").padStart(9)}`,
  );
}
console.log("ratio = rewardkit rollouts/s ÷ numpy rollouts/s (≥ 0.5 means within 2× of numpy; > 1 faster). rewardkit/s writes into a");
console.log("reused output buffer (single-reward estimators take `out`; multi-component ones allocate anyway); fresh/s allocates per call.");
if (slow) console.log(`${slow} single-reward estimator(s) slower than 2× numpy`);
