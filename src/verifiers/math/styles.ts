/**
 * Answer styles (`style` option): presets of the extraction strategies and of how `$` is read, for the
 * answer formats users meet. `auto` (the default) reads every format below; the others are strict
 * variants. An explicit `extract` list replaces the style's strategies (its `$` reading stays).
 */
import type { ExtractStrategy } from "./extract.js";
import { EXTRACT_STRATEGIES } from "./extract.js";
import type { DollarMode } from "./prepare.js";

/** One answer style. */
export interface AnswerStyle {
  /** Strategies in order (consecutive anchored ones form one group: the answer stated last wins). */
  extract: readonly ExtractStrategy[];
  /** How `$` is read: `auto` tells money (`$18`) from math (`$x$`); `math`: always math; `money`: never math. */
  dollars: DollarMode;
  /** One line for the docs. */
  summary: string;
}

/** The answer styles, by name. */
export const ANSWER_STYLES = {
  auto: {
    extract: EXTRACT_STRATEGIES,
    dollars: "auto",
    summary:
      "every anchor (boxed, the answer is, Answer:/A:, ####, non-English cues), else a bare answer, the last math span, the last number",
  },
  gsm8k: {
    extract: ["gsm8k", "answer-line", "final-answer", "boxed", "last-number"],
    dollars: "money",
    summary:
      "GSM8K solutions: `#### n`, `A: n`, `The answer is n` (last stated wins), else the last number; `$` is always money",
  },
  latex: {
    extract: ["boxed", "final-answer", "whole", "last-math"],
    dollars: "math",
    summary:
      "LaTeX solutions (MATH, Minerva): boxed or `The final answer is $…$`, else a bare answer or the last math span; `$` is always math",
  },
  mcq: {
    extract: ["boxed", "final-answer", "answer-line", "whole"],
    dollars: "auto",
    summary:
      "multiple choice: the letter after an anchor (`the correct answer is C`, `Answer: D.`, `【答案】B`, `故选 A`) or a bare letter",
  },
  boxed: {
    extract: ["boxed"],
    dollars: "math",
    summary: "only `\\boxed{…}` (a strict RL answer format): anything else is `no_answer`",
  },
} as const satisfies Record<string, AnswerStyle>;

/** A style name. */
export type StyleName = keyof typeof ANSWER_STYLES;

/** Every style name, `auto` first. */
export const STYLE_NAMES = Object.keys(ANSWER_STYLES) as [StyleName, ...StyleName[]];
