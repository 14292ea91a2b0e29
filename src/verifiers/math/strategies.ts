/** The extraction strategies used by default (`style: auto`), in the default order. */
export const EXTRACT_STRATEGIES = [
  "boxed",
  "final-answer",
  "answer-line",
  "gsm8k",
  "whole",
  "last-math",
  "last-number",
] as const;

/** Longest text the `whole` strategy reads as a bare answer. */
export const WHOLE_MAX_CHARS = 200;

/** Every extraction strategy. */
export const ALL_EXTRACT_STRATEGIES = EXTRACT_STRATEGIES;

/** One extraction strategy name. */
export type ExtractStrategy = (typeof ALL_EXTRACT_STRATEGIES)[number];
