import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { Rollout } from "../core/types.js";
import { UserError } from "../core/errors.js";
import { kendallTauB, spearman } from "./rank.js";

/** One sampled response to an instruction, with the judge's preference for it over the reference output. */
export interface BonSample {
  instruction: string;
  /** The instruction's source dataset (AlpacaEval: helpful_base, koala, oasst, selfinstruct, vicuna). */
  source: string;
  /** Sample index (the folder's `.<i>` suffix). */
  sample: number;
  output: string;
  /** The judge's reference output (AlpacaEval: gpt-3.5-turbo-0613's `output_1`). */
  reference: string;
  /** The judge's preference in [1, 2]: 2 = the sample beats the reference surely (AlpacaEval's `preference`). */
  preference: number;
}

/**
 * Reads a RewardBench best-of-N folder (`bon_eval/alpaca_eval_n=16/annotations/annotations_ref=GPT35t`): one
 * sub-folder per sample `<model>.<i>/` holding `annotations.json` (or `.json.gz`, or under
 * `weighted_alpaca_eval_gpt4_turbo/`), each a JSON array of AlpacaEval annotations
 * `{instruction, dataset, output_1, output_2, preference}` (output_2 = the sample, output_1 = the reference).
 * Rows without a numeric preference are left out.
 * @param limit the first `limit` instructions of the first sample folder (default all).
 * @throws {UserError} when the folder has no annotations.
 */
export function readBon(folder: string, limit = Infinity): BonSample[] {
  if (!statSync(folder).isDirectory())
    throw new UserError(`${folder}: --bon expects a folder of <model>.<i>/annotations.json(.gz)`);
  const dirs = readdirSync(folder)
    .map((d) => ({ d, i: Number(/\.(\d+)$/.exec(d)?.[1]) }))
    .filter((x) => Number.isInteger(x.i) && statSync(join(folder, x.d)).isDirectory())
    .sort((a, b) => a.i - b.i);
  const out: BonSample[] = [];
  let keep: Set<string> | undefined;
  for (const { d, i } of dirs) {
    const file = [
      "annotations.json.gz",
      "annotations.json",
      "weighted_alpaca_eval_gpt4_turbo/annotations.json",
      "weighted_alpaca_eval_gpt4_turbo/annotations.json.gz",
    ]
      .map((f) => join(folder, d, f))
      .find((f) => {
        try {
          return statSync(f).isFile();
        } catch {
          return false;
        }
      });
    if (!file) continue;
    const raw = readFileSync(file);
    let rows: unknown;
    try {
      rows = JSON.parse((file.endsWith(".gz") ? gunzipSync(raw) : raw).toString("utf8"));
    } catch (e) {
      throw new UserError(`${file}: not a JSON array of annotations: ${(e as Error).message}`);
    }
    if (!Array.isArray(rows)) throw new UserError(`${file}: expected a JSON array of annotations`);
    if (keep === undefined && Number.isFinite(limit))
      keep = new Set(rows.slice(0, limit).map((r) => String((r as { instruction?: unknown }).instruction)));
    rows.forEach((r: Record<string, unknown>, k) => {
      if (typeof r.instruction !== "string" || typeof r.output_2 !== "string")
        throw new UserError(`${file}: entry ${k}: expected "instruction" and "output_2" strings`);
      if (keep && !keep.has(r.instruction)) return;
      const p = Number(r.preference);
      if (r.preference === null || r.preference === undefined || !Number.isFinite(p)) return;
      out.push({
        instruction: r.instruction,
        source: typeof r.dataset === "string" ? r.dataset : "unknown",
        sample: i,
        output: r.output_2,
        reference: typeof r.output_1 === "string" ? r.output_1 : "",
        preference: p,
      });
    });
  }
  if (out.length === 0)
    throw new UserError(`${folder}: no annotations found (expected <model>.<i>/annotations.json(.gz))`);
  return out;
}

/** The rollouts to score: one per sample, grouped by instruction; `reference` is the judge's reference output. */
export function bonRollouts(samples: readonly BonSample[]): Rollout[] {
  return samples.map((s, k) => ({
    id: `bon-${k}`,
    group: s.instruction,
    prompt: s.instruction,
    completion: s.output,
    reference: s.reference,
  }));
}

/** Best-of-N figures of one scorer over instructions. */
export interface BonMetrics {
  instructions: number;
  samples: number;
  /**
   * Mean over instructions of the judge's win rate (preference − 1, in [0, 1]) of the sample the scorer ranks first
   * (ties at the top: their mean). This is the AlpacaEval win rate a best-of-N policy using the scorer would get.
   */
  top1WinRate: number | null;
  /** Spearman ρ of score vs preference within each instruction, averaged (instructions where ρ is undefined left out). */
  spearmanPerInstruction: number | null;
  /** Spearman ρ over all samples pooled. */
  spearmanPooled: number | null;
  /** Kendall τ-b within each instruction, averaged. */
  kendallPerInstruction: number | null;
}

function mean(xs: readonly number[]): number | null {
  return xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/**
 * Best-of-N metrics of `scores` (one per sample; null = unscorable, left out) against the judge's preferences.
 * Reference points: `random` (mean win rate of all samples: best-of-1) and `oracle` (the judge's own best sample).
 */
export function bonMetrics(
  samples: readonly BonSample[],
  scores: ReadonlyArray<number | null>,
): BonMetrics & { randomWinRate: number | null; oracleWinRate: number | null } {
  const by = new Map<string, Array<{ s: number; p: number }>>();
  samples.forEach((x, i) => {
    const s = scores[i];
    if (s === null || s === undefined) return;
    const g = by.get(x.instruction);
    if (g) g.push({ s, p: x.preference - 1 });
    else by.set(x.instruction, [{ s, p: x.preference - 1 }]);
  });
  const top: number[] = [];
  const rnd: number[] = [];
  const orc: number[] = [];
  const rho: number[] = [];
  const tau: number[] = [];
  const allS: number[] = [];
  const allP: number[] = [];
  for (const g of by.values()) {
    const best = Math.max(...g.map((x) => x.s));
    top.push(mean(g.filter((x) => x.s === best).map((x) => x.p))!);
    rnd.push(mean(g.map((x) => x.p))!);
    orc.push(Math.max(...g.map((x) => x.p)));
    const r = spearman(
      g.map((x) => x.s),
      g.map((x) => x.p),
    );
    if (r !== null) rho.push(r);
    const t = kendallTauB(
      g.map((x) => x.s),
      g.map((x) => x.p),
    );
    if (t !== null) tau.push(t);
    for (const x of g) {
      allS.push(x.s);
      allP.push(x.p);
    }
  }
  return {
    instructions: by.size,
    samples: allS.length,
    top1WinRate: mean(top),
    randomWinRate: mean(rnd),
    oracleWinRate: mean(orc),
    spearmanPerInstruction: mean(rho),
    spearmanPooled: spearman(allS, allP),
    kendallPerInstruction: mean(tau),
  };
}
