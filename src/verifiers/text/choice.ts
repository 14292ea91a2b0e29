import { z } from "zod";
import { ok, unscorable } from "../../core/types.js";
import { afterThink } from "../reasoning.js";
import type { VerifierDefinition } from "../types.js";
import { affirmedOption } from "../math/choices.js";
import { maskExclusions } from "../math/exclusions.js";

const options = z.strictObject({
  /** The option letters, in order (default `ABCDEFGHIJ`, MMLU-Pro's ten; `ABCD` for MMLU/GPQA). Upper-case. */
  letters: z
    .string()
    .regex(/^[A-Z]{2,26}$/, "upper-case letters, 2 to 26")
    .default("ABCDEFGHIJ"),
  /**
   * The answer must follow the reasoning block `<thinkTag>…</thinkTag>`, as in `math`: only the text after the
   * last closing tag is read (a lone closing tag with nothing after it: the text before it); an answer left inside
   * the reasoning does not count, and a bare letter after it does (`<think>…B…</think>\nC` answers C).
   */
  answerAfterThink: z.boolean().default(true),
  thinkTag: z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9_-]{0,30}$/)
    .default("think"),
});
export type ChoiceOptions = z.infer<typeof options>;

/**
 * Extraction tiers, most explicit first; the first tier with a match decides. Within the tier every distinct
 * letter counts, so "The answer is A or B" (also "A, or B") is two answers. `L` stands for the letter class.
 * 1. `\boxed{B}` (also `\boxed{(B)}`, `\boxed{\text{B}}`);
 * 2. "answer is B", "answer: (B)", "Answer: **B**", "correct option is B", "final answer B";
 * 3. the whole completion is one option: `B`, `(B)`, `B.`, `**B**`, `B) text…`, or a list of options (`A or B`,
 *    `A, B`, `Both B and C`, `AB`: several answers);
 * 4. bold `**B**` / `**(B)**` or a parenthesised `(B)` anywhere, when no other tier matched.
 */
function tiers(L: string): RegExp[] {
  const one = String.raw`(?:\*\*|__)?[(\["'“‘]?[${L}][)\]"'”’]?(?:\*\*|__)?`;
  const list = String.raw`${one}(?:\s*(?:,\s*(?:or\b|and\b)?|/|&|\bor\b|\band\b)\s*${one})*`;
  return [
    new RegExp(String.raw`\\boxed\{\s*(?:\\text(?:bf)?\{\s*)?\(?([${L}])\)?\s*\}?\s*\}`, "g"),
    // cue words in either case; the letters upper-case only, so the article "a" is not option A
    new RegExp(
      String.raw`(?:[Aa]nswer|[Oo]ption|[Cc]hoice)s?\s*(?:is|are|:|=)?\s*(?:is\s*)?:?\s*(?:(?:for\s+sure|definitely|clearly|certainly|surely|obviously|indeed|actually|probably|likely)\s*,?\s*)?(${list})(?![A-Za-z])`,
      "g",
    ),
    new RegExp(String.raw`^\s*(?:\*\*|__)?\s*\(?([${L}])\)?\s*(?:\*\*|__)?(?:[.):。]\s*[\s\S]*)?$`, "g"),
    // the whole completion is a list of options: "A or B", "A, B", "Both B and C", "AB" (several answers: 0)
    new RegExp(String.raw`^\s*(?:(?:[Bb]oth|[Ee]ither)\s+)?(${list}|[${L}]{2,${L.length}})\s*[.!]?\s*$`, "g"),
    new RegExp(String.raw`\*\*\s*\(?([${L}])\)?\s*\*\*|\(([${L}])\)`, "g"),
  ];
}

/**
 * An option written in any of the forms the tiers read: boxed, bold, parenthesised, or a bare capital that stands
 * alone (not part of a word, and followed by the end, punctuation or a few words that close a clause), so the "I" of
 * "or maybe I am wrong" is not option I.
 */
function optionToken(L: string): string {
  return String.raw`(?:\\boxed\{\s*(?:\\text(?:bf)?\{\s*)?\(?([${L}])\)?\s*\}?\s*\}|\*\*\s*\(?([${L}])\)?\s*\*\*|\(([${L}])\)|(?<![A-Za-z'])([${L}])(?![A-Za-z'])(?=\s*(?:$|[.,;:!?)\]]|\s+(?:is|as|too|instead|though)\b)))`;
}

/**
 * A hedge: an alternative offered after (or instead of) the answer, "…, or maybe C", "perhaps (C)", "possibly
 * \boxed{C}", "alternatively it could be C". Every option named in a hedge is an answer given: a hedged completion
 * lists several options and earns 0 like any other list (the reward-hacking probe `hedge`, docs/probe.md).
 */
function hedgeRegex(L: string): RegExp {
  const cue = String.raw`(?:[Oo]r\s+)?(?:[Mm]aybe|[Pp]erhaps|[Pp]ossibly|[Aa]lternatively|[Oo]therwise)\b`;
  const filler = String.raw`(?:(?:also|even|it'?s|it\s+is|it\s+could\s+be|it\s+might\s+be|could\s+be|might\s+be|the\s+answer\s+is|answer|option|choice)\b[\s,:]*)*`;
  return new RegExp(String.raw`${cue}[\s,:]*${filler}${optionToken(L)}`, "g");
}

/** The letters of the hedges in `text` (see {@link hedgeRegex}). */
function hedged(text: string, L: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(hedgeRegex(L))) {
    const ch = m[1] ?? m[2] ?? m[3] ?? m[4];
    if (ch) out.push(ch);
  }
  return out;
}

