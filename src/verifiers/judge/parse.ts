import { z } from "zod";
import { getPath } from "../../io/fields.js";
import { findJson } from "../structured/extract-json.js";

/**
 * Judge-output parsers: text → a score in [0, 1]. Every parser takes the LAST match in the text (a judge that
 * quotes the format instructions, "… for example: Rating: [[5]]", before giving its own rating is read by its own),
 * and reports where that match is, so probability-based scoring can find the token that carries it.
 */

/** A parsed judgment. `score` is normalized to [0, 1]; `value` is what the judge wrote (number or label). */
export type Parsed = { score: number; value: number | string; at: number; length: number } | { error: string };

/** A compiled parser. */
export interface Parser {
  /** `number`: a rating on a scale; `label`: one of several labels (samples vote); `ranking`: listwise order. */
  kind: "number" | "label" | "ranking";
  /** What the parser reads, for `rewardkit check` and error messages. */
  describe: string;
  parse(text: string, item?: unknown): Parsed;
  /**
   * The normalized score a single generated token stands for (`"7"` → (7 − min)/(max − min), `" Yes"` → 1), or
   * undefined when the token is not a value: the candidates of probability-based scoring.
   */
  tokenValue?(token: string): number | undefined;
}

const NUM = "(\\d+(?:\\.\\d+)?)";

/** The ready-made formats (`parse: <name>`), each with its scale. */
export const PRESETS = {
  /** MT-Bench / Arena single-answer grading: `Rating: [[7]]`, 1–10 (FastChat `one_score_pattern`, decimals allowed). */
  "mt-bench": { pattern: `\\[\\[\\s*${NUM}\\s*\\]\\]`, min: 1, max: 10 },
  /** `Rating: 7` or `Rating: [[7]]`, 1–10. */
  rating: { pattern: `[Rr]ating\\s*[:：]\\s*\\[{0,2}\\s*${NUM}`, min: 1, max: 10 },
  /** Prometheus absolute grading: `… [RESULT] 4`, 1–5 (prometheus-eval `ABS_SYSTEM_PROMPT`). */
  prometheus: { pattern: `\\[RESULT\\]\\s*\\(?\\s*${NUM}`, min: 1, max: 5 },
  /** GAOKAO-Bench teacher grading: `【得分】5分【总分】5分`; normalized by 【总分】 when present, else by `max`. */
  gaokao: { pattern: `【得分】\\s*[:：]?\\s*${NUM}`, min: 0, max: undefined },
  /** A yes/no verdict (`yes` → 1, `no` → 0, any case). */
  "yes-no": { pattern: "\\b(yes|no)\\b", min: 0, max: 1 },
  /** A pairwise letter verdict `[[A>B]]` (Arena-Hard) or `[[A]]`/`[[B]]`/`[[C]]` (MT-Bench pairwise): P(A is better). */
  verdict: { pattern: "\\[\\[\\s*(A>>B|A>B|A=B|B>A|B>>A|A<<B|A<B|B<A|B<<A|A|B|C|tie)\\s*\\]\\]", min: 0, max: 1 },
  /** A listwise ranking `[[2, 1, 3]]` or `[[2 > 1 > 3]]`, best first (item numbers as shown, from 1). */
  ranking: { pattern: "\\[\\[\\s*(\\d+(?:\\s*[,>]\\s*\\d+)*)\\s*\\]\\]", min: 0, max: 1 },
} as const;
export type PresetName = keyof typeof PRESETS;
export const PRESET_NAMES = Object.keys(PRESETS) as [PresetName, ...PresetName[]];

/**
 * Score of answer A for each verdict: strong preference 1 / 0, preference 0.75 / 0.25, tie 0.5 (Arena-Hard's
 * five verdicts on a [0, 1] scale; MT-Bench pairwise `[[A]]` 1, `[[B]]` 0, `[[C]]` 0.5).
 */
export const VERDICT_SCORES: Readonly<Record<string, number>> = {
  "A>>B": 1,
  "B<<A": 1,
  "A>B": 0.75,
  "B<A": 0.75,
  "A=B": 0.5,
  tie: 0.5,
  C: 0.5,
  "B>A": 0.25,
  "A<B": 0.25,
  "B>>A": 0,
  "A<<B": 0,
  A: 1,
  B: 0,
};

