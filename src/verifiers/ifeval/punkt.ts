import { existsSync, readFileSync } from "node:fs";
import { NS, S, W, rstrip, isLower, isUpper } from "./python.js";

/**
 * The Punkt sentence tokenizer (Kiss & Strunk 2006, "Unsupervised Multilingual Sentence Boundary Detection") with
 * NLTK's pretrained English parameters, as `nltk.data.load("tokenizers/punkt/english.pickle").tokenize(text)`
 * computes it (NLTK 3.8 `nltk/tokenize/punkt.py`: `PunktSentenceTokenizer.span_tokenize` with boundary realignment).
 * Google's IFEval checker counts sentences with it (`instructions_util.count_sentences`), and `nltk.word_tokenize`
 * splits sentences with it first.
 *
 * Only tokenization is implemented (no training): the parameters — abbreviation types, collocations, frequent
 * sentence starters and orthographic contexts — are NLTK's English model, extracted to `data/punkt-english.json`
 * (see `data/SOURCE.md`).
 */

interface PunktParams {
  abbrevTypes: string[];
  collocations: [string, string][];
  sentStarters: string[];
  orthoContext: Record<string, number>;
}

const ORTHO_BEG_UC = 1 << 1;
const ORTHO_MID_UC = 1 << 2;
const ORTHO_UNK_UC = 1 << 3;
const ORTHO_BEG_LC = 1 << 4;
const ORTHO_MID_LC = 1 << 5;
const ORTHO_UNK_LC = 1 << 6;
const ORTHO_UC = ORTHO_BEG_UC + ORTHO_MID_UC + ORTHO_UNK_UC;
const ORTHO_LC = ORTHO_BEG_LC + ORTHO_MID_LC + ORTHO_UNK_LC;

let params: { abbrev: Set<string>; colloc: Set<string>; starters: Set<string>; ortho: Map<string, number> } | undefined;
function model(): NonNullable<typeof params> {
  if (!params) {
    // read on first use, not imported: a 361 KB object literal parsed and built at every process start (it sat in
    // the CLI bundle's main chunk) cost each `rewardkit score` run its parse and a larger heap to collect, IFEval
    // spec or not. The file sits beside this source: three folders up from src/ and dist/, two from the CLI bundle.
    const rel = "src/verifiers/ifeval/data/punkt-english.json";
    const file = [`../../../${rel}`, `../../${rel}`].map((r) => new URL(r, import.meta.url)).find((u) => existsSync(u));
    if (file === undefined) throw new Error(`the Punkt model ${rel} is missing from this installation`);
    const p = JSON.parse(readFileSync(file, "utf8")) as PunktParams;
    params = {
      abbrev: new Set(p.abbrevTypes),
      colloc: new Set(p.collocations.map(([a, b]) => `${a}\u0000${b}`)),
      starters: new Set(p.sentStarters),
      ortho: new Map(Object.entries(p.orthoContext)),
    };
  }
  return params;
}

// PunktLanguageVars (English defaults)
const NON_WORD = `(?:[)";}\\]*:@'({\\[?!])`;
const MULTI_CHAR = `(?:-{2,}|\\.{2,}|(?:\\.${S}){2,}\\.)`;
const WORD_START = `[^("\`{\\[:;&#*@)}\\]\\-,]`;
/** Python `$` without MULTILINE: the end, or just before a final newline. */
const END = "(?=\\n?$)";
const WORD_RE = new RegExp(
  `${MULTI_CHAR}|(?=${WORD_START})${NS}+?(?=${S}|${END}|${NON_WORD}|${MULTI_CHAR}|,(?=${END}|${S}|${NON_WORD}|${MULTI_CHAR}))|${NS}`,
  "gu",
);
const PERIOD_CONTEXT = new RegExp(`[.?!](?=(?<after>${NON_WORD}|${S}+(?<next>${NS}+)))`, "gdu");
const BOUNDARY_REALIGN = new RegExp(`^["')\\]}]+?(?:${S}+|(?=--)|(?=\\n|$))`, "u");
const RE_NUMERIC = new RegExp(`^-?[.,]?\\p{Nd}[\\p{Nd},.\\-]*\\.?${END}`, "u");
const ALPHA_NOT_DIGIT = `(?!\\p{Nd})${W}`; // Python [^\W\d]
const RE_INITIAL = new RegExp(`^${ALPHA_NOT_DIGIT}\\.${END}`, "u");
const RE_ELLIPSIS = new RegExp(`^\\.\\.+${END}`, "u");
const PUNCTUATION = new Set([";", ":", ",", ".", "!", "?"]);
const ASCII_WHITESPACE = new Set([" ", "\t", "\n", "\r", "\x0b", "\x0c"]);

