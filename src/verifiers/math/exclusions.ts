/**
 * Options ruled out next to an answer: `The answer is D, it can't be A or B`, `B，不是 A`, `réponse est C non A`,
 * `A and B are wrong`. The exclusions are blanked before an answer is read (`prepare.ts`), so that what remains is
 * read as usual: one stated option is the answer, two affirmed options are still a hedge.
 *
 * One regex of fixed phrases with bounded spacing, scanned once (linear); positions are kept.
 */

/** Case-insensitive source for a lowercase phrase, leaving the option letters (upper case only) case-sensitive. */
function ci(source: string): string {
  // escapes (`\t`, `\u2019`) and character classes are kept as they are
  return source.replace(/\\u[0-9a-fA-F]{4}|\\.|\[[^\]]*\]|[a-z]/g, (c) =>
    c.length === 1 ? `[${c}${c.toUpperCase()}]` : c,
  );
}

const APOS = "['\u2019]";
/** One option named in a sentence: `A`, `(A)`, `**A**`, `option A`, `choice (A)`; a capital standing alone. */
const OPTION = String.raw`(?:(?:${ci("options?")}|${ci("choices?")}|${ci("answers?")})[ \t]{1,3})?(?:\([ \t]?[A-J][ \t]?\)|\*\*[A-J]\*\*|(?<![A-Za-z0-9\\])[A-J](?![A-Za-z0-9'\u2019]))`;
/** A list of options: `A or B`, `A, B, nor C`, `A 或 B`, `(A)/(B)`. */
const JOIN = String.raw`(?:[ \t]{0,3}(?:,|/|、|，|&)?[ \t]{0,3}(?:${ci("or")}|${ci("nor")}|${ci("and")}|${ci("ou")}|${ci("ni")}|${ci("oder")}|${ci("noch")}|${ci("et")}|y|o|或|和|与|也不是|也不)?[ \t]{0,3})`;
const OPTIONS = `${OPTION}(?:${JOIN}${OPTION}){0,9}`;

/**
 * Words that rule out the options after them, in the languages of the anchor table: `not`, `isn't`,
 * `can't be`, `cannot be`, `rather than`, `instead of`, `rule out`; `pas`, `non`, `ni`, `plutôt que`; `no es`,
 * `ni`; `nicht`, `kein`, `statt`; `non è`; `não`; `不是`, `并非`, `而非`, `排除`, `不可能是`. A subject before them
 * (`it can't be`, `it's not`) goes with them.
 */
const NEGATION_BEFORE = [
  String.raw`(?:(?:it|this|that|which|and|but|so|answer|the${"[ \\t]{1,3}"}answer)(?:${APOS}s|[ \t]{1,3}(?:is|was))?[ \t]{1,3})?(?:can${APOS}?t|cannot|can[ \t]{1,3}not|couldn${APOS}?t|could[ \t]{1,3}not|won${APOS}?t|wouldn${APOS}?t|would[ \t]{1,3}not|shouldn${APOS}?t|should[ \t]{1,3}not|mustn${APOS}?t|must[ \t]{1,3}not|isn${APOS}?t|wasn${APOS}?t|not|never|neither)(?:[ \t]{1,3}(?:be|possibly|possibly[ \t]{1,3}be|have[ \t]{1,3}been|the[ \t]{1,3}answer|correct|right)){0,2}`,
  String.raw`(?:it${APOS}s|that${APOS}s|this${APOS}s)[ \t]{1,3}not`,
  "rather[ \\t]{1,3}than",
  "instead[ \\t]{1,3}of",
  "other[ \\t]{1,3}than",
  "(?:rule|rules|ruled|ruling)[ \\t]{1,3}out",
  "(?:eliminate|eliminates|eliminated|eliminating|exclude|excludes|excluded|excluding)",
  // fr, es, it, pt, de
  `(?:(?:ce|ça|il|elle)[ \\t]{1,3})?(?:n${APOS}est|ne[ \\t]{1,3}(?:peut|sont))[ \\t]{1,3}pas(?:[ \\t]{1,3}(?:être|la[ \\t]{1,3}réponse))?`,
  "(?:et|mais)[ \\t]{1,3}(?:non|pas)",
  "pas",
  "non(?:[ \\t]{1,3}(?:è|es|é))?",
  "plutôt[ \\t]{1,3}que",
  "au[ \\t]{1,3}lieu[ \\t]{1,3}de",
  "no(?:[ \\t]{1,3}(?:es|puede[ \\t]{1,3}ser|será))?",
  "en[ \\t]{1,3}lugar[ \\t]{1,3}de",
  "não(?:[ \\t]{1,3}(?:é|pode[ \\t]{1,3}ser))?",
  "(?:ist|sind|es[ \\t]{1,3}ist)?[ \\t]{0,3}(?:nicht|keine?|weder)",
  "(?:an)?statt",
].map(ci);
/** CJK cues (no case, no word boundary). */
const NEGATION_BEFORE_CJK = "(?:而不是|并不是|并非|而非|不是|不可能是|不会是|不应该是|不应是|不选|排除|绝不是)";

