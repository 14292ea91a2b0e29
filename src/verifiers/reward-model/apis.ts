import type { Extracted } from "../../client/types.js";
import { usageOf } from "../judge/chat.js";

/** One rollout as a reward model sees it: the rendered text, the prompt (query) and the chat turns. */
export interface RmItem {
  /** The text scored (client-side template applied). */
  text: string;
  /** The prompt, for the query/document APIs (`vllm-score`, `tei-rerank`). */
  query: string;
  /** The conversation, when the server applies the chat template (`chatTemplate: server`). */
  messages?: Array<{ role: string; content: string }>;
}

/** Settings an API reads. */
export interface RmApiOptions {
  model: string;
  /** Class whose probability / logit is the score (multi-class heads). */
  classIndex?: number;
  /** TEI label whose score is the score (multi-label heads). */
  label?: string;
}

/** A discriminative reward-model HTTP API: route, request body for a batch, and the raw scores of its answer. */
export interface RmApi {
  /** Route appended to `baseUrl`. */
  path: string;
  /** Items per request this API can take (1: one conversation per request). */
  maxBatch(items: readonly RmItem[]): number;
  /** Items of one request must share this key (query/document APIs batch one query's documents). */
  batchKey?(item: RmItem): string;
  body(items: readonly RmItem[], o: RmApiOptions): Record<string, unknown>;
  scores(json: unknown, n: number, o: RmApiOptions): Extracted<number[]>;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
const finite = (x: unknown): x is number => typeof x === "number" && Number.isFinite(x);

/** Orders `data[]` entries by their `index` (servers may answer out of order) and checks there are `n`. */
function byIndex(json: unknown, n: number): Extracted<Array<Record<string, unknown>>> {
  const data: unknown = isRecord(json) ? json.data : Array.isArray(json) ? (json as unknown[]) : undefined;
  const usage = usageOf(json);
  const u = usage ? { usage } : {};
  if (!Array.isArray(data))
    return {
      error: `the response has no data list${isRecord(json) && isRecord(json.error) ? `: ${String(json.error.message).slice(0, 200)}` : ""}`,
      ...u,
    };
  if (data.length !== n) return { error: `the response has ${data.length} results for ${n} inputs`, ...u };
  const out = new Array<Record<string, unknown>>(n);
  data.forEach((d, k) => {
    const e: Record<string, unknown> = isRecord(d) ? d : { value: d };
    const i = finite(e.index) ? e.index : k;
    out[i] = e;
  });
  if (out.some((x) => x === undefined)) return { error: "the response's indexes do not cover the inputs", ...u };
  return { value: out, ...u };
}

function mapScores(
  x: Extracted<Array<Record<string, unknown>>>,
  f: (e: Record<string, unknown>, k: number) => number | string,
): Extracted<number[]> {
  if ("error" in x) return x;
  const scores: number[] = [];
  for (const [k, e] of x.value.entries()) {
    const s = f(e, k);
    if (typeof s === "string") return { error: `result ${k}: ${s}`, ...(x.usage ? { usage: x.usage } : {}) };
    scores.push(s);
  }
  return { value: scores, ...(x.usage ? { usage: x.usage } : {}) };
}

/** The class probability of a classification head: 1 class → it; 2 → `classIndex` (default 1, the positive class); more → `classIndex` required. */
function classOf(values: unknown, o: RmApiOptions, what: string): number | string {
  if (!Array.isArray(values) || values.length === 0 || !values.every(finite)) return `${what} is not a list of numbers`;
  const k = o.classIndex ?? (values.length === 1 ? 0 : values.length === 2 ? 1 : undefined);
  if (k === undefined) return `${values.length} classes: set classIndex`;
  if (k >= values.length) return `classIndex ${k} but ${values.length} classes`;
  return values[k] as number;
}

const inputs = (items: readonly RmItem[]): string | string[] =>
  items.length === 1 ? items[0]!.text : items.map((i) => i.text);
const chatBatch = (items: readonly RmItem[]): number => (items.some((i) => i.messages) ? 1 : 64);

/**
 * The supported APIs. Request and response shapes (as served by vLLM ≥ 0.8 and text-embeddings-inference ≥ 1.5,
 * OpenRLHF `serve_rm.py`):
 * - `vllm-pooling` POST /pooling `{model, input}` (or `{model, messages}`) → `{data: [{index, data}]}`; a reward
 *   model's `data` is `[score]`, or one row per token (the last token's row counts), entry `classIndex` (default 0).
 * - `vllm-classify` POST /classify `{model, input}` → `{data: [{index, label, probs, num_classes}]}`; the score is a
 *   one-class head's `probs[0]`, a two-class head's `probs[1]` (or `classIndex`).
 * - `vllm-score` POST /score `{model, text_1: [query…], text_2: [document…]}` → `{data: [{index, score}]}`.
 * - `tei-predict` POST /predict `{inputs, raw_scores: true}` → `[[{score, label}]]` per input; the only entry, or
 *   the one named by `label`.
 * - `tei-rerank` POST /rerank `{query, texts, raw_scores: true}` → `[{index, score}]` (one query per request).
 * - `openrlhf` POST /get_reward `{query: [text…]}` → `{rewards: [r…]}` (or `scores`).
 */
export const RM_APIS: Record<string, RmApi> = {
  "vllm-pooling": {
    path: "/pooling",
    maxBatch: chatBatch,
    body: (items, o) =>
      items[0]!.messages ? { model: o.model, messages: items[0]!.messages } : { model: o.model, input: inputs(items) },
    scores: (json, n, o) =>
      mapScores(byIndex(json, n), (e) => {
        let d = e.data;
        if (finite(d)) return d;
        if (Array.isArray(d) && Array.isArray(d[d.length - 1])) d = d[d.length - 1];
        if (Array.isArray(d) && d.length > 0 && d.every(finite))
          return d[o.classIndex ?? 0] ?? `classIndex ${o.classIndex} but ${d.length} values`;
        return "data is not a number or a list of numbers";
      }),
  },
  "vllm-classify": {
    path: "/classify",
    maxBatch: chatBatch,
    body: (items, o) =>
      items[0]!.messages ? { model: o.model, messages: items[0]!.messages } : { model: o.model, input: inputs(items) },
    scores: (json, n, o) => mapScores(byIndex(json, n), (e) => classOf(e.probs, o, "probs")),
  },
  "vllm-score": {
    path: "/score",
    maxBatch: () => 64,
    body: (items, o) => ({ model: o.model, text_1: items.map((i) => i.query), text_2: items.map((i) => i.text) }),
    scores: (json, n) => mapScores(byIndex(json, n), (e) => (finite(e.score) ? e.score : "no score")),
  },
  "tei-predict": {
    path: "/predict",
    maxBatch: () => 64,
    body: (items) => ({ inputs: items.length === 1 ? items[0]!.text : items.map((i) => i.text), raw_scores: true }),
    scores: (json, n, o) => {
      const rows = n === 1 && Array.isArray(json) && json.every(isRecord) ? [json] : json;
      if (!Array.isArray(rows) || rows.length !== n) return { error: `expected ${n} prediction lists` };
      const out: number[] = [];
      for (const [k, row] of rows.entries()) {
        if (!Array.isArray(row) || !row.every((x) => isRecord(x) && finite(x.score)))
          return { error: `result ${k}: not a list of {score, label}` };
        const r = row as Array<{ score: number; label?: string }>;
        const pick = o.label !== undefined ? r.find((x) => x.label === o.label) : r.length === 1 ? r[0] : undefined;
        if (!pick)
          return {
            error: `result ${k}: ${o.label !== undefined ? `no label ${o.label}` : `${r.length} labels (${r.map((x) => x.label).join(", ")}): set label`}`,
          };
        out.push(pick.score);
      }
      return { value: out };
    },
  },
  "tei-rerank": {
    path: "/rerank",
    maxBatch: () => 64,
    batchKey: (i) => i.query,
    body: (items) => ({ query: items[0]!.query, texts: items.map((i) => i.text), raw_scores: true }),
    scores: (json, n) => mapScores(byIndex(json, n), (e) => (finite(e.score) ? e.score : "no score")),
  },
  openrlhf: {
    path: "/get_reward",
    maxBatch: () => 64,
    body: (items) => ({ query: items.map((i) => i.text) }),
    scores: (json, n) => {
      const r = isRecord(json) ? (json.rewards ?? json.scores) : undefined;
      if (!Array.isArray(r) || r.length !== n) return { error: `expected {rewards: [${n} numbers]}` };
      const flat = (r as unknown[]).map((x): unknown => (Array.isArray(x) && x.length === 1 ? (x as unknown[])[0] : x));
      if (!flat.every(finite)) return { error: "rewards are not all finite numbers" };
      return { value: flat };
    },
  },
};
export const RM_API_NAMES = Object.keys(RM_APIS) as [string, ...string[]];
