#!/usr/bin/env node
// Advantage-estimator benchmark: 1 M rollouts in groups of 16 with 4 components. Each estimator runs through
// rewardkit's kernel (`estimator.compute` on Float64Arrays and a prebuilt group index) and through a numpy
// implementation of the same formula with general group ids (np.bincount, bench/advantages.py), in the same run,
// interleaved call by call (round r: every estimator once on each side, in a rotated order); the table gives
// medians over the rounds and the median [min … max] of the per-round paired ratios. Then the one-call
// `advantages()` API (plain JS arrays, string group ids) against its own kernel.
// Run: npm run build && npm run bench:advantages   [-- --n 1000000 --group 16 --rounds 9 --only grpo,gdpo]
// numpy: Debian's python3-numpy (`apt-get update && apt-get install -y python3-numpy` as root); without it the
// numpy columns are skipped with a message.
// The estimator list is the registry's: an estimator with no numpy version in bench/advantages.py stops the run
// (exit 1, naming it), and so does an output that differs from numpy's by more than 1e-9.
// BENCH_SMOKE=1: 4 096 rollouts, one round, the API comparison left out; the last line says `smoke: agree (…)`,
// `smoke: skipped (…)` (no numpy) or `smoke: DISAGREE (…)` (exit 1). test/bench-smoke.test.ts runs it.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { advantages } from "../dist/advantage/compute.js";
import { buildGroupIndex } from "../dist/advantage/groups.js";
import { presetOptions } from "../dist/advantage/presets.js";
import { getEstimator, MULTI_COMPONENT, SINGLE_REWARD } from "../dist/advantage/registry.js";

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const SMOKE = process.env.BENCH_SMOKE === "1";
const n = Number(arg("n", SMOKE ? 4096 : 1_000_000));
const gs = Number(arg("group", 16));
const K = 4;
const rounds = SMOKE ? 1 : Math.max(7, Number(arg("rounds", 9)));
const TOLERANCE = 1e-9; // max |Δ| against numpy (the golden tests hold 1e-12 on small batches)
const only = arg("only", "");
const G = Math.floor(n / gs);
const N = G * gs;

// deterministic batch (xorshift32): accuracy-like binary, a continuous format score on a 1e-3 grid, a sparse
// overlong penalty in [−1, 0], and a 5-level judge score; reward = their weighted sum. Strata 0/1 (for `stratified`).
let seed = 0x9e3779b9;
const rand = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 4294967296;
};
const names4 = ["accuracy", "format", "overlong", "judge"];
const weights = { accuracy: 1, format: 0.5, overlong: 1, judge: 0.25 };
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
    rewards[i] = comps[0][i] + 0.5 * comps[1][i] + comps[2][i] + 0.25 * comps[3][i];
    lengths[i] = 100 + Math.floor(rand() * 4000);
    strata[i] = rand() < 0.5 ? 0 : 1;
  }
}
const input = {
  rewards,
  groups: buildGroupIndex(groupIds),
  components: { names: names4, scores: comps },
  lengths,
  strata,
};

