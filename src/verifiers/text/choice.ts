import { z } from "zod";
import { ok, unscorable } from "../../core/types.js";
import type { VerifierDefinition } from "../types.js";

const options = z.strictObject({
  /** The option letters, in order (default `ABCDEFGHIJ`, MMLU-Pro's ten; `ABCD` for MMLU/GPQA). Upper-case. */
  letters: z.string().regex(/^[A-Z]{2,26}$/, "upper-case letters, 2 to 26").default("ABCDEFGHIJ"),
});
export type ChoiceOptions = z.infer<typeof options>;

/**
 * Extraction tiers, most explicit first; the first tier with a match decides. Within the tier every distinct
 * letter counts, so "The answer is A or B" is two answers. `L` stands for the letter class.
 * 1. `\boxed{B}` (also `\boxed{(B)}`, `\boxed{\text{B}}`);
 * 2. "answer is B", "answer: (B)", "Answer: **B**", "correct option is B", "final answer B";
 * 3. the whole completion is one option: `B`, `(B)`, `B.`, `**B**`, `B) text…`;
 * 4. bold `**B**` / `**(B)**` or a parenthesised `(B)` anywhere, when no other tier matched.
 */
function tiers(L: string): RegExp[] {
  const one = String.raw`(?:\*\*|__)?\(?[${L}]\)?(?:\*\*|__)?`;
  const list = String.raw`${one}(?:\s*(?:,|/|&|\bor\b|\band\b)\s*${one})*`;
  return [
    new RegExp(String.raw`\\boxed\{\s*(?:\\text(?:bf)?\{\s*)?\(?([${L}])\)?\s*\}?\s*\}`, "g"),
    // cue words in either case; the letters upper-case only, so the article "a" is not option A
    new RegExp(String.raw`(?:[Aa]nswer|[Oo]ption|[Cc]hoice)s?\s*(?:is|are|:|=)?\s*(?:is\s*)?:?\s*(${list})(?![A-Za-z])`, "g"),
    new RegExp(String.raw`^\s*(?:\*\*|__)?\s*\(?([${L}])\)?\s*(?:\*\*|__)?(?:[.):]\s*[\s\S]*)?$`, "g"),
    new RegExp(String.raw`\*\*\s*\(?([${L}])\)?\s*\*\*|\(([${L}])\)`, "g"),
  ];
}

/**
 * Extracts the chosen letter(s) from a multiple-choice completion (see the tiers above).
 * Examples (letters A–J): `"\\boxed{B}"` → `["B"]`; `"The answer is (C)."` → `["C"]`; `"**D**"` → `["D"]`;
 * `"The answer is A or B"` → `["A", "B"]`; `"I don't know"` → `[]`.
 */
export function extractChoice(text: string, letters: string): string[] {
  for (const re of tiers(letters)) {
    const found = new Set<string>();
    for (const m of text.matchAll(re)) {
      const span = m[1] ?? m[2] ?? "";
      for (const ch of span) if (letters.includes(ch)) found.add(ch);
    }
    if (found.size > 0) return [...found];
  }
  return [];
}

/**
 * `choice`: multiple-choice accuracy. Extracts the letter (see {@link extractChoice}) and compares it with the
 * reference letter (a string such as `"B"` or `"(b)"`, or a 0-based index). Score 1 if equal; 0 with
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
      else if (typeof reference === "string") ref = /^\s*\(?([A-Za-z])\)?\s*$/.exec(reference)?.[1]?.toUpperCase();
      if (ref === undefined || !o.letters.includes(ref)) return unscorable("invalid_reference", { expected: `one of ${o.letters} or its 0-based index` });
      const got = extractChoice(completion, o.letters);
      if (got.length === 0) return unscorable("no_answer");
      if (got.length > 1) return ok(0, "multiple_answers", { extracted: got });
      return got[0] === ref ? ok(1, undefined, { extracted: got[0] }) : ok(0, "wrong_answer", { extracted: got[0] });
    };
  },
};
