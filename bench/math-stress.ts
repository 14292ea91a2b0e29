/**
 * `npm run stress:math`: 10 000 random and pathological strings through the `math` verifier in the worker
 * pool, each under a hard deadline. Every one must come back as a verdict, `parse_error`, `undecidable`,
 * `no_answer` or `timeout` within its deadline + 100 ms. Prints the slowest ten and exits 1 on a failure.
 *
 * Flags: `--n 10000` (inputs), `--seed 1`, `--deadline 2000` (ms), `--threads 2`, `--inline` (no pool:
 * in-process timing of everything except the `spin` kind, to hunt slow paths).
 *
 * First, the linear-time check of extraction: every 1 MB shape of `math-shapes.ts` is scored in this thread,
 * three interleaved rounds, and the median ms per MB of each is printed with the slowest shape, next to a
 * baseline measured in the same rounds (one `toLowerCase` copy of the text, the least any reader of the
 * text costs); a shape whose answer is at the end must still score 1 (goal: under 50 ms per MB).
 */
import { availableParallelism } from "node:os";
import type { VerifierPool as Pool } from "../src/engine/pool.js";
import type { ComponentResult } from "../src/core/types.js";
import { stressCases, type StressCase } from "./math-stress-gen.js";
import { megabyteShapes } from "./math-shapes.js";

function flag(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
}

const n = flag("n", 10_000);
const seed = flag("seed", 1);
const deadline = flag("deadline", 2000);
const threads = flag("threads", Math.min(2, availableParallelism()));
const inline = process.argv.includes("--inline");
const ALLOWED = new Set([
  "wrong_answer",
  "multiple_answers",
  "parse_error",
  "undecidable",
  "no_answer",
  "no_reference",
  "timeout",
  undefined,
]);

interface Row {
  c: StressCase;
  ms: number;
  r: ComponentResult;
}

