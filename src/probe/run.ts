import { completionText } from "../core/completion.js";
import type { Rollout } from "../core/types.js";
import { scoreBatch } from "../engine/batch.js";
import type { RolloutScore } from "../engine/scorer.js";
import { createScorer } from "../engine/scorer.js";
import { readLines } from "../io/jsonl.js";
import { toRollout } from "../io/rollout.js";
import type { CompiledSpec } from "../spec/types.js";
import { UserError } from "../core/errors.js";
import { PROBES } from "./registry.js";
import type { ProbeCase, ProbeContext, ProbeDefinition } from "./types.js";
import { documentedWeakness } from "./weaknesses.js";

/** Options of {@link runProbes}. */
export interface ProbeOptions {
  /** Rollouts to probe, taken round-robin over the groups in file order (default 200). */
  sample?: number;
  /** Length of the `max-length` completion, characters (default 16 384 ≈ 4096 tokens). */
  maxChars?: number;
  /** Worker threads (default: CPU count). */
  concurrency?: number;
  /** Examples kept per probe (default 3). */
  examples?: number;
  /** Only these probes (default: all that apply). */
  only?: readonly string[];
  /** Longest input line, bytes. */
  maxLineBytes?: number;
}

/** One probe case shown in the report. */
export interface ProbeExample {
  /** The sampled rollout's id. */
  id: string;
  form?: string;
  /** The adversarial completion (first 400 characters). */
  completion: string;
  reward: number | null;
  /** The baseline wrong answer's reward for the same prompt. */
  baseline: number | null;
  above: boolean;
  /** Component scores of the probe completion. */
  components: Record<string, number | null>;
}

/** One probe's result. */
export interface ProbeResult {
  name: string;
  family: string;
  description: string;
  /** Cases scored. */
  n: number;
  /** Cases whose reward exceeds the baseline wrong answer's (by more than 1e-9; null counts as 0). */
  above: number;
  /** above / n, in [0, 1]; 0 when n = 0. */
  rate: number;
  /** Mean probe reward (null rewards as 0). */
  meanReward: number;
  /** Mean baseline reward over the same prompts. */
  baselineMean: number;
  /** Per component: share of cases where the component's score exceeds its score on the baseline. */
  paidBy: Record<string, number>;
  examples: ProbeExample[];
  /** docs link when the rate > 0 comes from a known, documented weakness of the components that pay. */
  documented?: string;
}

/** What `rewardkit probe` prints with `--json`. */
export interface ProbeReport {
  spec: { name: string; hash: string };
  /** Rollouts read, malformed lines skipped, rollouts sampled. */
  rollouts: number;
  malformed: number;
  sampled: number;
  /** The baseline: a plainly wrong answer in the reference's style (another prompt's reference, boxed). */
  baseline: { description: string; meanReward: number };
  /** The sampled rollouts' own completions: their mean reward, beside the shuffled-reference control's. */
  original: { meanReward: number };
  probes: ProbeResult[];
  skipped: Array<{ name: string; reason: string }>;
}

const EPS = 1e-9;
const MAX_ROLLOUTS = 200_000;

function text(v: unknown): string {
  return typeof v === "string" ? v : typeof v === "number" && Number.isFinite(v) ? String(v) : "";
}

function promptText(p: Rollout["prompt"]): string {
  if (p === undefined) return "";
  if (typeof p === "string") return p;
  return p.map((m) => (typeof m.content === "string" ? m.content : "")).join("\n\n");
}

/** Rollouts round-robin over groups in first-appearance order: the first of every group, then the second … */
export function sampleRollouts(rollouts: readonly Rollout[], n: number): Rollout[] {
  const groups = new Map<string, Rollout[]>();
  for (const r of rollouts) {
    const g = groups.get(r.group);
    if (g) g.push(r);
    else groups.set(r.group, [r]);
  }
  const lists = [...groups.values()];
  const out: Rollout[] = [];
  for (let k = 0; out.length < n; k++) {
    let any = false;
    for (const l of lists) {
      if (k < l.length) {
        out.push(l[k]!);
        any = true;
        if (out.length >= n) break;
      }
    }
    if (!any) break;
  }
  return out;
}

