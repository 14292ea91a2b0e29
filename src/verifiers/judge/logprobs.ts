import { tokenDistribution } from "../likelihood/judge.js";
import type { TopLogprob } from "../likelihood/judge.js";
import type { JudgeChoice } from "./chat.js";
import type { Parsed, Parser } from "./parse.js";

/** Probability-based scoring settings (the judge's `logprobs` option). */
export interface LogprobSettings {
  /** `top_logprobs` asked for (1–20). */
  topLogprobs: number;
  /** Token → score, matched exactly as the server spells the token (AlpacaEval: `{m: 1, M: 0}`); default: the parser's values. */
  tokens?: Record<string, number>;
  /** Which generated token carries the verdict: the one under the parsed match (`match`) or the first non-blank one (`first`). */
  position: "match" | "first";
}

/** A probability-based score and what it rests on. */
export type LogprobScore =
  { score: number; token: string; position: number; mass: number; found: Record<string, number> } | { error: string };

/** Index of the generated token covering character `at` of the text the tokens spell. */
function tokenAt(tokens: readonly { token: string }[], at: number): number {
  let pos = 0;
  for (let k = 0; k < tokens.length; k++) {
    const next = pos + tokens[k]!.token.length;
    if (at < next) return k;
    pos = next;
  }
  return -1;
}

/**
 * Score = the expected value of the verdict token under the judge's top-k distribution ({@link tokenDistribution},
 * shared with the likelihood rewards): for a rating parser the G-Eval expected rating, normalized to [0, 1]; for
 * `yes-no` the probability of yes among {yes, no}; for a `tokens` map Σ P(t) v(t) / Σ P(t).
 * The verdict token is the one under the parsed rating (`position: match`) or the first non-blank token (`first`).
 * Example: "Rating: [[8]]" with the `8` token's top-5 {8: ln 0.7, 7: ln 0.2, 9: ln 0.1} on mt-bench → expected rating
 * 7.9 → (7.9 − 1)/9 = 0.7667.
 */
export function logprobScore(choice: JudgeChoice, parser: Parser, parsed: Parsed, s: LogprobSettings): LogprobScore {
  const tokens = choice.tokens;
  if (!tokens || tokens.length === 0)
    return { error: "the endpoint returned no logprobs (does it support logprobs / top_logprobs?)" };
  let k: number;
  if (s.position === "first") k = tokens.findIndex((t) => t.token.trim() !== "");
  else {
    if ("error" in parsed) return { error: `no verdict token: ${parsed.error}` };
    k = tokenAt(tokens, parsed.at);
  }
  if (k < 0) return { error: "the generated tokens do not reach the verdict" };
  const t = tokens[k]!;
  // a tokens map is matched exactly (AlpacaEval counts "m", not " m"); a parser's own values ignore whitespace
  const value = s.tokens
    ? (x: string): number | undefined => (Object.hasOwn(s.tokens!, x) ? s.tokens![x] : undefined)
    : parser.tokenValue?.bind(parser);
  if (!value)
    return {
      error: `probability-based scoring needs a numeric or label parser or a tokens map (not ${parser.describe})`,
    };
  const top: TopLogprob[] = t.top.some((x) => x.token === t.token)
    ? t.top
    : [{ token: t.token, logprob: t.logprob }, ...t.top];
  const d = tokenDistribution(top, value);
  if (!d)
    return {
      error: `no value token among the top-${t.top.length} alternatives of ${JSON.stringify(t.token)}: ${t.top.map((x) => JSON.stringify(x.token)).join(", ")}`,
    };
  return { score: d.expected, token: t.token, position: k, mass: d.mass, found: d.found };
}