interface Token {
  tok: string;
  type: string;
  periodFinal: boolean;
  sentbreak: boolean;
  abbr: boolean;
  ellipsis: boolean;
}

function token(tok: string): Token {
  const lower = tok.toLowerCase();
  return {
    tok,
    type: RE_NUMERIC.test(lower) ? "##number##" : lower,
    periodFinal: tok.endsWith("."),
    sentbreak: false,
    abbr: false,
    ellipsis: false,
  };
}
const typeNoPeriod = (t: Token): string => (t.type.length > 1 && t.type.endsWith(".") ? t.type.slice(0, -1) : t.type);
const typeNoSentperiod = (t: Token): string => (t.sentbreak ? typeNoPeriod(t) : t.type);
const firstChar = (t: Token): string => String.fromCodePoint(t.tok.codePointAt(0)!);
const firstUpper = (t: Token): boolean => isUpper(firstChar(t));
const firstLower = (t: Token): boolean => isLower(firstChar(t));

/** PunktBaseClass._tokenize_words: word tokens line by line (line and paragraph starts are not used when tokenizing). */
function tokenizeWords(text: string): Token[] {
  const out: Token[] = [];
  for (const line of text.split("\n")) {
    if (rstrip(line) === "") continue;
    for (const m of line.matchAll(WORD_RE)) out.push(token(m[0]));
  }
  return out;
}

/** First pass: sentence-final punctuation, ellipses, known abbreviations (`_first_pass_annotation`). */
function firstPass(t: Token, abbrev: ReadonlySet<string>): void {
  const tok = t.tok;
  if (tok === "." || tok === "?" || tok === "!") t.sentbreak = true;
  else if (RE_ELLIPSIS.test(tok)) t.ellipsis = true;
  else if (t.periodFinal && !tok.endsWith("..")) {
    const stem = tok.slice(0, -1).toLowerCase();
    if (abbrev.has(stem) || abbrev.has(stem.split("-").pop()!)) t.abbr = true;
    else t.sentbreak = true;
  }
}

/** `_ortho_heuristic`: true (starts a sentence), false (does not) or "unknown". */
function ortho(t: Token): boolean | "unknown" {
  if (PUNCTUATION.has(t.tok)) return false;
  const oc = model().ortho.get(typeNoSentperiod(t)) ?? 0;
  if (firstUpper(t) && oc & ORTHO_LC && !(oc & ORTHO_MID_UC)) return true;
  if (firstLower(t) && (oc & ORTHO_UC || !(oc & ORTHO_BEG_LC))) return false;
  return "unknown";
}

/** Second pass over a pair (`_second_pass_annotation`): collocations, abbreviations, initials and ordinals. */
function secondPass(t1: Token, t2: Token): void {
  if (!t1.periodFinal) return;
  const m = model();
  const typ = typeNoPeriod(t1);
  const nextTyp = typeNoSentperiod(t2);
  const initial = RE_INITIAL.test(t1.tok);
  if (m.colloc.has(`${typ}\u0000${nextTyp}`)) {
    t1.sentbreak = false;
    t1.abbr = true;
    return;
  }
  if ((t1.abbr || t1.ellipsis) && !initial) {
    if (ortho(t2) === true) {
      t1.sentbreak = true;
      return;
    }
    if (firstUpper(t2) && m.starters.has(nextTyp)) {
      t1.sentbreak = true;
      return;
    }
  }
  if (initial || typ === "##number##") {
    const s = ortho(t2);
    if (s === false) {
      t1.sentbreak = false;
      t1.abbr = true;
      return;
    }
    if (s === "unknown" && initial && firstUpper(t2) && !((m.ortho.get(nextTyp) ?? 0) & ORTHO_LC)) {
      t1.sentbreak = false;
      t1.abbr = true;
    }
  }
}

