/**
 * Multiple-choice answers in the math reader: options ruled out next to the answer (`D, it can't be A or B`,
 * `B，不是 A`, `C non A`), a gold letter that carries its option text (`(D) Alina`), and the option a completion
 * affirms in prose when it has no answer cue (`It's not A …; therefore I think it's B`).
 *
 * Every function here is pure and linear in its input (fixed phrases with bounded spacing, scanned once).
 */
import type { Extracted } from "./extract.js";
import { prepareText, type DollarMode } from "./prepare.js";

/** A gold option: its letter and, when the gold carries it, the option's text (`(D) Alina` → `D`, `Alina`). */
export interface GoldOption {
  letter: string;
  text: string;
}

/**
 * A gold that is an option letter followed by its text: `(D) Alina`, `D) Alina`, `D. Alina`, `D: Alina`, `C Cecile`
 * (a bare letter before a capitalised word or a number), `(B) 12 apples`; `null` for anything else (a bare letter,
 * `A triangle`, `E = mc^2`, `x = 5`).
 */
export function letteredGold(gold: string): GoldOption | null {
  const g = gold.trim();
  if (g.length > 300) return null;
  const m =
    /^(?:\(([A-J])\)|\[([A-J])\]|([A-J])[.):：])[ \t]*(\S[\s\S]*)$/.exec(g) ??
    /^([A-J])[ \t]+((?:[A-Z\u00C0-\u00DE][a-z\u00DF-\u00FF]|\d|\$|\\)[\s\S]*)$/.exec(g);
  if (!m) return null;
  const letter = m[1] ?? m[2] ?? m[3] ?? (m.length === 3 ? m[1] : undefined);
  const text = (m.length === 3 ? m[2] : m[4])?.trim() ?? "";
  if (letter === undefined || text === "" || /^[=<>+\-*/^]/.test(text)) return null;
  return { letter, text };
}

/** A predicted option: the letter, and the text written after it (empty when none). */
export interface PredOption {
  letter: string;
  text: string;
}