/** Words after the options that rule them out: `A and B are wrong`, `A 错误`, `A は誤り`. */
const NEGATION_AFTER =
  ci(
    String.raw`[ \t]{1,3}(?:is|are|was|were|can[ \t]{1,3}be|could[ \t]{1,3}be|must[ \t]{1,3}be|est|sont|ist|sind|es|son)[ \t]{1,3}(?:definitely[ \t]{1,3}|clearly[ \t]{1,3}|also[ \t]{1,3})?(?:wrong|incorrect|false|not[ \t]{1,3}(?:correct|right|true|the[ \t]{1,3}answer|possible)|impossible|ruled[ \t]{1,3}out|eliminated|excluded|out|fausses?|incorrecte?s?|exclue?s?|falsch|incorrectas?|incorrectos?)(?![A-Za-z])`,
  ) +
  String.raw`|[ \t]{0,3}(?:(?:也|都|均)?(?:是)?(?:错误的?|错的|错|不对|不正确|不符合题意|不符合|被排除)|(?:は|も)?(?:誤り|間違い|ではない|ではなく|不正解))`;

/** Every exclusion, compiled on first use (by a text that passes {@link mayExclude}): compiling it takes milliseconds. */
let exclusionRe: RegExp | undefined;
function exclusionRegex(): RegExp {
  exclusionRe ??= new RegExp(
    String.raw`(?:(?<![A-Za-z\u00C0-\u024F])(?:${NEGATION_BEFORE.join("|")})[ \t]{1,3}|${NEGATION_BEFORE_CJK}[ \t]{0,3})(?:${OPTIONS})|(?<![A-Za-z\u00C0-\u024F])(?:${OPTIONS})(?:${NEGATION_AFTER})`,
    "g",
  );
  return exclusionRe;
}

/**
 * A capital `A`–`J` standing alone, as every {@link OPTION} holds one (`(A)`, `**A**`, `option A` included): the
 * letters {@link mayExclude} looks around. Most reasoning texts have none.
 */