/** `text_contains_sentbreak`: some token after the first sentence break. */
function containsSentbreak(text: string): boolean {
  const toks = tokenizeWords(text);
  const abbrev = model().abbrev;
  for (const t of toks) firstPass(t, abbrev);
  // the second pass of token k reads token k+1 as the first pass left it, so go left to right on a copy
  const first = toks.map((t) => ({ ...t }));
  for (let k = 0; k + 1 < toks.length; k++) secondPass(toks[k]!, first[k + 1]!);
  let found = false;
  for (const t of toks) {
    if (found) return true;
    if (t.sentbreak) found = true;
  }
  return false;
}

/** Index of the last ASCII whitespace in `s`, 0 when none (NLTK's `_get_last_whitespace_index`, quirk included). */
function lastWhitespace(s: string): number {
  for (let i = s.length - 1; i >= 0; i--) if (ASCII_WHITESPACE.has(s[i]!)) return i;
  return 0;
}

/** Candidate breaks with their context (`_match_potential_end_contexts`). */
function* endContexts(text: string): Generator<{ end: number; next: number | undefined; context: string }> {
  let prevStart = 0;
  let prevStop = 0;
  let prev: RegExpExecArray | undefined;
  const emit = (m: RegExpExecArray, start: number, stop: number) => ({
    end: m.index + 1,
    next: m.indices!.groups!.next?.[0],
    context: text.slice(start, stop) + m[0] + (m.groups!.after ?? ""),
  });
  PERIOD_CONTEXT.lastIndex = 0;
  for (let m = PERIOD_CONTEXT.exec(text); m; m = PERIOD_CONTEXT.exec(text)) {
    const before = text.slice(prevStop, m.index);
    let startAfterSpace = lastWhitespace(before);
    if (startAfterSpace) startAfterSpace += prevStop + 1;
    else startAfterSpace = prevStart;
    if (prev && prevStop <= startAfterSpace) yield emit(prev, prevStart, prevStop);
    prev = m;
    prevStart = startAfterSpace;
    prevStop = m.index;
  }
  if (prev) yield emit(prev, prevStart, prevStop);
}

/**
 * Sentence spans of `text` (start, end) as NLTK's `PunktSentenceTokenizer.span_tokenize(text)` with English
 * parameters and boundary realignment. UTF-16 offsets.
 */
export function sentenceSpans(text: string): Array<[number, number]> {
  const slices: Array<[number, number]> = [];
  let lastBreak = 0;
  for (const { end, next, context } of endContexts(text)) {
    if (!containsSentbreak(context)) continue;
    slices.push([lastBreak, end]);
    lastBreak = next ?? end;
  }
  slices.push([lastBreak, rstrip(text).length]);
  // _realign_boundaries
  const out: Array<[number, number]> = [];
  let realign = 0;
  for (let k = 0; k < slices.length; k++) {
    const s1: [number, number] = [slices[k]![0] + realign, slices[k]![1]];
    const s2 = slices[k + 1];
    if (!s2) {
      if (s1[1] > s1[0]) out.push(s1);
      continue;
    }
    const m = BOUNDARY_REALIGN.exec(text.slice(s2[0], s2[1]));
    if (m) {
      out.push([s1[0], s2[0] + rstrip(m[0]).length]);
      realign = m[0].length;
    } else {
      realign = 0;
      if (s1[1] > s1[0]) out.push(s1);
    }
  }
  return out;
}

/** Sentences of `text`, as `nltk.sent_tokenize(text)` (English Punkt). */
export function sentTokenize(text: string): string[] {
  return sentenceSpans(text).map(([a, b]) => text.slice(a, b));
}