/** Contexts for the sampled rollouts: each gets a wrong answer and another reference from the other groups. */
function contexts(
  spec: CompiledSpec,
  all: readonly Rollout[],
  sampled: readonly Rollout[],
  o: Required<Pick<ProbeOptions, "maxChars">>,
): ProbeContext[] {
  const refs: Array<{ group: string; raw: unknown; text: string }> = [];
  const seen = new Set<string>();
  for (const r of all) {
    if (seen.has(r.group)) continue;
    seen.add(r.group);
    refs.push({ group: r.group, raw: r.reference, text: text(r.reference).trim() });
  }
  const at = new Map(refs.map((r, i) => [r.group, i]));
  const choice = spec.components.find((c) => c.type === "choice");
  const letters = typeof choice?.options.letters === "string" ? choice.options.letters : "ABCD";
  return sampled.map((rollout, index) => {
    const reference = text(rollout.reference).trim();
    const start = at.get(rollout.group) ?? 0;
    let wrong: string | undefined;
    let otherReference: unknown;
    const key = JSON.stringify(rollout.reference ?? null);
    for (let k = 1; k < refs.length; k++) {
      const o2 = refs[(start + k) % refs.length]!;
      if (otherReference === undefined && JSON.stringify(o2.raw ?? null) !== key && o2.raw !== undefined)
        otherReference = o2.raw;
      if (
        wrong === undefined &&
        o2.text !== "" &&
        (reference === "" || (o2.text !== reference && !o2.text.includes(reference) && !reference.includes(o2.text)))
      )
        wrong = o2.text;
      if (wrong !== undefined && otherReference !== undefined) break;
    }
    const letter = /^\(?([A-Z])\)?$/.exec(reference)?.[1];
    if (letter && letters.includes(letter)) wrong = letters[(letters.indexOf(letter) + 1) % letters.length];
    return {
      rollout,
      completion: completionText(rollout.completion),
      prompt: promptText(rollout.prompt),
      reference,
      wrong: wrong ?? "-987654321",
      otherReference,
      letters,
      maxChars: o.maxChars,
      index,
    };
  });
}

/** The baseline: a plainly wrong, well-formed answer (code specs: a program that does nothing). */
function baselineCase(spec: CompiledSpec, c: ProbeContext): ProbeCase {
  if (spec.components.some((x) => x.type === "code"))
    return { completion: "```python\ndef solve(*args, **kwargs):\n    return None\n```" };
  return { completion: `The answer is $\\boxed{${c.wrong}}$.` };
}

function caseRollout(c: ProbeContext, name: string, pc: ProbeCase): Rollout {
  const { completion_tokens, completion_ids, ...rest } = c.rollout;
  const keepLength = pc.completion === c.completion; // the rollout's own completion: its token counts still hold
  return {
    ...rest,
    ...(keepLength && completion_tokens !== undefined ? { completion_tokens } : {}),
    ...(keepLength && completion_ids !== undefined ? { completion_ids } : {}),
    id: `${c.rollout.id}#${name}`,
    group: `probe/${name}/${c.index}`,
    completion: pc.completion,
    reference: pc.reference !== undefined ? pc.reference : c.rollout.reference,
  };
}

/** Reads the rollouts of a JSONL file (malformed lines counted and skipped). */
export async function readRollouts(
  input: string,
  maxLineBytes?: number,
): Promise<{ rollouts: Rollout[]; malformed: number }> {
  const rollouts: Rollout[] = [];
  let malformed = 0;
  for await (const { line, text: t } of readLines(input, {
    onProblem: () => malformed++,
    ...(maxLineBytes !== undefined ? { maxLineBytes } : {}),
  })) {
    let record: unknown;
    try {
      record = JSON.parse(t);
    } catch {
      malformed++;
      continue;
    }
    const r = toRollout(record, line, {});
    if ("problem" in r) malformed++;
    else rollouts.push(r.rollout);
    if (rollouts.length >= MAX_ROLLOUTS) break;
  }
  return { rollouts, malformed };
}

const round = (x: number): number => Math.round(x * 1e6) / 1e6;
const num = (x: number | null): number => x ?? 0;

/**
 * Runs the reward-hacking probes on a sample of rollouts: for each sampled rollout and each probe, one adversarial
 * completion scored with the spec beside a baseline wrong answer for the same prompt; a probe's `rate` is the share
 * of its cases whose reward exceeds the baseline's. Probes that do not apply (no code component for `code-hacks`)
 * or that have nothing to try on any sampled rollout are listed in `skipped`.
 * @throws {UserError} for an unknown probe in `only`, or an input without rollouts.
 */
