/**
 * One fresh process of `npm run bench:math`'s side-by-side: rewardkit's math verifier over a pairs file, the cold
 * scoring loop (the first pass of this process: cold JIT, caches empty, the CAS loaded only if an answer needs it)
 * and then a warm one (the same pairs again after emptying the verdict caches).
 *
 * Usage: node bench/math-loop.mjs PAIRS.jsonl   (each line: {"completion": ..., "reference": ...}; after `npm run build`)
 * Prints one JSON line: {"cold": {"wall": s, "cpu": s}, "warm": {...}, "n": pairs, "correct": pairs scored 1}. CPU is
 * this process's user + system time over the loop (every thread: compiler and GC threads count), wall the elapsed time.
 */
import { readFileSync } from "node:fs";
import { clearMathCache, verifyMath } from "../dist/verifiers/math/index.js";

const rows = readFileSync(process.argv[2], "utf8")
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l));

async function pass() {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let correct = 0;
  for (const r of rows) {
    let v = verifyMath(r.completion, r.reference);
    if (v instanceof Promise) v = await v; // the first answer that needs the CAS loads it
    if (v.score === 1) correct++;
  }
  const c = process.cpuUsage(c0);
  return { wall: (performance.now() - t0) / 1000, cpu: (c.user + c.system) / 1e6, correct };
}

const cold = await pass();
clearMathCache();
const warm = await pass();
console.log(
  JSON.stringify({
    cold: { wall: cold.wall, cpu: cold.cpu },
    warm: { wall: warm.wall, cpu: warm.cpu },
    n: rows.length,
    correct: cold.correct,
  }),
);