/**
 * Extracts the chosen letter(s) from a multiple-choice completion (see the tiers above), plus every option offered
 * in a hedge after the decisive answer ("The answer is B, or maybe C" → B and C). A completion that opens with a
 * bare option and hedges ("B, or maybe C") gives both letters too.
 * Examples (letters A–J): `"\\boxed{B}"` → `["B"]`; `"The answer is (C)."` → `["C"]`; `"**D**"` → `["D"]`;
 * `"The answer is A or B"` → `["A", "B"]`; `"\\boxed{B}, or maybe C"` → `["B", "C"]`; `"I don't know"` → `[]`.
 */
export function extractChoice(text: string, letters: string): string[] {
  for (const re of tiers(letters)) {
    const found = new Set<string>();
    let first = -1;
    for (const m of text.matchAll(re)) {
      const span = m[1] ?? m[2] ?? "";
      for (const ch of span) if (letters.includes(ch)) found.add(ch);
      if (first < 0) first = m.index;
    }
    if (found.size > 0) {
      for (const ch of hedged(text.slice(first), letters)) found.add(ch);
      return [...found];
    }
  }
  // no tier decided: "B, or maybe C" or "I think B. Actually maybe C." names an option and hedges with another
  const hedges = hedged(text, letters);
  if (hedges.length === 0) {
    // the option the last sentence affirms, the others ruled out: "It's not A …, therefore I think it's B"
    const a = affirmedOption(text) ?? "";
    return a.split(", ").filter((ch) => ch !== "" && letters.includes(ch));
  }
  const found = new Set<string>(); // in the order the text names them
  for (const m of text.matchAll(new RegExp(optionToken(letters), "g"))) {
    const ch = m[1] ?? m[2] ?? m[3] ?? m[4];
    if (ch) found.add(ch);
  }
  for (const ch of hedges) found.add(ch);
  return found.size > 1 ? [...found] : [];
}

/**
 * The option a reference written as prose states: the one letter of its `\boxed{}` or of its answer cue (tiers 1
 * and 2), options ruled out aside; `undefined` when it states none, several (`the answer is A or B`) or hedges
 * (`the answer is A, or maybe B`). A reference is data, not a completion: the bare-letter tiers do not apply.
 * @example statedOption("Alina and the answer is\n(C) Cecile", "ABCD") // "C"
 */
export function statedOption(reference: string, letters: string): string | undefined {
  if (reference.length > 20_000) return undefined;
  const text = maskExclusions(reference.normalize("NFKC"));
  if (hedged(text, letters).length > 0) return undefined;
  for (const re of tiers(letters).slice(0, 2)) {
    const found = new Set<string>();
    for (const m of text.matchAll(re)) for (const ch of m[1] ?? "") if (letters.includes(ch)) found.add(ch);
    if (found.size > 0) return found.size === 1 ? [...found][0] : undefined;
  }
  return undefined;
}

/**
 * `choice`: multiple-choice accuracy. Extracts the letter (see {@link extractChoice}) and compares it with the
 * reference letter (a string such as `"B"` or `"(b)"`, an option with its text `"(D) Alina"`, a 0-based index, or prose
 * that states one option, see {@link statedOption}). Score 1 if equal; 0 with
 * `wrong_answer`; 0 with `multiple_answers` when several letters are given (listing every option must not pay);
 * `no_answer` (unscorable) when no letter is found; `invalid_reference` when the reference is not an option.
 */
export const choiceVerifier: VerifierDefinition<ChoiceOptions> = {
  type: "choice",
  summary: "1 if the extracted option letter equals the reference letter; several letters → 0",
  options,
  isolation: "inline",
  defaultTimeoutMs: 1000,
  create(o) {
    return ({ completion, reference }) => {
      if (reference === undefined || reference === null || reference === "") return unscorable("no_reference");
      let ref: string | undefined;
      if (typeof reference === "number" && Number.isInteger(reference)) ref = o.letters[reference];
      // a letter (`B`, `(b)`), or a letter with its option text (`(D) Alina`, `C. Cecile`): the letter is the answer
      else if (typeof reference === "string")
        ref = (
          /^\s*\(?([A-Za-z])\)?\s*$/.exec(reference) ??
          /^\s*(?:\(([A-Z])\)|([A-Z])[.):]|([A-Z])(?=\s+[A-Z0-9]))\s*\S/.exec(reference)
        )
          ?.slice(1)
          .find((x) => x !== undefined)
          ?.toUpperCase();
      // a reference written as prose that states its option (`… and the answer is\n(C) Cecile`, `\boxed{C}`)
      if (ref === undefined && typeof reference === "string") ref = statedOption(reference, o.letters);
      if (ref === undefined || !o.letters.includes(ref))
        return unscorable("invalid_reference", { expected: `one of ${o.letters} or its 0-based index` });
      const text = o.answerAfterThink ? afterThink(completion, o.thinkTag) : completion;
      if (text === null) return unscorable("no_answer", { think: "unclosed" });
      // NFKC: full-width letters and punctuation (`Ｂ`, `（B）`) read as their ASCII forms
      // options ruled out next to the answer (`D, it can't be A or B`, `B，不是 A`) are not answers given
      const got = extractChoice(maskExclusions(text.normalize("NFKC")), o.letters);
      if (got.length === 0) return unscorable("no_answer");
      if (got.length > 1) return ok(0, "multiple_answers", { extracted: got });
      return got[0] === ref ? ok(1, undefined, { extracted: got[0] }) : ok(0, "wrong_answer", { extracted: got[0] });
    };
  },
};
