import type { CompiledSpec } from "../spec/types.js";
import { bonMetrics, bonRollouts, readBon } from "./bon.js";
import type { BonMetrics } from "./bon.js";
import { pairAccuracy, pairRollouts, readPairs } from "./pairs.js";
import type { PairAccuracy } from "./pairs.js";
import { scoreValues } from "./score.js";

/** Options of {@link evaluateRm}: a pairs file and/or a best-of-N folder. */
export interface RmEvalOptions {
  pairs?: string;
  bon?: string;
  /** Score this component instead of the reward. */
  component?: string;
  /** First n pairs / first n instructions. */
  limit?: number;
  concurrency?: number;
}

/** Pairwise-accuracy results, the scorer's beside the length-only baseline (the longer response wins). */
export interface PairsResult {
  file: string;
  pairs: number;
  /** Pairs with an unscorable side (left out of the scorer's accuracy). */
  unscorable: number;
  scorer: PairAccuracy;
  lengthBaseline: PairAccuracy;
}

/** Best-of-N results, the scorer's beside the length-only baseline (the longest sample is picked). */
export interface BonResult {
  folder: string;
  unscorable: number;
  scorer: BonMetrics;
  lengthBaseline: BonMetrics;
  /** Best-of-1 (a random sample) and the judge's own best, the floor and ceiling of top-1 win rate. */
  randomWinRate: number | null;
  oracleWinRate: number | null;
  /** The same figures per source dataset of the instructions. */
  bySource: Record<string, { scorer: BonMetrics; lengthBaseline: BonMetrics }>;
}

/** What `rewardkit evaluate rm --json` prints. */
export interface RmEvaluation {
  spec: { name: string; hash: string };
  /** `reward`, or `component <name>`. */
  scored: string;
  pairs?: PairsResult;
  bon?: BonResult;
}

const r6 = (x: number | null): number | null => (x === null ? null : Math.round(x * 1e6) / 1e6);
function rounded<T extends object>(o: T): T {
  return Object.fromEntries(
    Object.entries(o).map(([k, v]) => [k, typeof v === "number" && !Number.isInteger(v) ? r6(v) : v]),
  ) as T;
}

/**
 * Evaluates a reward (or one component) as a reward model on labelled data: pairwise accuracy on chosen/rejected
 * pairs, and best-of-N agreement with a judge (top-1 win rate, Spearman, Kendall), each beside a length-only
 * baseline (characters), so a scorer that merely prefers long answers shows as no better than length.
 */
export async function evaluateRm(spec: CompiledSpec, o: RmEvalOptions): Promise<RmEvaluation> {
  const out: RmEvaluation = {
    spec: { name: spec.name, hash: spec.hash },
    scored: o.component ? `component ${o.component}` : "reward",
  };
  const common = {
    ...(o.component !== undefined ? { component: o.component } : {}),
    ...(o.concurrency !== undefined ? { concurrency: o.concurrency } : {}),
  };
  if (o.pairs) {
    const pairs = await readPairs(o.pairs, o.limit);
    const v = await scoreValues(spec, pairRollouts(pairs), common);
    const chosen = pairs.map((_, i) => v[2 * i]!);
    const rejected = pairs.map((_, i) => v[2 * i + 1]!);
    out.pairs = {
      file: o.pairs,
      pairs: pairs.length,
      unscorable: pairs.filter((_, i) => chosen[i] === null || rejected[i] === null).length,
      scorer: rounded(pairAccuracy(chosen, rejected)),
      lengthBaseline: rounded(
        pairAccuracy(
          pairs.map((p) => p.chosen.length),
          pairs.map((p) => p.rejected.length),
        ),
      ),
    };
  }
  if (o.bon) {
    const samples = readBon(o.bon, o.limit);
    const v = await scoreValues(spec, bonRollouts(samples), common);
    const lengths = samples.map((s) => s.output.length);
    const m = bonMetrics(samples, v);
    const lm = bonMetrics(samples, lengths);
    const bySource: BonResult["bySource"] = {};
    for (const src of [...new Set(samples.map((s) => s.source))].sort()) {
      const idx = samples.map((s, i) => (s.source === src ? i : -1)).filter((i) => i >= 0);
      const sub = idx.map((i) => samples[i]!);
      const {
        randomWinRate: _r,
        oracleWinRate: _o,
        ...sm
      } = bonMetrics(
        sub,
        idx.map((i) => v[i]!),
      );
      const {
        randomWinRate: _r2,
        oracleWinRate: _o2,
        ...sl
      } = bonMetrics(
        sub,
        idx.map((i) => lengths[i]!),
      );
      bySource[src] = { scorer: rounded(sm), lengthBaseline: rounded(sl) };
    }
    const { randomWinRate, oracleWinRate, ...scorer } = m;
    const { randomWinRate: _a, oracleWinRate: _b, ...lengthBaseline } = lm;
    out.bon = {
      folder: o.bon,
      unscorable: v.filter((x) => x === null).length,
      scorer: rounded(scorer),
      lengthBaseline: rounded(lengthBaseline),
      randomWinRate: r6(randomWinRate),
      oracleWinRate: r6(oracleWinRate),
      bySource,
    };
  }
  return out;
}