/** The `parse` option as written in a spec. */
export const parseOption = z.union([
  z.enum(PRESET_NAMES),
  z.strictObject({
    /** A ready-made format whose scale is overridden. */
    preset: z.enum(PRESET_NAMES),
    min: z.number().finite().optional(),
    max: z.number().finite().optional(),
  }),
  z.strictObject({
    /** A regular expression (JavaScript syntax) whose first group is the number. */
    pattern: z.string().min(1),
    /** Extra regex flags: any of `i`, `m`, `s`, `u`. */
    flags: z
      .string()
      .regex(/^[imsu]*$/, "flags may be i, m, s, u")
      .optional(),
    min: z.number().finite(),
    max: z.number().finite(),
  }),
  z.strictObject({
    /** Dotted path of the number in the judge's JSON answer (e.g. `result`); the last JSON object in the text is read. */
    json: z.string().min(1),
    min: z.number().finite(),
    max: z.number().finite(),
  }),
  z.strictObject({
    /** The labels the judge may answer with (OpenAI `label_model`). */
    labels: z.array(z.string().min(1)).min(2),
    /** The labels that pass (score 1); every other label scores 0. */
    passing: z.array(z.string().min(1)).min(1),
  }),
]);
export type ParseOption = z.infer<typeof parseOption>;

/** The last match of a global regex, or undefined. Linear in the text for the presets. */
function lastMatch(re: RegExp, text: string): RegExpExecArray | undefined {
  re.lastIndex = 0;
  let last: RegExpExecArray | undefined;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    last = m;
    if (m[0].length === 0) re.lastIndex++;
  }
  return last;
}

function scaled(v: number, min: number, max: number): number {
  return (v - min) / (max - min);
}

function numberParser(
  source: string,
  flags: string,
  min: number | undefined,
  max: number | undefined,
  describe: string,
  gaokao = false,
): Parser {
  const re = new RegExp(source, `g${flags}`);
  const total = /【总分】\s*[:：]?\s*(\d+(?:\.\d+)?)/g;
  return {
    kind: "number",
    describe,
    parse(text) {
      const m = lastMatch(re, text);
      if (!m) return { error: `no match of ${describe}` };
      const g = m[1];
      if (g === undefined) return { error: `${describe}: the pattern's first group did not take part in the match` };
      const v = Number(g.trim());
      if (g.trim() === "" || !Number.isFinite(v)) return { error: `${describe}: ${JSON.stringify(g)} is not a number` };
      let hi = max;
      if (gaokao) {
        const t = lastMatch(total, text);
        if (t) hi = Number(t[1]);
      }
      if (hi === undefined || min === undefined)
        return { error: `${describe}: no 【总分】 in the text and no max in the spec` };
      if (!(hi > min)) return { error: `${describe}: empty scale [${min}, ${hi}]` };
      if (v < min || v > hi) return { error: `${describe}: ${v} is outside [${min}, ${hi}]` };
      return { score: scaled(v, min, hi), value: v, at: m.index + m[0].lastIndexOf(g), length: g.length };
    },
    tokenValue(token) {
      const t = token.trim();
      if (!/^\d+(\.\d+)?$/.test(t) || min === undefined || max === undefined) return undefined;
      const v = Number(t);
      return v >= min && v <= max ? scaled(v, min, max) : undefined;
    },
  };
}

