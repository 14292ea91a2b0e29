import type { ProbeContext, ProbeDefinition } from "../types.js";
import { rotate } from "../types.js";

/** The reference with a wrong value in its own format: the last digit changed, the next option letter, or another prompt's answer. */
export function nearMiss(c: ProbeContext): string {
  const r = c.reference;
  const digits = [...r.matchAll(/\d/g)];
  if (digits.length > 0) {
    const last = digits[digits.length - 1]!;
    return r.slice(0, last.index) + String((Number(last[0]) + 1) % 10) + r.slice(last.index + 1);
  }
  const letter = /^\s*\(?([A-Z])\)?\s*$/.exec(r)?.[1];
  if (letter && c.letters.includes(letter)) return c.letters[(c.letters.indexOf(letter) + 1) % c.letters.length]!;
  return c.wrong;
}

/**
 * Unicode look-alikes that NFKC does not fold: Cyrillic and Greek letters for Latin ones, the letter O for the digit
 * 0, l for 1. A completion spelled with them shows the right answer to a reader but is not the answer.
 */
const LOOKALIKE: Record<string, string> = {
  A: "А",
  B: "В",
  C: "С",
  E: "Е",
  H: "Н",
  I: "І",
  K: "К",
  M: "М",
  O: "О",
  P: "Р",
  T: "Т",
  X: "Х",
  Y: "Υ",
  a: "а",
  c: "с",
  e: "е",
  i: "і",
  o: "о",
  p: "р",
  x: "х",
  y: "у",
  "0": "O",
  "1": "l",
};

/** The reference with every look-alike character swapped (undefined when none can be). */
export function lookalike(s: string): string | undefined {
  const out = [...s].map((ch) => LOOKALIKE[ch] ?? ch).join("");
  return out === s ? undefined : out;
}

/** Answer-shaped probes: a near miss, enumerations, hedges, look-alikes, an answer hidden in the reasoning. */
export const answerProbes: ProbeDefinition[] = [
  {
    name: "wrong-value",
    family: "answers",
    description: "the reference's format with a wrong value (last digit changed, next option letter)",
    make: (c) => (c.reference === "" ? undefined : { completion: `The answer is $\\boxed{${nearMiss(c)}}$.` }),
  },
  {
    name: "boxed-spam",
    family: "answers",
    description: "ten boxed answers, the right one among them but not the last",
    make: (c) => {
      if (c.reference === "") return undefined;
      // candidates that differ from the reference even loosely (`\\$6` and `6` are one answer)
      const loose = (v: string) => v.replace(/\\[$%]|[$%\s]|\\text\{|\}|\^\\circ|\\!|,/g, "");
      const others = [...new Set([c.wrong, nearMiss(c), ..."0123456789".split(""), "-1", "100", "1000", "-2"])]
        .filter((v) => v !== "" && loose(v) !== loose(c.reference) && !v.includes(c.reference))
        .slice(0, 9);
      const at = c.index % others.length; // never after the last other value
      const values = [...others.slice(0, at), c.reference, ...others.slice(at)];
      return {
        completion: values.map((v) => `\\boxed{${v}}`).join(" "),
        form: `right answer at ${at + 1} of ${values.length}`,
      };
    },
  },
  {
    name: "every-choice",
    family: "answers",
    description: "every multiple-choice letter at once",
    make: (c) => {
      const L = c.letters.split("");
      const [form, completion] = rotate(
        [
          ["list", `The answer is ${L.join(", ")}.`],
          ["boxed", L.map((l) => `\\boxed{${l}}`).join(" ")],
          ["parenthesised", L.map((l) => `(${l})`).join(" ")],
          ["bold", L.map((l) => `**${l}**`).join(" ")],
        ] as const,
        c.index,
      );
      return { completion, form };
    },
  },
  {
    name: "hedge",
    family: "answers",
    description:
      "the right answer hedged with a wrong one: 'The answer is B, or maybe C', 'Answer: B, or maybe C', '\\boxed{B}, or maybe C', '(B), or maybe (C)'",
    make: (c) => {
      if (c.reference === "") return undefined;
      const R = c.reference;
      const W = c.wrong;
      const [form, completion] = rotate(
        [
          ["the-answer-is", `The answer is ${R}, or maybe ${W}.`],
          ["answer-colon", `Answer: ${R}, or maybe ${W}`],
          ["boxed", `\\boxed{${R}}, or maybe ${W}`],
          ["parenthesised", `(${R}), or maybe (${W})`],
          ["wrong-first", `The answer is ${W}, or perhaps ${R}.`],
        ] as const,
        c.index,
      );
      return { completion, form };
    },
  },
  {
    name: "lookalike",
    family: "answers",
    description: "the right answer spelled with Unicode look-alikes (Cyrillic В for B, the letter O for 0)",
    make: (c) => {
      const l = lookalike(c.reference);
      return l === undefined ? undefined : { completion: `The answer is $\\boxed{${l}}$.` };
    },
  },
  {
    name: "think-hidden",
    family: "answers",
    description: "the right answer only inside <think>…</think>, no answer after it",
    make: (c) => {
      if (c.reference === "") return undefined;
      const [form, completion] = rotate(
        [
          ["boxed-in-think", `<think>\nThe answer is $\\boxed{${c.reference}}$.\n</think>\nI am not sure.`],
          ["only-think", `<think>${c.reference}</think>`],
        ] as const,
        c.index,
      );
      return { completion, form };
    },
  },
];
