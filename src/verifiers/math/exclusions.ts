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

const EXCLUSION_RE = new RegExp(
  String.raw`(?:(?<![A-Za-z\u00C0-\u024F])(?:${NEGATION_BEFORE.join("|")})[ \t]{1,3}|${NEGATION_BEFORE_CJK}[ \t]{0,3})(?:${OPTIONS})|(?<![A-Za-z\u00C0-\u024F])(?:${OPTIONS})(?:${NEGATION_AFTER})`,
  "g",
);
/** Keywords of which every exclusion holds one (a text without any is not scanned). */
const EXCLUSION_KEYS =
  /n[o'’]|pas|ni|rather|instead|other|rule|elimin|exclu|statt|kein|wrong|incorrect|false|impossible|fauss|falsch|不|非|排除|错|誤|間違|では/i;

/**
 * A capital `A`–`J` standing alone, as every {@link OPTION} holds one (`(A)`, `**A**`, `option A` included): a text
 * without one has nothing to exclude. Most reasoning texts have none, and the exclusion scan was a fifth of the
 * cold scoring loop of a math batch.
 */
const OPTION_LETTER = /(?<![A-Za-z0-9\\])[A-J](?![A-Za-z0-9'\u2019])/;

/**
 * The text with every exclusion of options blanked (spaces; positions are kept): `The answer is D, it can't be A
 * or B` → `The answer is D,`, `B不是 A` → `B`, `réponse est C non A` → `réponse est C`, `It's not D; the answer is
 * A` → `; the answer is A`. Only option letters (`A`–`J`, alone or as `(A)`, `option A`) are ruled out: a value
 * (`not 5`) is left to the reader. What remains is read as usual, so an answer that still names two options
 * (`D or A, not B`) is a hedge.
 */
export function maskExclusions(text: string): string {
  if (!OPTION_LETTER.test(text) || !EXCLUSION_KEYS.test(text)) return text;
  EXCLUSION_RE.lastIndex = 0;
  return text.replace(EXCLUSION_RE, (m) => " ".repeat(m.length));
}