export async function runProbes(
  spec: CompiledSpec,
  input: string | { rollouts: Rollout[]; malformed?: number },
  o: ProbeOptions = {},
): Promise<ProbeReport> {
  for (const name of o.only ?? [])
    if (!PROBES.some((p) => p.name === name))
      throw new UserError(`unknown probe "${name}"; known: ${PROBES.map((p) => p.name).join(", ")}`);
  const { rollouts, malformed = 0 } = typeof input === "string" ? await readRollouts(input, o.maxLineBytes) : input;
  if (rollouts.length === 0)
    throw new UserError(`${typeof input === "string" ? input : "input"}: no rollouts to probe`);
  const sampled = sampleRollouts(rollouts, o.sample ?? 200);
  const ctxs = contexts(spec, rollouts, sampled, { maxChars: o.maxChars ?? 16_384 });
  const skipped: ProbeReport["skipped"] = [];
  const active: ProbeDefinition[] = [];
  for (const p of PROBES) {
    if (o.only && !o.only.includes(p.name)) continue;
    const why = p.skip?.(spec);
    if (why) skipped.push({ name: p.name, reason: why });
    else active.push(p);
  }
  // the cases: per context the original, the baseline, then one case per active probe
  const jobs: Array<{ ctx: number; probe: number; pc: ProbeCase; rollout: Rollout }> = [];
  ctxs.forEach((c, k) => {
    jobs.push({
      ctx: k,
      probe: -2,
      pc: { completion: c.completion },
      rollout: { ...c.rollout, group: `probe/original/${k}` },
    });
    const b = baselineCase(spec, c);
    jobs.push({ ctx: k, probe: -1, pc: b, rollout: caseRollout(c, "baseline", b) });
    active.forEach((p, j) => {
      const pc = p.make(c);
      if (pc) jobs.push({ ctx: k, probe: j, pc, rollout: caseRollout(c, p.name, pc) });
    });
  });
  const scores: RolloutScore[] = [];
  const scorer = createScorer(spec, o.concurrency === undefined ? {} : { concurrency: o.concurrency });
  try {
    for (let i = 0; i < jobs.length; i += 512) {
      const { scores: s } = await scoreBatch(
        scorer,
        jobs.slice(i, i + 512).map((j) => j.rollout),
      );
      scores.push(...s);
    }
  } finally {
    await scorer.close();
  }
  const baseline = new Map<number, RolloutScore>();
  let originalSum = 0;
  jobs.forEach((j, i) => {
    if (j.probe === -1) baseline.set(j.ctx, scores[i]!);
    if (j.probe === -2) originalSum += num(scores[i]!.reward);
  });
  const names = spec.components.map((c) => c.name);
  const maxExamples = o.examples ?? 3;
  const results: ProbeResult[] = active.map((p) => ({
    name: p.name,
    family: p.family,
    description: p.description,
    n: 0,
    above: 0,
    rate: 0,
    meanReward: 0,
    baselineMean: 0,
    paidBy: {},
    examples: [],
  }));
  const paid = active.map(() => names.map(() => 0));
  const illustration: Array<ProbeExample | undefined> = active.map(() => undefined);
  jobs.forEach((j, i) => {
    if (j.probe < 0) return;
    const s = scores[i]!;
    const b = baseline.get(j.ctx)!;
    const r = results[j.probe]!;
    const above = num(s.reward) > num(b.reward) + EPS;
    r.n++;
    r.meanReward += num(s.reward);
    r.baselineMean += num(b.reward);
    if (above) r.above++;
    s.results.forEach((c, k) => {
      if (num(c.score) > num(b.results[k]!.score) + EPS) paid[j.probe]![k]!++;
    });
    const ex = (): ProbeExample => ({
      id: ctxs[j.ctx]!.rollout.id,
      ...(j.pc.form ? { form: j.pc.form } : {}),
      completion:
        j.pc.completion.length > 400
          ? `${j.pc.completion.slice(0, 400)}… (${j.pc.completion.length} characters)`
          : j.pc.completion,
      reward: s.reward,
      baseline: b.reward,
      above,
      components: Object.fromEntries(names.map((n, k) => [n, s.results[k]!.score])),
    });
    if (above && r.examples.length < maxExamples) r.examples.push(ex());
    else if (!illustration[j.probe]) illustration[j.probe] = ex();
  });
  const out: ProbeResult[] = [];
  results.forEach((r, k) => {
    if (r.n === 0) {
      skipped.push({ name: r.name, reason: "nothing to try on the sampled rollouts (no text reference)" });
      return;
    }
    r.rate = round(r.above / r.n);
    r.meanReward = round(r.meanReward / r.n);
    r.baselineMean = round(r.baselineMean / r.n);
    r.paidBy = Object.fromEntries(
      names.map((n, c): [string, number] => [n, round(paid[k]![c]! / r.n)]).filter(([, v]) => v > 0),
    );
    if (r.examples.length === 0 && illustration[k]) r.examples.push(illustration[k]);
    if (r.rate > 0) {
      const types = Object.keys(r.paidBy).map((n) => spec.components.find((c) => c.name === n)!.type);
      const doc = documentedWeakness(r.name, [...new Set(types)]);
      if (doc) r.documented = doc;
    }
    out.push(r);
  });
  let baselineSum = 0;
  for (const b of baseline.values()) baselineSum += num(b.reward);
  return {
    spec: { name: spec.name, hash: spec.hash },
    rollouts: rollouts.length,
    malformed,
    sampled: sampled.length,
    baseline: {
      description: "a plainly wrong answer: another prompt's reference, boxed (code: a program that returns None)",
      meanReward: round(baselineSum / Math.max(1, ctxs.length)),
    },
    original: { meanReward: round(originalSum / Math.max(1, ctxs.length)) },
    probes: out,
    skipped,
  };
}
