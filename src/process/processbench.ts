import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { UserError } from "../core/errors.js";
import { readLines } from "../io/jsonl.js";
import { firstError } from "../verifiers/process/aggregate.js";

/** One ProcessBench record (Zheng et al. 2024, *ProcessBench*, arXiv 2412.06559): a step-split solution and its first wrong step. */
export interface ProcessBenchRecord {
  id: string;
  problem?: string;
  steps: string[];
  /** 0-based index of the earliest wrong step; −1 when every step is right. */
  label: number;
  final_answer_correct?: boolean;
}

/** Accuracy on one side of ProcessBench: how many records of the side the predictor got exactly right. */
export interface SideAccuracy {
  n: number;
  matched: number;
  /** matched / n, a fraction in [0, 1]; null when the side is empty. */
  accuracy: number | null;
}

/** ProcessBench's metrics (QwenLM/ProcessBench `code/run_eval_prm_trl.py` at 04d347e7, as fractions instead of percent). */
export interface ProcessBenchMetrics {
  n: number;
  /** Harmonic mean of the two accuracies; 0 when both are 0 (the reference code divides 0 by 0 there). */
  f1: number | null;
  /** Records with an error (label ≥ 0): a prediction matches when it names exactly the first wrong step. */
  erroneous: SideAccuracy;
  /** Records with every step right (label −1): a prediction matches when it is −1. */
  correct: SideAccuracy;
}

function bad(file: string, where: string, field: string, message: string): UserError {
  return new UserError(`${file}:${where} ${field}: ${message}`);
}

/**
 * Reads ProcessBench data: a JSON array (`.json`, `.json.gz`) or JSONL (`.jsonl`, `.jsonl.gz`) of
 * `{id, steps, label, …}`. @throws {UserError} naming the file, record (array index or line) and field.
 */
