import { z } from "zod";
import { ok, unscorable } from "../../core/types.js";
import type { VerifierDefinition } from "../types.js";
import { referenceStrings } from "./normalize.js";

const options = z.strictObject({
  /** Maximum n-gram order (default 4). */
  maxOrder: z.number().int().min(1).max(8).default(4),
  /** Lower-case both sides first (default false, as sacreBLEU). */
  lowercase: z.boolean().default(false),
  /** `13a` (default; sacreBLEU's and mteval-v13a's tokenizer) or `none` (split on whitespace). */
  tokenize: z.enum(["13a", "none"]).default("13a"),
  /** sacreBLEU smoothing for zero n-gram matches: `exp` (default for sentence BLEU), `floor` (0.1), `none`. */
  smooth: z.enum(["exp", "floor", "none"]).default("exp"),
});
export type BleuOptions = z.infer<typeof options>;

/**
 * sacreBLEU's `13a` tokenizer (mteval-v13a): unescape the four XML entities, split off punctuation and symbols,
 * split periods and commas except inside numbers, split a dash after a digit.
 * Example: `tokenize13a("It wasn't surprising.")` → `["It", "wasn't", "surprising", "."]`.
 */
export function tokenize13a(line: string): string[] {
  let s = line
    .replace(/<skipped>/g, "")
    .replace(/-\n/g, "")
    .replace(/\n/g, " ");
  if (s.includes("&"))
    s = s
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, "&")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">");
  s = ` ${s} `
    .replace(/([{-~[-` -&(-+:-@/])/g, " $1 ")
    .replace(/([^0-9])([.,])/g, "$1 $2 ")
    .replace(/([.,])([^0-9])/g, " $1 $2")
    .replace(/([0-9])(-)/g, "$1 $2 ");
  return s.split(/\s+/).filter(Boolean);
}

/** Sufficient statistics of one hypothesis against its references (sacreBLEU's layout). */
export interface BleuStats {
  hypLen: number;
  refLen: number;
  matches: number[];
  totals: number[];
}

function ngrams(toks: string[], n: number): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i + n <= toks.length; i++) {
    const k = toks.slice(i, i + n).join("\u0001");
    m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
}

/**
 * Clipped n-gram matches and totals for one segment; the reference length is the closest reference length
 * (ties → the shorter), as sacreBLEU.
 */
export function bleuStats(hyp: string[], refs: string[][], maxOrder: number): BleuStats {
  let refLen = refs[0]?.length ?? 0;
  for (const r of refs) {
    const d = Math.abs(r.length - hyp.length);
    const best = Math.abs(refLen - hyp.length);
    if (d < best || (d === best && r.length < refLen)) refLen = r.length;
  }
  const matches: number[] = [];
  const totals: number[] = [];
  for (let n = 1; n <= maxOrder; n++) {
    const h = ngrams(hyp, n);
    const maxRef = new Map<string, number>();
    for (const r of refs) for (const [k, c] of ngrams(r, n)) maxRef.set(k, Math.max(maxRef.get(k) ?? 0, c));
    let m = 0;
    for (const [k, c] of h) m += Math.min(c, maxRef.get(k) ?? 0);
    matches.push(m);
    totals.push(Math.max(0, hyp.length - n + 1));
  }
  return { hypLen: hyp.length, refLen, matches, totals };
}

/**
 * BLEU from summed statistics, in [0, 100]: `BP · exp(Σ log pₙ / N)`, `BP = 1` if hyp ≥ ref else `exp(1 − ref/hyp)`.
 * `effectiveOrder` (sentence BLEU) drops orders longer than the hypothesis. Smoothing as sacreBLEU: `exp` —
 * the k-th zero-match order gets precision `100 / (2ᵏ · total)`; `floor` — `100 · 0.1 / total`.
 * Published check (sacreBLEU README): the three-sentence corpus scores 48.53, precisions 82.4/50.0/45.5/37.5, BP 0.943.
 */
export function bleuScore(
  s: BleuStats,
  smooth: "exp" | "floor" | "none",
  effectiveOrder: boolean,
): { score: number; precisions: number[]; bp: number } {
  const precisions: number[] = [];
  let logSum = 0;
  let order = 0;
  let smoothMteval = 1;
  for (let n = 0; n < s.matches.length; n++) {
    const total = s.totals[n]!;
    if (total === 0) {
      if (effectiveOrder) break;
      precisions.push(0);
      order++;
      logSum = -Infinity;
      continue;
    }
    let p: number;
    if (s.matches[n]! > 0) p = (100 * s.matches[n]!) / total;
    else if (smooth === "exp") {
      smoothMteval *= 2;
      p = 100 / (smoothMteval * total);
    } else if (smooth === "floor") p = (100 * 0.1) / total;
    else p = 0;
    precisions.push(p);
    order++;
    logSum += p > 0 ? Math.log(p / 100) : -Infinity;
  }
  const bp = s.hypLen === 0 ? 0 : s.hypLen >= s.refLen ? 1 : Math.exp(1 - s.refLen / s.hypLen);
  const score = order === 0 || logSum === -Infinity ? 0 : 100 * bp * Math.exp(logSum / order);
  return { score, precisions, bp };
}

/**
 * `bleu`: sacreBLEU-compatible sentence BLEU (13a tokens, 4-grams, `exp` smoothing, effective order) of the
 * completion against all references together (BLEU's multi-reference clipping), divided by 100 → [0, 1].
 * Example: hyp "the cat sat on the mat", ref identical → 1.
 */
export const bleuVerifier: VerifierDefinition<BleuOptions> = {
  type: "bleu",
  summary: "sacreBLEU sentence BLEU / 100 against the references (13a tokenizer, exp smoothing)",
  options,
  isolation: "inline",
  defaultTimeoutMs: 2000,
  create(o) {
    const tok = (s: string): string[] => {
      const t = o.lowercase ? s.toLowerCase() : s;
      return o.tokenize === "13a" ? tokenize13a(t) : t.split(/\s+/).filter(Boolean);
    };
    return ({ completion, reference }) => {
      const refs = referenceStrings(reference);
      if (refs === undefined) return unscorable("no_reference");
      if (refs === null) return unscorable("invalid_reference", { expected: "string, number or array of strings" });
      const b = bleuScore(bleuStats(tok(completion), refs.map(tok), o.maxOrder), o.smooth, true);
      const score = b.score / 100;
      const details = { precisions: b.precisions.map((p) => Math.round(p * 100) / 100), bp: b.bp };
      return score === 0 ? ok(0, "no_match", details) : ok(score, undefined, details);
    };
  },
};
