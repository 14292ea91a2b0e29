import { NS, S, W, B } from "./python.js";
import { sentTokenize } from "./punkt.js";

/**
 * `nltk.word_tokenize(text)` (NLTK 3.8): Punkt sentences, then `NLTKWordTokenizer` (the improved Treebank tokenizer)
 * on each. Google's IFEval checker counts all-capital words with it (`change_case:capital_word_frequency`). The
 * substitutions below are NLTK's `nltk/tokenize/destructive.py`, in its order, with Python's `\w`, `\s`, `\b`, `\d`
 * and `$` spelled out (see `python.ts`).
 */

const END = "(?=\\n?$)"; // Python `$` without MULTILINE
const ND = "[^\\p{Nd}]";
type Rule = [RegExp, string];
const r = (src: string, flags = ""): RegExp => new RegExp(src, `gu${flags}`);

const STARTING_QUOTES: Rule[] = [
  [r("([«“‘„]|[`]+)"), " $1 "],
  [r('^"'), "``"],
  [r("(``)"), " $1 "],
  [r(`([ ([{<])("|'{2})`), "$1 `` "],
  [r(`(')(?!re|ve|ll|m|t|s|d|n)(${W})${B}`, "i"), "$1 $2"],
];
const ENDING_QUOTES: Rule[] = [
  [r("([»”’])"), " $1 "],
  [r("''"), " '' "],
  [r('"'), " '' "],
  [r("([^' ])('[sS]|'[mM]|'[dD]|') "), "$1 $2 "],
  [r("([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) "), "$1 $2 "],
];
const PUNCTUATION: Rule[] = [
  [r(`([^.])(\\.)([\\])}>"'»”’ ]*)${S}*${END}`), "$1 $2 $3 "],
  [r(`([:,])(${ND})`), " $1 $2"],
  [r(`([:,])${END}`), " $1 "],
  [r("\\.{2,}"), " $& "],
  [r("[;@#$%&]"), " $& "],
  [r(`([^.])(\\.)([\\])}>"']*)${S}*${END}`), "$1 $2$3 "],
  [r("[?!]"), " $& "],
  [r("([^'])' "), "$1 ' "],
  [r("[*]"), " $& "],
];
const PARENS_BRACKETS: Rule = [r("[\\][(){}<>]"), " $& "];
const DOUBLE_DASHES: Rule = [r("--"), " -- "];
const CONTRACTIONS: RegExp[] = [
  r(`${B}(can)(not)${B}`, "i"),
  r(`${B}(d)('ye)${B}`, "i"),
  r(`${B}(gim)(me)${B}`, "i"),
  r(`${B}(gon)(na)${B}`, "i"),
  r(`${B}(got)(ta)${B}`, "i"),
  r(`${B}(lem)(me)${B}`, "i"),
  r(`${B}(more)('n)${B}`, "i"),
  r(`${B}(wan)(na)(?=${S})`, "i"),
  r(` ('t)(is)${B}`, "i"),
  r(` ('t)(was)${B}`, "i"),
];
const SPLIT = r(`${NS}+`);

/** One sentence's tokens (`NLTKWordTokenizer.tokenize`, no parenthesis conversion). */
export function treebankTokenize(sentence: string): string[] {
  let t = sentence;
  for (const [re, sub] of STARTING_QUOTES) t = t.replace(re, sub);
  for (const [re, sub] of PUNCTUATION) t = t.replace(re, sub);
  t = t.replace(PARENS_BRACKETS[0], PARENS_BRACKETS[1]);
  t = t.replace(DOUBLE_DASHES[0], DOUBLE_DASHES[1]);
  t = ` ${t} `;
  for (const [re, sub] of ENDING_QUOTES) t = t.replace(re, sub);
  for (const re of CONTRACTIONS) t = t.replace(re, " $1 $2 ");
  return t.match(SPLIT) ?? [];
}

/** `nltk.word_tokenize(text)`: English Punkt sentences, each tokenized by {@link treebankTokenize}. */
export function wordTokenize(text: string): string[] {
  return sentTokenize(text).flatMap(treebankTokenize);
}