const OPTION_LETTER = /(?<![A-Za-z0-9\\])[A-J](?![A-Za-z0-9'\u2019])/g;

/**
 * The word with which each phrase of {@link NEGATION_BEFORE} ends before its optional tail (`be`, `possibly`, `the
 * answer`, `être`, `puede ser`, …), lowercase; a blank follows it in every exclusion.
 */
const NEGATION_CORES = [
  ...["can", "couldn", "won", "wouldn", "shouldn", "mustn", "isn", "wasn"].map((w) => `${w}${APOS}?t`),
  "not", // cannot, can not, could not, …, it's not
  "never",
  "neither",
  "rather[ \\t]{1,3}than",
  "instead[ \\t]{1,3}of",
  "other[ \\t]{1,3}than",
  "(?:rule|rules|ruled|ruling)[ \\t]{1,3}out",
  "(?:eliminate|eliminates|eliminated|eliminating|exclude|excludes|excluded|excluding)",
  "pas", // n'est pas, ne peut pas (être), et pas, mais pas
  "non", // non, et non, non è
  "plutôt[ \\t]{1,3}que",
  "au[ \\t]{1,3}lieu[ \\t]{1,3}de",
  "no", // no, no es, no puede ser
  "en[ \\t]{1,3}lugar[ \\t]{1,3}de",
  "não",
  "nicht",
  "keine?",
  "weder",
  "statt", // anstatt
].join("|");

/**
 * What may stand between a negation's core and the first option letter: the optional words after it (`be`,
 * `possibly be`, `have been`, `the answer`, `correct`, `right`, `être`, `la réponse`, `es`, `puede ser`, `será`, `è`,
 * `é`, `pode ser`), blanks, `option`, `answers`, and the `(` or `**` before the letter — at most 47 characters (two
 * optional words of up to 16 with their blanks, 3 blanks, `answers` and 3 blanks, 2), so 64 bounds it.
 */
const GAP = "[ \\t'\u2019a-z\u00C0-\u024F(*]{0,64}";
/** Enough text before a letter for a core (`en lugar de` with three blanks each: 15), its blank and {@link GAP}. */
const BEFORE_WINDOW = 96;
/** A negation's core (or a CJK cue), then the gap, up to the end of the lowercased text before an option letter. */
const NEGATION_BEFORE_LETTER = new RegExp(`(?:(?:${NEGATION_CORES})[ \\t]|${NEGATION_BEFORE_CJK})${GAP}$`);

/**
 * The start of {@link NEGATION_AFTER} after an option letter (its closing `)` or `**` first), lowercase: a verb and a
 * word of exclusion, or a CJK cue; without the final look-ahead and optional endings, so it matches whenever
 * {@link NEGATION_AFTER} does.
 */
const NEGATION_AFTER_LETTER = new RegExp(
  String.raw`^(?:[ \t]?\)|\*\*)?(?:[ \t]{1,3}(?:is|are|was|were|can[ \t]{1,3}be|could[ \t]{1,3}be|must[ \t]{1,3}be|est|sont|ist|sind|es|son)[ \t]{1,3}(?:definitely[ \t]{1,3}|clearly[ \t]{1,3}|also[ \t]{1,3})?(?:wrong|incorrect|false|not[ \t]{1,3}(?:correct|right|true|the[ \t]{1,3}answer|possible)|impossible|ruled[ \t]{1,3}out|eliminated|excluded|out|fausse|exclu|falsch)|[ \t]{0,3}(?:(?:也|都|均)?(?:是)?(?:错误|错的|错|不对|不正确|不符合|被排除)|(?:は|も)?(?:誤り|間違い|ではない|ではなく|不正解)))`,
);
/** Enough text after a letter for `)`, 3 blanks, `could be`, `definitely`, `not the answer` with their blanks: 48. */
const AFTER_WINDOW = 64;

const isBlank = (c: number): boolean => c === 32 || c === 9;
const isAsciiLetter = (c: number): boolean => (c | 32) >= 97 && (c | 32) <= 122;
const isWordChar = (c: number): boolean => isAsciiLetter(c) || (c >= 0xc0 && c <= 0x24f) || c === 39 || c === 0x2019;
/** The last characters of the CJK cues of {@link NEGATION_BEFORE_CJK} (`不是`, `并非`, `不选`, `排除`). */
const isCjkCueEnd = (c: number): boolean => c === 0x662f || c === 0x975e || c === 0x9009 || c === 0x9664;

/**
 * How a word before an option letter (and its blanks) ends when a negation precedes the letter: the last word of
 * every phrase of {@link NEGATION_BEFORE} (its core or one of its optional words: `be`, `possibly`, `been`, `the
 * answer`, `correct`, `right`, `être`, `la réponse`, `es`, `puede ser`, `será`, `è`, `é`, `pode ser`) or of
 * `option`, `choices`, `answers` before the letter; lowercase.
 */
const LAST_WORD =
  /(?:options?|choices?|answers?|be|possibly|been|correct|right|n['\u2019]?t|not|never|neither|than|of|out|eliminat(?:e|es|ed|ing)|exclud(?:e|es|ed|ing)|pas|être|réponse|non|è|es|é|que|de|no|ser|será|não|nicht|keine?|weder|statt)$/;

/**
 * Whether what ends at `j` (where an option starts: its letter, `(` or `**`) may end a negation: 1 to 3 blanks after
 * a word that ends as {@link LAST_WORD} says, or 0 to 3 blanks after a CJK cue.
 */
function negationEndsAt(text: string, j: number): boolean {
  let k = j;
  while (k > j - 3 && isBlank(text.charCodeAt(k - 1))) k--;
  if (isCjkCueEnd(text.charCodeAt(k - 1))) return true;
  if (k === j) return false;
  let w = k;
  while (w > k - 24 && isWordChar(text.charCodeAt(w - 1))) w--;
  return w < k && LAST_WORD.test(text.slice(w, k).toLowerCase());
}

/** Whether a negation may end before the option letter at `p` (alone, or in `(A)`, `( A )`, `**A**`). */
function negationBefore(text: string, p: number): boolean {
  const c = text.charCodeAt(p - 1);
  if (c === 40 /* ( */) return negationEndsAt(text, p - 1);
  if (c === 42 /* * */) return text.charCodeAt(p - 2) === 42 && negationEndsAt(text, p - 2);
  if (isBlank(c) && text.charCodeAt(p - 2) === 40 && negationEndsAt(text, p - 2)) return true;
  return negationEndsAt(text, p);
}

/** The verbs of {@link NEGATION_AFTER} (`A is wrong`, `B can be ruled out`), lowercase. */
const AFTER_VERBS = new Set([
  "is",
  "are",
  "was",
  "were",
  "can",
  "could",
  "must",
  "est",
  "sont",
  "ist",
  "sind",
  "es",
  "son",
]);
/** The first characters of the CJK cues of {@link NEGATION_AFTER} (`也是错的`, `不对`, `被排除`, `は誤り`, `ではない`). */
const CJK_AFTER_STARTS = "也都均是错不被はも誤間で";

/** Whether {@link NEGATION_AFTER} may start at `j`: 1 to 3 blanks and one of its verbs, or 0 to 3 blanks and a CJK cue. */
function negationStartsAt(text: string, j: number): boolean {
  let k = j;
  while (k < j + 3 && isBlank(text.charCodeAt(k))) k++;
  if (k < text.length && CJK_AFTER_STARTS.includes(text[k] as string)) return true;
  if (k === j) return false;
  let w = k;
  while (w < k + 6 && isAsciiLetter(text.charCodeAt(w))) w++;
  return w > k && isBlank(text.charCodeAt(w)) && AFTER_VERBS.has(text.slice(k, w).toLowerCase());
}

/** Whether a negation may follow the option letter at `p` (alone, or in `(A)`, `( A )`, `**A**`). */
function negationAfter(text: string, p: number): boolean {
  const c = text.charCodeAt(p + 1);
  if (c === 41 /* ) */) return negationStartsAt(text, p + 2);
  if (c === 42 /* * */) return text.charCodeAt(p + 2) === 42 && negationStartsAt(text, p + 3);
  if (isBlank(c) && text.charCodeAt(p + 2) === 41 && negationStartsAt(text, p + 3)) return true;
  return negationStartsAt(text, p + 1);
}

/**
 * Whether the exclusion regex may match in `text`: true whenever it does. Every exclusion has an option letter
 * standing alone ({@link OPTION_LETTER}) with a negation right before it (the first option: {@link negationBefore},
 * then {@link NEGATION_BEFORE_LETTER}) or right after it (the last option: {@link negationAfter}, then
 * {@link NEGATION_AFTER_LETTER}); each test only widens what the regex matches. Only the letters' neighbourhoods are
 * read, so a text without an exclusion costs one search for letters and a few character tests, and the big regex is
 * neither compiled nor run.
 */
function mayExclude(text: string): boolean {
  OPTION_LETTER.lastIndex = 0;
  // `test`, not `exec`: no match object per letter; a match is the one letter, so it ends where `lastIndex` points
  while (OPTION_LETTER.test(text)) {
    const p = OPTION_LETTER.lastIndex - 1;
    if (
      negationBefore(text, p) &&
      NEGATION_BEFORE_LETTER.test(text.slice(Math.max(0, p - BEFORE_WINDOW), p).toLowerCase())
    )
      return true;
    if (negationAfter(text, p) && NEGATION_AFTER_LETTER.test(text.slice(p + 1, p + 1 + AFTER_WINDOW).toLowerCase()))
      return true;
  }
  return false;
}

/**
 * The text with every exclusion of options blanked (spaces; positions are kept): `The answer is D, it can't be A
 * or B` → `The answer is D,`, `B不是 A` → `B`, `réponse est C non A` → `réponse est C`, `It's not D; the answer is
 * A` → `; the answer is A`. Only option letters (`A`–`J`, alone or as `(A)`, `option A`) are ruled out: a value
 * (`not 5`) is left to the reader. What remains is read as usual, so an answer that still names two options
 * (`D or A, not B`) is a hedge.
 */
export function maskExclusions(text: string): string {
  if (!mayExclude(text)) return text;
  const re = exclusionRegex();
  re.lastIndex = 0;
  return text.replace(re, (m) => " ".repeat(m.length));
}