export async function loadProcessBench(file: string): Promise<ProcessBenchRecord[]> {
  const raw: { where: string; value: unknown }[] = [];
  if (/\.jsonl(\.gz)?$/.test(file)) {
    for await (const { line, text } of readLines(file)) {
      try {
        raw.push({ where: String(line), value: JSON.parse(text) });
      } catch (e) {
        throw bad(file, String(line), "", `invalid JSON: ${(e as Error).message}`);
      }
    }
  } else {
    const bytes = readFileSync(file);
    const text = (file.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8");
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (e) {
      throw bad(file, "1", "", `invalid JSON: ${(e as Error).message}`);
    }
    if (!Array.isArray(data)) throw bad(file, "1", "", "expected a JSON array of records (or a .jsonl file)");
    data.forEach((value, i) => raw.push({ where: `[${i}]`, value }));
  }
  const seen = new Set<string>();
  return raw.map(({ where, value }) => {
    if (value === null || typeof value !== "object" || Array.isArray(value))
      throw bad(file, where, "", "expected an object");
    const r = value as Record<string, unknown>;
    if (typeof r.id !== "string" && typeof r.id !== "number")
      throw bad(file, where, "id", "expected a string or number");
    const id = String(r.id);
    if (seen.has(id)) throw bad(file, where, "id", `duplicate id "${id}"`);
    seen.add(id);
    if (!Array.isArray(r.steps) || !r.steps.every((s) => typeof s === "string"))
      throw bad(file, where, "steps", "expected an array of strings");
    const label = r.label;
    if (typeof label !== "number" || !Number.isInteger(label) || label < -1 || label >= r.steps.length) {
      throw bad(
        file,
        where,
        "label",
        `expected an integer in [-1, ${r.steps.length - 1}] (the 0-based first wrong step, -1 for none)`,
      );
    }
    return { ...(r as object), id, steps: r.steps, label };
  });
}

/**
 * Reads predictions: JSONL of `{"id", "prediction"}` with prediction an integer ≥ −1 (−1 = no error).
 * @returns id → prediction. @throws {UserError} naming the file, line and field (also for a duplicate id).
 */
export async function loadPredictions(file: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for await (const { line, text } of readLines(file)) {
    let r: unknown;
    try {
      r = JSON.parse(text);
    } catch (e) {
      throw bad(file, String(line), "", `invalid JSON: ${(e as Error).message}`);
    }
    if (r === null || typeof r !== "object" || Array.isArray(r))
      throw bad(file, String(line), "", 'expected an object {"id", "prediction"}');
    const { id, prediction } = r as { id?: unknown; prediction?: unknown };
    if (typeof id !== "string" && typeof id !== "number")
      throw bad(file, String(line), "id", "expected a string or number");
    if (typeof prediction !== "number" || !Number.isInteger(prediction) || prediction < -1)
      throw bad(
        file,
        String(line),
        "prediction",
        "expected an integer >= -1 (the 0-based first wrong step, -1 for none)",
      );
    if (out.has(String(id))) throw bad(file, String(line), "id", `duplicate id "${String(id)}"`);
    out.set(String(id), prediction);
  }
  return out;
}

function side(n: number, matched: number): SideAccuracy {
  return { n, matched, accuracy: n === 0 ? null : matched / n };
}

/**
 * ProcessBench's metrics of predicted first-error indices: accuracy on erroneous records (prediction = label),
 * on correct records (prediction = −1), and their harmonic mean F1 = 2·a_e·a_c / (a_e + a_c), 0 when both are 0.
 * The "always −1" predictor therefore has a_e = 0, a_c = 1, F1 = 0.
 * @param labels the records' labels, shape [n]; @param predictions the predictions in the same order.
 * @throws {RangeError} when the lengths differ.
 */
export function processBenchMetrics(labels: readonly number[], predictions: readonly number[]): ProcessBenchMetrics {
  if (labels.length !== predictions.length)
    throw new RangeError(`${labels.length} labels, ${predictions.length} predictions`);
  let ne = 0;
  let me = 0;
  let nc = 0;
  let mc = 0;
  labels.forEach((l, i) => {
    const hit = predictions[i] === l ? 1 : 0;
    if (l >= 0) {
      ne++;
      me += hit;
    } else {
      nc++;
      mc += hit;
    }
  });
  const erroneous = side(ne, me);
  const correct = side(nc, mc);
  const a = erroneous.accuracy;
  const b = correct.accuracy;
  const f1 = a === null || b === null ? null : a + b === 0 ? 0 : (2 * a * b) / (a + b);
  return { n: labels.length, f1, erroneous, correct };
}

/** Predictions of the records in order; @throws {UserError} when some record has none (names the first). */
export function alignPredictions(
  records: readonly ProcessBenchRecord[],
  predictions: Map<string, number>,
  file: string,
): number[] {
  const missing = records.filter((r) => !predictions.has(r.id));
  if (missing.length > 0)
    throw new UserError(
      `${file}: ${missing.length} of ${records.length} records have no prediction (first: id "${missing[0]!.id}")`,
    );
  return records.map((r) => predictions.get(r.id)!);
}

/** One row of a threshold sweep. */
export interface SweepRow {
  threshold: number;
  metrics: ProcessBenchMetrics;
}

/**
 * Threshold sweep of a step-score predictor: for each threshold t, the prediction is the first step with score < t
 * (−1 when none; a null score is never an error), and the metrics of those predictions.
 * @param scores per record, the step scores (same order as `labels`).
 */
export function thresholdSweep(
  labels: readonly number[],
  scores: readonly (readonly (number | null)[])[],
  thresholds: readonly number[],
): SweepRow[] {
  return thresholds.map((t) => ({
    threshold: t,
    metrics: processBenchMetrics(
      labels,
      scores.map((s) => firstError(s, t)),
    ),
  }));
}

/** The default sweep: 0.05, 0.10, …, 0.95. */
export const DEFAULT_THRESHOLDS: readonly number[] = Array.from(
  { length: 19 },
  (_, i) => Math.round((i + 1) * 5) / 100,
);