/** Median ms/MB of every 1 MB shape (three interleaved rounds); returns false when a right answer is lost. */
async function shapes(): Promise<boolean> {
  const { verifyMath, loadCas } = await import("../src/verifiers/math/index.js");
  await loadCas();
  await verifyMath("\\boxed{\\sqrt{2}+\\frac{1}{3}}", "\\frac{1}{3}+\\sqrt{2}"); // JIT and CAS warm-up
  const all = megabyteShapes();
  const times = new Map<string, number[]>();
  const base: number[] = [];
  let lost = 0;
  for (let round = 0; round < 3; round++) {
    for (const s of all) {
      const mb = s.text.length / (1 << 20);
      let t = performance.now();
      void s.text.toLowerCase();
      base.push((performance.now() - t) / mb);
      t = performance.now();
      const r = await verifyMath(s.text, "42", { cacheSize: 0 });
      const ms = (performance.now() - t) / mb;
      times.set(s.name, [...(times.get(s.name) ?? []), ms]);
      if (round === 0 && s.right && r.score !== 1) {
        lost++;
        console.log(`LOST ${s.name}: ${JSON.stringify(r).slice(0, 160)}`);
      }
    }
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const rows = [...times].map(([name, xs]) => ({ name, ms: med(xs) })).sort((a, b) => b.ms - a.ms);
  const mean = rows.reduce((a, r) => a + r.ms, 0) / rows.length;
  console.log(`1 MB shapes (${rows.length}, in-process, median of 3 interleaved rounds), ms per MB — slowest five:`);
  for (const r of rows.slice(0, 5)) console.log(`  ${r.ms.toFixed(1).padStart(7)}  ${r.name}`);
  console.log(
    `slowest shape: ${rows[0]?.name} ${rows[0]?.ms.toFixed(1)} ms/MB; mean ${mean.toFixed(1)} ms/MB; baseline (toLowerCase copy) ${med(base).toFixed(1)} ms/MB; goal < 50 ms/MB`,
  );
  return lost === 0;
}

async function main(): Promise<void> {
  const shapesOk = await shapes();
  const cases = stressCases(n, seed).filter((c) => !inline || c.kind !== "spin");
  const rows: Row[] = [];
  let t0 = performance.now();
  if (inline) {
    const { verifyMath, loadCas } = await import("../src/verifiers/math/index.js");
    await loadCas();
    for (const c of cases) {
      const s = performance.now();
      if (c.kind === "patho") process.stderr.write(`  ${c.name}…\n`);
      const r = await verifyMath(c.completion, c.reference);
      const took = performance.now() - s;
      if (took > 100)
        process.stderr.write(
          `  slow: ${took.toFixed(0)} ms ${c.name} ${JSON.stringify(c.completion.slice(0, 120))} gold ${JSON.stringify(c.reference.slice(0, 60))}\n`,
        );
      rows.push({ c, ms: took, r });
    }
  } else {
    const { VerifierPool } = (await import(new URL("../../dist/engine/pool.js", import.meta.url).href)) as {
      VerifierPool: typeof Pool;
    };
    const pool = new VerifierPool([{ index: 0, type: "math", options: {} }], threads);
    // Warm-up (not timed): start every worker and load the CAS in it, as a long scoring run would have.
    const warm = {
      completion: "\\boxed{2\\sqrt{2}}",
      reference: "\\sqrt{8}",
      rollout: { id: "warm", group: "warm", completion: "" },
    };
    await Promise.all(Array.from({ length: threads * 2 }, () => pool.run(0, warm, 30_000)));
    t0 = performance.now();
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < cases.length) {
        const c = cases[next++] as StressCase;
        const s = performance.now();
        const r = await pool.run(
          0,
          {
            completion: c.completion,
            reference: c.reference,
            rollout: { id: c.name, group: c.name, completion: c.completion },
          },
          deadline,
        );
        rows.push({ c, ms: performance.now() - s, r });
      }
    };
    await Promise.all(Array.from({ length: threads }, lane));
    await pool.close();
  }
  const wall = (performance.now() - t0) / 1000;
  const bad = rows.filter(
    (x) => x.ms > deadline + 100 || !ALLOWED.has(x.r.reason) || (x.r.status !== "ok" && x.r.status !== "unscorable"),
  );
  const reasons: Record<string, number> = {};
  for (const x of rows) reasons[x.r.reason ?? "correct"] = (reasons[x.r.reason ?? "correct"] ?? 0) + 1;
  const sorted = [...rows].sort((a, b) => b.ms - a.ms);
  const ms = rows.map((x) => x.ms).sort((a, b) => a - b);
  const q = (p: number) => (ms[Math.min(ms.length - 1, Math.floor(p * ms.length))] ?? 0).toFixed(2);
  console.log(
    `stress:math ${inline ? "inline (no pool, spin cases skipped)" : `pool of ${threads} thread(s), deadline ${deadline} ms`}, seed ${seed}`,
  );
  console.log("slowest ten:");
  for (const x of sorted.slice(0, 10))
    console.log(
      `  ${x.ms.toFixed(1).padStart(8)} ms  ${x.c.kind.padEnd(7)} ${x.c.name.slice(0, 50).padEnd(50)} → ${x.r.status}${x.r.reason ? ` (${x.r.reason})` : ""}`,
    );
  console.log(
    `outcomes: ${Object.entries(reasons)
      .map(([k, v]) => `${k}:${v}`)
      .join(" ")}`,
  );
  console.log(
    `latency p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${(ms[ms.length - 1] ?? 0).toFixed(1)} ms; wall ${wall.toFixed(1)} s`,
  );
  for (const x of bad.slice(0, 20))
    console.log(`FAIL ${x.c.name}: ${x.ms.toFixed(1)} ms ${JSON.stringify(x.r).slice(0, 200)}`);
  console.log(`${rows.length} inputs, ${bad.length} failures: ${bad.length === 0 ? "PASS" : "FAIL"}`);
  process.exitCode = bad.length === 0 && rows.length === cases.length && shapesOk ? 0 : 1;
}

await main();