/** Words that start an explanation, not an option's text (`D, because …`, `D. It cannot be A`). */
const EXPLANATION =
  /^(?:(?:because|since|as|which|that|this|it|it's|its|is|was|the|so|therefore|thus|hence|and|but|or|i|we|you|they|he|she|there|here|see|note|explanation|reason|car|parce|puisque|donc|weil|da|porque|ya|perché|poiché)\b|因为|由于|所以|故|解析)/i;

/**
 * The option a predicted answer states: a leading letter (`D`, `(D)`, `D.`, `**D**`, `\text{(D)}`), and the option
 * text written after it (`(D) Bob` → `D`, `Bob`), where `tail` is the completion's text after the extracted answer
 * (an anchor reads `The answer is (D) Bob` as `(D)`). An explanation after the letter (`D, because …`) is not option
 * text. `null` when the answer does not start with an option letter.
 */
export function predictedOption(answer: string, tail = ""): PredOption | null {
  const a = answer
    .trim()
    .replace(/^\\text(?:bf)?\s*\{([^{}]*)\}/, "$1")
    .replace(/^\*\*(.*)\*\*$/, "$1");
  const m = /^(?:\(([A-J])\)|\[([A-J])\]|([A-J]))(?![A-Za-z0-9'’])[ \t]*[.):：,]?[ \t]*([\s\S]*)$/.exec(a);
  if (!m) return null;
  const letter = (m[1] ?? m[2] ?? m[3]) as string;
  let text = (m[4] ?? "").trim();
  if (text === "") text = (/^[ \t]*[.):：,]?[ \t]*([^\n.。!?;]*)/.exec(tail)?.[1] ?? "").trim();
  if (text.split(/\s+/).length > 8 || EXPLANATION.test(text) || /^[^\p{L}\p{N}$\\]/u.test(text)) text = "";
  return { letter, text };
}

/** How much of the end of a completion {@link affirmedOption} reads. */
const TAIL = 2000;

/** Nouns after which capital letters name things, not options: `point B`, `vertices A and C`, `set C`. */
const NAMED =
  /(?:point|vertex|vertice|line|segment|side|angle|triangle|square|circle|plane|set|matrix|city|town|village|house|box|bag|urn|team|player|person|student|machine|car|train|pipe|tank|group|type|vitamin|grade|class|room|node|site|region|zone|block|row|column|figure|table|graph|curve|particle|object|body|charge|sphere|ball|state|country|company|store|shop|factory|route|path|road|station|port|island|planet|star|gene|allele|strain|sample|species|compound|substance|element|reaction|step|stage|phase|version|model|method|plan|person|friend|brother|sister|mr|mrs|ms)(?:e?s)?\.?\s+(?:[A-J]\s*(?:,|and|or|&)\s*)*$/i;

/** A word after `A` that makes it the article (`A total of 5`), unless it is a verb or a connective (`A is right`). */
const NOT_ARTICLE =
  /^\s+(?:is|was|seems|would|should|must|could|can|fits|matches|looks|appears|remains|gives|best|because|since|and|for|which|with|as|or|but|then|also|only|here|instead)\b/;
/** An option token of prose: a standalone capital (`B`), `(B)`, `**B**`; not the pronoun `I`, not the article `A`. */
const OPTION_TOKEN = /\(\s?([A-J])\s?\)|\*\*([A-J])\*\*|(?<![A-Za-z0-9\\_^{'’-])([A-J])(?![A-Za-z0-9'’_^}=+*/-])/g;

/**
 * The option a completion without an answer cue affirms: the option letters of its last sentence that names one,
 * with the excluded ones removed ({@link maskExclusions}) — `It's not A because …, therefore I think it's B` → `B`,
 * `D. it can't be A or B` → `D`, `B。不是 A` → `B`. Two distinct letters there (`A or B`) are returned as the list
 * `A, B` (a hedge, scored 0). Used only when the gold is an option letter and no anchor gave an answer. `null` when
 * the text names no option.
 */
export function affirmedOption(completion: string, dollars: DollarMode = "auto"): string | null {
  // the conclusion: the last 2 000 characters (bounded work on any text)
  const t = prepareText(completion.length > TAIL ? completion.slice(-TAIL) : completion, dollars); // exclusions blanked
  // the last option token, then every token of its sentence
  let lastAt = -1;
  const found: { at: number; letter: string }[] = [];
  OPTION_TOKEN.lastIndex = 0;
  for (let m = OPTION_TOKEN.exec(t); m !== null; m = OPTION_TOKEN.exec(t)) {
    const letter = (m[1] ?? m[2] ?? m[3]) as string;
    const bare = m[3] !== undefined;
    if (bare) {
      const after = t.slice(m.index + 1, m.index + 40);
      const before = t.slice(Math.max(0, m.index - 40), m.index);
      // the pronoun `I`, the article `A`, a named thing (`point B`), a label (`A: 18`, `B = 3`)
      if (letter === "I" && /^\s*(?:[a-z]|['’])/.test(after)) continue;
      if (letter === "A" && /^\s+[a-z]{2,}/.test(after) && !NOT_ARTICLE.test(after)) continue;
      if (NAMED.test(before) || /^\s*(?:=|:\s*\d)/.test(after)) continue;
    }
    found.push({ at: m.index, letter });
    lastAt = m.index;
  }
  if (lastAt < 0) return null;
  let start = lastAt;
  while (start > 0 && lastAt - start < 400 && !/[.!?。！？\n]/.test(t[start - 1] as string)) start--;
  // `D. it …`: a letter that ends its own sentence is that sentence
  const letters = [...new Set(found.filter((f) => f.at >= start).map((f) => f.letter))];
  return letters.join(", ");
}

/** An option letter alone (`B`, `(B)`); module-level: a regex literal in the function is a new object per call. */
const OPTION_LETTER_ALONE = /^\(?[A-J]\)?$/;

/** A normalized gold that is a bare option letter (`B`, `(B)`). */
export function isOptionLetter(s: string): boolean {
  return OPTION_LETTER_ALONE.test(s);
}

/** Strategies that read an answer without a cue (the affirmed option replaces what they found). */
const FALLBACK: ReadonlySet<string> = new Set(["whole", "last-math", "last-number"]);

/**
 * For an option-letter gold: the extracted answer when an anchor gave it, else the option the text affirms
 * ({@link affirmedOption}; strategy `whole`), else what the fallbacks found.
 */
export function withAffirmedOption(text: string, ex: Extracted | null, dollars: DollarMode): Extracted | null {
  if (ex !== null && !FALLBACK.has(ex.strategy)) return ex;
  const a = affirmedOption(text, dollars);
  return a === null || a === "" ? ex : { answer: a, strategy: "whole" };
}

/** An option's text as a value: a number followed by nouns is the number (`12 apples` → `12`). */
export function optionValue(text: string): string {
  const m = /^(-?\$?\d[\d.,]*)\s+[A-Za-z][A-Za-z\s]*$/.exec(text.trim());
  return m?.[1] ?? text.trim();
}

/** What a predicted answer says about a gold option (see {@link checkOption}). */
export interface OptionCheck {
  /** Several options offered (`A, B`, `A or B`). */
  multiple: boolean;
  /** Whether its letter is the gold's; undefined when it names no letter. */
  letter?: boolean;
  /** Option text to compare with the gold option's text; undefined when there is none. */
  text?: string;
}

const SEVERAL_RE = /^\(?[A-J]\)?(?:\s*(?:,|\/|&|\bor\b|\band\b)\s*\(?[A-J]\)?)+\.?$/;

/**
 * A predicted answer against a gold option with text (`(D) Alina`): the letter decides (`D`, `(D)` → right; `(A)` →
 * wrong), option text written with it must be the gold's (`(D) Bob` → wrong), and option text alone is compared
 * with the gold's (`Alina` → right, `12` for `(B) 12 apples` → right). `text` is the completion, for the words
 * after an answer that an anchor cut at the letter (`The answer is (D) Bob.` → `(D)`).
 */
export function checkOption(gold: GoldOption, answer: string, text: string): OptionCheck {
  const a = answer.trim();
  if (SEVERAL_RE.test(a)) return { multiple: true };
  const at = a === "" ? -1 : text.lastIndexOf(a);
  const p = predictedOption(a, at >= 0 ? text.slice(at + a.length) : "");
  if (p === null) return { multiple: false, text: a };
  const out: OptionCheck = { multiple: false, letter: p.letter === gold.letter };
  if (p.text !== "") out.text = p.text;
  return out;
}
