/**
 * Anchors: the words with which a model states its final answer, one registry for every language and
 * format. Each anchor belongs to an extraction strategy (`final-answer`, `answer-line`, `gsm8k`); the answer
 * is read from the words after it ({@link answerFrom}). Every pattern is a fixed phrase with bounded
 * spacing, scanned once over the text (linear).
 */
import type { ExtractStrategy } from "./strategies.js";

/** One anchor pattern. */
export interface Anchor {
  /** What it matches, for the docs and `details`. */
  name: string;
  strategy: ExtractStrategy;
  /** A global regex; the answer starts where the match ends. */
  re: RegExp;
  /** The answer must start right after the anchor (`A: 18`, not `A: Janet sells 9 eggs`). */
  strict?: boolean;
  /** Lowercase literals of which every match contains one: a text without any of them is not scanned. */
  keys: readonly string[];
}

const NL = "(?<![A-Za-z\\u00C0-\\u024F\\u0370-\\u03FF\\u0400-\\u04FF])"; // no letter before (a word start); no `u` flag: faster
const SP = "[ \\t]{1,4}";

/**
 * The anchors, by strategy. English phrases are case-insensitive; `A:` is case-sensitive (a GSM8K answer
 * line, not the letter a).
 */
export const ANCHORS: readonly Anchor[] = [
  {
    name: "the answer is / final answer: (en)",
    keys: ["answer", "option", "choice"],
    strategy: "final-answer",
    re: new RegExp(
      `${NL}(?:(?:the${SP})?(?:final|correct|right|exact)${SP}answer|the${SP}answer|(?:the${SP})?(?:correct|right|best)${SP}(?:option|choice))(?:${SP}(?:to|for)${SP}(?:the|this)${SP}(?:question|problem))?` +
        `[ \\t]{0,4}(?:(?:is|would${SP}be|should${SP}be|will${SP}be)(?![A-Za-z\\u00C0-\\u024F'’])|[=:：](?!=))[ \\t]{0,4}[:：]?`,
      "gi",
    ),
  },
  {
    name: "Final Answer (a heading)",
    keys: ["answer"],
    strategy: "final-answer",
    re: new RegExp(`${NL}final${SP}answer(?=[ \\t*_#]{0,8}\\n)`, "gi"),
  },
  {
    name: "(la) réponse est / (la) respuesta es / (die) Antwort ist / (a) resposta é / (la) risposta è",
    keys: ["réponse", "respuesta", "antwort", "resposta", "risposta"],
    strategy: "final-answer",
    re: new RegExp(
      `${NL}(?:(?:la${SP}(?:bonne${SP})?)?réponse(?:${SP}finale)?${SP}est|(?:la${SP})?respuesta(?:${SP}(?:final|correcta))?${SP}es|(?:die${SP})?(?:endgültige${SP}|richtige${SP})?antwort${SP}(?:ist|lautet)|(?:a${SP})?resposta(?:${SP}(?:final|correta))?${SP}é|(?:la${SP})?risposta(?:${SP}(?:finale|corretta))?${SP}è)(?![A-Za-z\\u00C0-\\u024F])[ \\t]{0,4}[:：]?`,
      "gi",
    ),
  },
  {
    name: "答案是 / 答案为 / 故选 (zh), 答えは (ja)",
    keys: ["答案", "故选", "应选", "答え"],
    strategy: "final-answer",
    re: /(?:(?:最终|最后的|正确的?)?答案(?:应该|应|應)?(?:是|为|為)|故选|应选|答案选|答えは)[ \t]{0,4}[:：]?/g,
  },
  {
    name: "Answer: (a line)",
    keys: ["answer", "ans"],
    strategy: "answer-line",
    re: /^[ \t>*#_]{0,8}(?:final[ \t]{1,4})?(?:answer|ans)[ \t*_]{0,4}[:：]/gim,
  },
  {
    name: "Réponse : / Respuesta: / Antwort: / Resposta: / Risposta: / Ответ: (a line)",
    keys: ["réponse", "respuesta", "antwort", "resposta", "risposta", "ответ"],
    strategy: "answer-line",
    re: new RegExp(
      `^[ \\t>*#_]{0,8}(?:réponse(?:${SP}finale)?|respuesta(?:${SP}final)?|antwort|resposta(?:${SP}final)?|risposta(?:${SP}finale)?|ответ)[ \\t*_]{0,4}[:：]`,
      "gim",
    ),
  },
  {
    name: "【答案】 / 答案： (zh), 答え： (ja)",
    keys: ["答案", "答え"],
    strategy: "answer-line",
    re: /(?:【答案】|\[答案\]|答案[ \t]{0,4}[:：]|答え[ \t]{0,4}[:：])[ \t]{0,4}[:：]?/g,
  },
  {
    name: "答： (zh, a line: the written answer of a word problem)",
    keys: ["答"],
    strategy: "answer-line",
    re: /^[ \t]{0,8}答[ \t]{0,4}[:：]/gm,
  },
  {
    name: "A: (a GSM8K answer line)",
    keys: ["a:", "a :", "a  :", "a\t:", "a："],
    strategy: "answer-line",
    re: /^[ \t>*_]{0,8}A[ \t]{0,3}[:：]/gm,
    strict: true,
  },
  { name: "#### (GSM8K)", keys: ["####"], strategy: "gsm8k", re: /(?<!#)####(?!#)/g },
];

/** Letters from the most to the least frequent in English; characters not listed are rarer still. */
const FREQUENT = "etaoinshrdlcumwfgypbvkjxqz ";

/** The character of `key` that is rarest in text (its one-character search rules most texts out). */
function probe(key: string): string {
  let best = key[0] ?? "";
  let rank = -2;
  for (const c of key) {
    const r = FREQUENT.indexOf(c);
    const score = r < 0 ? 100 : FREQUENT.length - 1 - r === 0 ? -1 : r;
    if (score > rank) {
      rank = score;
      best = c;
    }
  }
  return best;
}

const PROBES = new Map<string, string>();
/** Up to this length a text is searched for a key directly. */
const SHORT = 256;

/**
 * Whether `lower` contains `key`, found from the occurrences of the key's rarest character: a one-character
 * search is fast on any text, where a search for `answer` in `aaaa…` or `a:` in `a a a …` is not.
 */
function hasKey(lower: string, key: string): boolean {
  if (lower.length <= SHORT) return lower.includes(key); // the text after a final box, usually
  let p = PROBES.get(key);
  if (p === undefined) {
    p = probe(key);
    PROBES.set(key, p);
  }
  const off = key.indexOf(p);
  for (let i = lower.indexOf(p, off); i >= 0; i = lower.indexOf(p, i + 1))
    if (lower.startsWith(key, i - off)) return true;
  return false;
}

/** Every key of every anchor, as one regex. */
let anyKeyRe: RegExp | undefined;
function anyKey(): RegExp {
  anyKeyRe ??= new RegExp(
    [...new Set(ANCHORS.flatMap((a) => a.keys))].map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"),
  );
  return anyKeyRe;
}

/**
 * Every key of every anchor, as one case-insensitive global regex for a search of `text` from an offset: it
 * matches wherever the lowercased text holds a key (and in a few more places: `/i` also folds `ᲀ` to `в`), so
 * that a short text is ruled out without making its lowercase copy.
 */
let anyKeyTextRe: RegExp | undefined;
function anyKeyFrom(text: string, from: number): boolean {
  anyKeyTextRe ??= new RegExp(anyKey().source, "gi");
  anyKeyTextRe.lastIndex = from;
  return anyKeyTextRe.test(text);
}

/** Whether `lower` contains one of `keys`. */
function hasAnyKey(lower: string, keys: readonly string[]): boolean {
  for (const k of keys) if (hasKey(lower, k)) return true;
  return false;
}

/** One anchor found in a text: where it starts and where its answer starts. */
export interface AnchorHit {
  index: number;
  end: number;
  anchor: Anchor;
}

/**
 * The last `keep` hits of every anchor pattern of the given strategies in `text` that start at or after `from`,
 * ordered by position (the last one is the final statement). Linear: a pattern is scanned once, and only when the text contains
 * one of its keywords; overlapping hits of one pattern are not reported.
 */
export function anchorHits(text: string, strategies: ReadonlySet<ExtractStrategy>, keep = 8, from = 0): AnchorHit[] {
  const hits: AnchorHit[] = [];
  // the keys are looked for in the searched part only: a hit at or after `from` holds its key there
  let lower: string | undefined;
  let sorted = true; // whether `hits` is in the order of byPosition (one pattern's hits are)
  for (const a of ANCHORS) {
    if (!strategies.has(a.strategy)) continue;
    if (lower === undefined) {
      // the usual case, the few characters after a final box: ruled out before its lowercase copy is made
      if (text.length - from <= SHORT && !anyKeyFrom(text, from)) return hits;
      lower = (from > 0 ? text.slice(from) : text).toLowerCase();
      // a short text (the rest of a text after its last box, usually) without any key: no anchor, one search
      if (lower.length <= SHORT && !anyKey().test(lower)) return hits;
    }
    if (!hasAnyKey(lower, a.keys)) continue;
    // this pattern's last `keep` hits, pushed straight into `hits` from `base` on (no array per pattern)
    const base = hits.length;
    // no anchor matches a backslash, so no hit before `from` (a box's start) overlaps one after it: scanning from
    // there finds exactly the full scan's hits at or after `from`
    a.re.lastIndex = from;
    for (let m = a.re.exec(text); m !== null; m = a.re.exec(text)) {
      if (keep > 0 && hits.length - base === keep) {
        // drop this pattern's oldest hit: the others move down one slot
        hits.copyWithin(base, base + 1);
        hits.length--;
      }
      hits.push({ index: m.index, end: m.index + m[0].length, anchor: a });
      if (m[0] === "") a.re.lastIndex++;
    }
    if (
      sorted &&
      base > 0 &&
      hits.length > base &&
      byPosition(hits[base - 1] as AnchorHit, hits[base] as AnchorHit) > 0
    )
      sorted = false;
  }
  // a sort copies the array: most texts have one pattern's hits, already in order
  if (!sorted) hits.sort(byPosition);
  return hits;
}

/** The order of {@link anchorHits}: by start, the longer first at one start. */
function byPosition(x: AnchorHit, y: AnchorHit): number {
  return x.index - y.index || y.end - x.end;
}
