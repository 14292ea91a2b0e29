/**
 * Throughput of the `math` verifier on the 800 bundled rollouts, one thread, against a baseline measured
 * in the same run (compute-engine `parse` + `isEqual` on the same extracted answers, no normalization).
 *
 * Run:  npx tsc -p tsconfig.json --noEmit false && node dist-check/bench/math.bench.js
 * (from the repository root; `dist-check/` is git-ignored scratch output).
 */
import { readFileSync } from "node:fs";
import { ComputeEngine } from "@cortex-js/compute-engine";
import { lastBoxed, loadCas, verifyMath } from "../src/verifiers/math/index.js";

interface Row {
  completion: string;
  reference: string;
}

const rows: Row[] = readFileSync("examples/data/math-rollouts.jsonl", "utf8")
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l) as Row);

async function pass(opts: { cacheSize: number }): Promise<number> {
  const t0 = performance.now();
  for (const r of rows) await verifyMath(r.completion, r.reference, opts);
  return performance.now() - t0;
}

async function main(): Promise<void> {
  const tLoad = performance.now();
  await loadCas();
  const loadMs = performance.now() - tLoad;

  const cold = await pass({ cacheSize: 50_000 }); // empty cache: every (gold, pred) pair computed once
  const warm = await pass({ cacheSize: 50_000 }); // same options object shape → same cache, all hits
  const noCache: number[] = [];
  for (let k = 0; k < 5; k++) noCache.push(await pass({ cacheSize: 0 }));
  noCache.sort((a, b) => a - b);

  const ce = new ComputeEngine();
  const t0 = performance.now();
  for (const r of rows) {
    const p = lastBoxed(r.completion) ?? "";
    void ce.parse(r.reference).isEqual(ce.parse(p));
  }
  const baseline = performance.now() - t0;

  const rate = (ms: number) => Math.round((rows.length / ms) * 1000);
  const table = [
    ["compute-engine parse+isEqual (baseline)", rate(baseline), 1],
    ["verifyMath, cold cache", rate(cold), rate(cold) / rate(baseline)],
    ["verifyMath, cache disabled (median of 5)", rate(noCache[2] ?? 0), rate(noCache[2] ?? 0) / rate(baseline)],
    ["verifyMath, warm cache", rate(warm), rate(warm) / rate(baseline)],
  ] as const;
  console.log(`CAS load (import + construct): ${loadMs.toFixed(0)} ms (once per process, not in the rates)`);
  console.log("| run | samples/s | × baseline |\n|---|---:|---:|");
  for (const [name, r, x] of table) console.log(`| ${name} | ${r} | ${x.toFixed(1)} |`);
}

await main();