/** Label parser: the whole answer when it is one label, else the label mentioned last (whole words, any case unless two labels differ only in case). */
function labelParser(
  labels: readonly string[],
  passing: readonly string[],
  describe: string,
  values?: Record<string, number>,
): Parser {
  const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const sorted = [...labels].sort((a, b) => b.length - a.length); // longest first at one position
  // labels that differ only in case ("m" / "M", AlpacaEval's identifiers) are matched case-sensitively
  const fold = new Set(labels.map((l) => l.toLowerCase())).size === labels.length;
  const norm = (x: string): string => (fold ? x.toLowerCase() : x);
  const re = new RegExp(`(?<![\\p{L}\\p{N}_])(${sorted.map(esc).join("|")})(?![\\p{L}\\p{N}_])`, fold ? "giu" : "gu");
  const canon = new Map(labels.map((l) => [norm(l), l]));
  const valueOf = (label: string): number => values?.[label] ?? (passing.includes(label) ? 1 : 0);
  return {
    kind: values ? "number" : "label",
    describe,
    parse(text) {
      const whole = text.trim().replace(/^["'`*\s]+|["'`*.\s]+$/g, "");
      const exact = canon.get(norm(whole));
      if (exact !== undefined)
        return { score: valueOf(exact), value: exact, at: text.indexOf(whole), length: whole.length };
      const m = lastMatch(re, text);
      if (!m) return { error: `no label (${labels.join(", ")}) in the answer` };
      const label = canon.get(norm(m[1]!))!;
      return { score: valueOf(label), value: label, at: m.index, length: m[0].length };
    },
    tokenValue(token) {
      const label = canon.get(norm(token.trim()));
      return label === undefined ? undefined : valueOf(label);
    },
  };
}

function verdictParser(): Parser {
  const re = new RegExp(PRESETS.verdict.pattern, "g");
  return {
    kind: "number",
    describe: "verdict [[A>B]]",
    parse(text) {
      const m = lastMatch(re, text);
      if (!m) return { error: "no verdict [[A>>B]] … [[B>>A]] / [[A]] [[B]] [[C]]" };
      const v = m[1]!;
      return { score: VERDICT_SCORES[v]!, value: v, at: m.index + m[0].indexOf(v), length: v.length };
    },
  };
}

/** Ranking parser: `[[2, 1, 3]]` → value "2,1,3" (best first); checked against the group by the listwise judge. */
function rankingParser(): Parser {
  const re = new RegExp(PRESETS.ranking.pattern, "g");
  return {
    kind: "ranking",
    describe: "ranking [[2, 1, 3]]",
    parse(text) {
      const m = lastMatch(re, text);
      if (!m) return { error: "no ranking [[i, j, …]] in the answer" };
      const order = m[1]!.split(/[,>]/).map((s) => Number(s.trim()));
      return { score: 0, value: order.join(","), at: m.index, length: m[0].length };
    },
  };
}

function jsonParser(path: string, min: number, max: number): Parser {
  const describe = `JSON field ${path}`;
  return {
    kind: "number",
    describe,
    parse(text) {
      const found = findJson(text, "auto");
      if (found.kind !== "ok")
        return {
          error: found.kind === "none" ? "no JSON in the answer" : `the answer's JSON does not parse: ${found.error}`,
        };
      const v = getPath(found.value, path);
      const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
      if (typeof n !== "number" || !Number.isFinite(n))
        return { error: `${describe}: ${JSON.stringify(v ?? null)} is not a number` };
      if (n < min || n > max) return { error: `${describe}: ${n} is outside [${min}, ${max}]` };
      return { score: scaled(n, min, max), value: n, at: 0, length: text.length };
    },
  };
}

/**
 * Compiles the `parse` option. Throws (a spec error upstream) for a pattern that is not a valid regex, has no group,
 * or a scale with max ≤ min.
 * Examples: `mt-bench` on "… Rating: [[9.5]]" → 0.9444 (value 9.5); `prometheus` on "… [RESULT] 4" → 0.75;
 * `yes-no` on "Yes." → 1; `{pattern: "Score: (\\d+)", min: 0, max: 100}` on "Score: 85" → 0.85.
 */
export function compileParser(p: ParseOption): Parser {
  if (typeof p === "string" || "preset" in p) {
    const name = typeof p === "string" ? p : p.preset;
    const pre = PRESETS[name];
    const min = (typeof p === "object" ? p.min : undefined) ?? pre.min;
    const max = (typeof p === "object" ? p.max : undefined) ?? pre.max;
    if (name === "verdict") return verdictParser();
    if (name === "ranking") return rankingParser();
    if (name === "yes-no") return labelParser(["yes", "no"], ["yes"], "yes-no", { yes: 1, no: 0 });
    if (max !== undefined && !(max > min)) throw new Error(`parse ${name}: max must be greater than min`);
    return numberParser(pre.pattern, "", min, max, name, name === "gaokao");
  }
  if ("pattern" in p) {
    let re: RegExp;
    try {
      re = new RegExp(p.pattern, p.flags ?? "");
    } catch (e) {
      throw new Error(`parse.pattern: ${(e as Error).message}`);
    }
    if (new RegExp(`${re.source}|`).exec("")!.length < 2)
      throw new Error("parse.pattern: needs a capture group around the number");
    if (!(p.max > p.min)) throw new Error("parse: max must be greater than min");
    return numberParser(p.pattern, p.flags ?? "", p.min, p.max, `pattern /${p.pattern}/`);
  }
  if ("json" in p) {
    if (!(p.max > p.min)) throw new Error("parse: max must be greater than min");
    return jsonParser(p.json, p.min, p.max);
  }
  const unknown = p.passing.filter((l) => !p.labels.includes(l));
  if (unknown.length > 0)
    throw new Error(`parse.passing: ${unknown.map((l) => JSON.stringify(l)).join(", ")} not among the labels`);
  return labelParser(p.labels, p.passing, `labels ${p.labels.join("/")}`);
}