// the peer convention each estimator is timed with (verl's, as the golden tests), and explicit options
const options = { reinforce_pp: { whiten: "token" } }; // verl's masked_whiten over the response tokens
const presets = {
  grpo: "verl",
  dr_grpo: "verl",
  rloo: "verl",
  reinforce_pp_baseline: "verl",
  opo: "verl",
  gpg: "verl",
  grpo_passk: "verl",
  gdpo: "verl",
};
const names = [...SINGLE_REWARD, ...MULTI_COMPONENT].filter((e) => !only || only.split(",").includes(e));
const resolved = Object.fromEntries(
  names.map((name) => {
    const est = getEstimator(name);
    const raw = {
      ...(presets[name] ? presetOptions(name, presets[name]) : {}),
      ...(options[name] ?? {}),
      ...(MULTI_COMPONENT.includes(name) ? { weights } : {}),
    };
    return [name, { est, opts: est.options.parse(raw) }];
  }),
);
const now = () => Number(process.hrtime.bigint()) / 1e9;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// numpy worker, fed the same batch
const dir = mkdtempSync(join(tmpdir(), "rk-bench-"));
let py = null;
let npNote = "";
const probe = spawnSync("python3", ["-c", "import numpy; print(numpy.__version__)"], { encoding: "utf8" });
if (probe.status !== 0) {
  npNote = probe.error
    ? "python3 not found: numpy columns skipped (install: apt-get update && apt-get install -y python3 python3-numpy)"
    : "numpy not installed: numpy columns skipped (install Debian's python3-numpy: apt-get update && apt-get install -y python3-numpy)";
} else {
  writeFileSync(join(dir, "rewards.f64"), Buffer.from(rewards.buffer));
  const flat = new Float64Array(K * N);
  comps.forEach((c, k) => flat.set(c, k * N));
  writeFileSync(join(dir, "components.f64"), Buffer.from(flat.buffer));
  writeFileSync(join(dir, "lengths.f64"), Buffer.from(lengths.buffer));
  writeFileSync(join(dir, "strata.f64"), Buffer.from(Float64Array.from(strata).buffer));
  writeFileSync(join(dir, "groups.i32"), Buffer.from(groupIds.buffer));
  const child = spawn(
    "python3",
    [new URL("./advantages.py", import.meta.url).pathname, dir, String(N), String(K), names.join(",")],
    { stdio: ["pipe", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
    process.stderr.write(d);
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => (await lines.next()).value;
  if ((await next()) !== "ready") {
    // bench/advantages.py names the estimators it lacks (exit 2) before it loads anything
    const why = stderr.trim().split("\n").pop() || "no output";
    console.error(`bench:advantages: the numpy worker did not start: ${why}`);
    if (SMOKE) console.log(`smoke: DISAGREE (${why})`);
    rmSync(dir, { recursive: true, force: true });
    process.exit(1);
  }
  py = { child, call: async (name) => (child.stdin.write(`${name}\n`), JSON.parse(await next()).s) };
  npNote = `numpy ${probe.stdout.trim()} (bincount over group ids)`;
}

try {
  // rewardkit is timed writing into a reused output buffer (`compute(input, options, out)`, numpy's `out=`: numpy's
  // allocator hands back the freed block of the previous result, while a fresh 8 MB typed array costs its page
  // faults every call) and, in the "fresh" column, allocating a new array per call
  const rk = Object.fromEntries(names.map((x) => [x, []]));
  const fresh = Object.fromEntries(names.map((x) => [x, []]));
  const np = Object.fromEntries(names.map((x) => [x, []]));
  const buffer = new Float64Array(N);
  const outputs = {};
  for (const name of names) outputs[name] = resolved[name].est.compute(input, resolved[name].opts); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (let j = 0; j < names.length; j++) {
      const name = names[(j + r) % names.length];
      const { est, opts } = resolved[name];
      const rkFirst = (r + j) % 2 === 0;
      if (py && !rkFirst) np[name].push(await py.call(name));
      let t = now();
      est.compute(input, opts, buffer);
      rk[name].push(now() - t);
      t = now();
      est.compute(input, opts);
      fresh[name].push(now() - t);
      if (py && rkFirst) np[name].push(await py.call(name));
    }
  }
  const fmt = (s) => `${(s * 1e3).toFixed(1)} ms`;
  console.log(
    `advantage estimators: ${N.toLocaleString("en")} rollouts, groups of ${gs}, ${K} components, medians of ${rounds} interleaved rounds; Node ${process.version}; ${npNote}`,
  );
  console.log(
    `${"estimator".padEnd(22)} ${"kind".padEnd(6)} ${"rewardkit".padStart(10)} ${"numpy".padStart(10)} ${"ratio".padStart(7)}  ${"paired [min … max]".padStart(22)}  ${"max |Δ|".padStart(9)}  ${"fresh".padStart(9)} ${"ratio".padStart(6)}`,
  );
  let slowMulti = 0;
  const diverged = [];
  for (const name of names) {
    const kind = MULTI_COMPONENT.includes(name) ? "multi" : "single";
    const mr = median(rk[name]);
    const mf = median(fresh[name]);
    let cols = `${"—".padStart(10)} ${"—".padStart(7)}  ${"—".padStart(22)}  ${"—".padStart(9)}  ${fmt(mf).padStart(9)} ${"—".padStart(6)}`;
    if (py) {
      const mn = median(np[name]);
      const paired = rk[name].map((t, i) => np[name][i] / t);
      const ref = new Float64Array(readFileSync(join(dir, `np-${name}.f64`)).buffer.slice(0));
      let maxDiff = 0;
      for (let i = 0; i < N; i++) {
        const a = ref[i];
        const b = outputs[name][i];
        if (a !== a || b !== b)
          maxDiff = a !== a && b !== b ? maxDiff : Infinity; // NaN on one side only
        else maxDiff = Math.max(maxDiff, Math.abs(a - b));
      }
      if (!(maxDiff <= TOLERANCE)) diverged.push(`${name} ${maxDiff.toExponential(1)}`);
      if (kind === "multi" && mn / mr < 1) slowMulti++;
      cols = `${fmt(mn).padStart(10)} ${`${(mn / mr).toFixed(2)}×`.padStart(7)}  ${`${median(paired).toFixed(2)} [${Math.min(...paired).toFixed(2)} … ${Math.max(...paired).toFixed(2)}]`.padStart(22)}  ${maxDiff.toExponential(1).padStart(9)}  ${fmt(mf).padStart(9)} ${`${(mn / mf).toFixed(2)}×`.padStart(6)}`;
    }
    console.log(`${name.padEnd(22)} ${kind.padEnd(6)} ${fmt(mr).padStart(10)} ${cols}`);
  }
  console.log(
    "ratio = numpy median time ÷ rewardkit median time (> 1: rewardkit faster); paired = the same per round;",
  );
  console.log("rewardkit writes into a reused output buffer (out=); fresh = a new output array per call.");
  if (slowMulti) console.log(`${slowMulti} multi-component estimator(s) slower than numpy`);
  if (!py) {
    if (SMOKE) console.log(`smoke: skipped (${npNote})`);
  } else if (diverged.length) {
    console.log(
      `${SMOKE ? "smoke: DISAGREE" : "outputs differ from numpy"} (max |Δ| > ${TOLERANCE}: ${diverged.join(", ")})`,
    );
    process.exitCode = 1;
  } else if (SMOKE) console.log(`smoke: agree (${names.length} estimators, max |Δ| ≤ ${TOLERANCE} against numpy)`);

  // the one-call API: plain arrays and string group ids (what a user passes) against the kernel on typed arrays
  const plainRewards = Array.from(rewards);
  const keys = Array.from(groupIds, (g) => `prompt-${g}`);
  const plainComps = Object.fromEntries(names4.map((k, j) => [k, Array.from(comps[j])]));
  const api = SMOKE ? [] : ["grpo", "gdpo"].filter((x) => names.includes(x));
  const times = Object.fromEntries(
    api.flatMap((x) => [
      [`${x}:api`, []],
      [`${x}:kernel`, []],
    ]),
  );
  for (const name of api)
    advantages(
      { rewards: plainRewards, groups: keys, components: plainComps, lengths },
      { estimator: name, preset: "verl", options: name === "gdpo" ? { weights } : {} },
    );
  for (let r = 0; r < rounds; r++) {
    for (const name of api) {
      const { est, opts } = resolved[name];
      let t = now();
      advantages(
        { rewards: plainRewards, groups: keys, components: plainComps, lengths },
        { estimator: name, preset: "verl", options: name === "gdpo" ? { weights } : {} },
      );
      times[`${name}:api`].push(now() - t);
      t = now();
      est.compute(input, opts); // fresh output, as advantages() returns one
      times[`${name}:kernel`].push(now() - t);
    }
  }
  for (const name of api) {
    const a = median(times[`${name}:api`]);
    const k = median(times[`${name}:kernel`]);
    console.log(
      `advantages() ${name}, plain arrays + string group ids: ${fmt(a)} vs kernel ${fmt(k)}: ${(a / k).toFixed(2)}× the kernel`,
    );
  }
} finally {
  if (py) py.child.stdin.end();
  rmSync(dir, { recursive: true, force: true });
}
