/**
 * Anchors: the words with which a model states its final answer, one registry for every language and
 * format. Each anchor belongs to an extraction strategy (`final-answer`, `answer-line`, `gsm8k`); the answer
 * is read from the words after it ({@link answerFrom}). Every pattern is a fixed phrase with bounded
 * spacing, scanned once over the text (linear).
 */
import type { ExtractStrategy } from "./extract.js";

/** One anchor pattern. */
export interface Anchor {
  /** What it matches, for the docs and `details`. */
  name: string;
  strategy: ExtractStrategy;
  /** A global regex; the answer starts where the match ends. */
  re: RegExp;
  /** The answer must start right after the anchor (`A: 18`, not `A: Janet sells 9 eggs`). */
  strict?: boolean;
}

const NL = "(?<![\\p{L}])"; // no letter before (a word start)
const SP = "[ \\t]{1,4}";

/**
 * The anchors, by strategy. English phrases are case-insensitive; `A:` is case-sensitive (a GSM8K answer
 * line, not the letter a).
 */
export const ANCHORS: readonly Anchor[] = [
  {
    name: "the answer is / final answer: (en)",
    strategy: "final-answer",
    re: new RegExp(
      `${NL}(?:(?:the${SP})?(?:final|correct|right|exact)${SP}answer|the${SP}answer|(?:the${SP})?(?:correct|right|best)${SP}(?:option|choice))(?:${SP}(?:to|for)${SP}(?:the|this)${SP}(?:question|problem))?` +
        `[ \\t]{0,4}(?:(?:is|would${SP}be|should${SP}be|will${SP}be)(?![\\p{L}'’])|[=:：](?!=))[ \\t]{0,4}[:：]?`,
      "giu",
    ),
  },
  { name: "Final Answer (a heading)", strategy: "final-answer", re: new RegExp(`${NL}final${SP}answer(?=[ \\t*_#]{0,8}\\n)`, "giu") },
  {
    name: "la réponse est / la respuesta es / die Antwort ist / a resposta é / la risposta è",
    strategy: "final-answer",
    re: new RegExp(
      `${NL}(?:la${SP}(?:bonne${SP})?réponse(?:${SP}finale)?${SP}est|la${SP}respuesta(?:${SP}(?:final|correcta))?${SP}es|die${SP}(?:endgültige${SP}|richtige${SP})?antwort${SP}(?:ist|lautet)|a${SP}resposta(?:${SP}(?:final|correta))?${SP}é|la${SP}risposta(?:${SP}(?:finale|corretta))?${SP}è)(?![\\p{L}])[ \\t]{0,4}[:：]?`,
      "giu",
    ),
  },
  { name: "答案是 / 答案为 / 故选 (zh), 答えは (ja)", strategy: "final-answer", re: /(?:(?:最终|最后的|正确的?)?答案(?:应该|应|應)?(?:是|为|為)|故选|应选|答案选|答えは)[ \t]{0,4}[:：]?/gu },
  { name: "Answer: (a line)", strategy: "answer-line", re: /^[ \t>*#_]{0,8}(?:final[ \t]{1,4})?(?:answer|ans)[ \t*_]{0,4}[:：]/gimu },
  {
    name: "Réponse : / Respuesta: / Antwort: / Resposta: / Risposta: / Ответ: (a line)",
    strategy: "answer-line",
    re: new RegExp(`^[ \\t>*#_]{0,8}(?:réponse(?:${SP}finale)?|respuesta(?:${SP}final)?|antwort|resposta(?:${SP}final)?|risposta(?:${SP}finale)?|ответ)[ \\t*_]{0,4}[:：]`, "gimu"),
  },
  { name: "【答案】 / 答案： (zh), 答え： (ja)", strategy: "answer-line", re: /(?:【答案】|\[答案\]|答案[ \t]{0,4}[:：]|答え[ \t]{0,4}[:：])[ \t]{0,4}[:：]?/gu },
  { name: "A: (a GSM8K answer line)", strategy: "answer-line", re: /^[ \t>*_]{0,8}A[ \t]{0,3}[:：]/gmu, strict: true },
  { name: "#### (GSM8K)", strategy: "gsm8k", re: /(?<!#)####(?!#)/g },
];

/** One anchor found in a text: where it starts and where its answer starts. */
export interface AnchorHit {
  index: number;
  end: number;
  anchor: Anchor;
}

/**
 * Every anchor of the given strategies in `text`, ordered by position (the last one is the final statement).
 * Linear: each pattern is scanned once; overlapping hits of one pattern are not reported.
 */
export function anchorHits(text: string, strategies: ReadonlySet<ExtractStrategy>): AnchorHit[] {
  const hits: AnchorHit[] = [];
  for (const a of ANCHORS) {
    if (!strategies.has(a.strategy)) continue;
    a.re.lastIndex = 0;
    for (let m = a.re.exec(text); m !== null; m = a.re.exec(text)) {
      hits.push({ index: m.index, end: m.index + m[0].length, anchor: a });
      if (m[0] === "") a.re.lastIndex++;
    }
  }
  hits.sort((x, y) => x.index - y.index || y.end - x.end);
  return hits;
}
