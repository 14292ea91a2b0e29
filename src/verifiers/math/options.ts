import { z } from "zod";
import { ALL_EXTRACT_STRATEGIES } from "./extract.js";
import { STYLE_NAMES } from "./styles.js";

/**
 * Options of the `math` verifier (strict: unknown keys are rejected; every key has a default).
 *
 * - `style`: the answer style (`auto` default, `gsm8k`, `latex`, `mcq`, `boxed`; see `styles.ts`): which
 *   extraction strategies are tried and how `$` is read (money or math).
 * - `extract`: extraction strategies tried in order, replacing the style's (default: the style's list; for
 *   `auto`: `boxed`, `final-answer`, `answer-line`, `gsm8k` as one group where the answer stated last
 *   wins, then `whole` — a bare one-line answer of at most 200 characters —, `last-math`, `last-number`).
 * - `multipleBoxed`: when a completion has several `\boxed{}`: `last` (default: the last one counts, an
 *   earlier boxed intermediate result is common and honest), `first`, `all` (every boxed answer must be
 *   equivalent to the gold; some right and some wrong → score 0, `multiple_answers`), `reject` (boxed
 *   answers that are not all equivalent to each other → score 0, `multiple_answers`).
 * - `answerAfterThink`: the answer must follow the reasoning block `<thinkTag>…</thinkTag>`: only the text
 *   after the last closing tag is searched; an unclosed block has no answer (`no_answer`); text without the tags
 *   is searched whole. Default true, by measurement on the bundled rollouts written as reasoning models write
 *   them (`scripts/measure-answer-after-think.mjs`, docs/math.md): identical on text without tags and on boxed
 *   finals, 98.9 % vs 88.9 % label agreement when the final answer after `</think>` is not boxed.
 * - `thinkTag`: the tag name (default `think`).
 * - `maxAnswerChars`: an extracted answer (or reference) longer than this is `parse_error` without being
 *   parsed (default 12 000, enough for a 10 000-digit integer).
 * - `percent`: `equal-fraction` (default) makes `50\%` equal to `0.5` as well as to `50`; `strict`
 *   makes it equal only to `50`/`50\%` (the sign is read as a unit).
 * - `relTol`: relative tolerance used ONLY when the reference is a decimal literal (`3.14`) and the
 *   prediction an exact non-decimal value (`\pi`, `22/7`); default 1e-3, and never looser than half a unit in
 *   the gold's last stated place (`1000.0` does not accept 1001). Never used between two exact values or two decimals.
 * - `sampleTol`: relative tolerance of numeric sampling for expressions with free variables (1e-9).
 * - `samplePoints`: number of seeded random points (6); `seed`: the PRNG seed.
 * - `maxBits`: bound on the size (bits) of any exact intermediate in the fast path (32 768); larger
 *   powers/factorials are refused (`undecidable`) instead of computed.
 * - `cacheSize`: entries kept in the verdict cache (50 000, oldest dropped; 0 disables it).
 * - `partialCredit` (opt-in, off by default): `{kind: relative | log, scale}` gives a wrong numeric answer a score
 *   in [0, 1) that decreases with its distance to a numeric gold (formulas in `partial.ts`, docs/math.md §6).
 */
export const MathOptionsSchema = z.strictObject({
  style: z.enum(STYLE_NAMES).default("auto"),
  extract: z.array(z.enum(ALL_EXTRACT_STRATEGIES)).min(1).optional(),
  multipleBoxed: z.enum(["last", "first", "all", "reject"]).default("last"),
  answerAfterThink: z.boolean().default(true),
  thinkTag: z
    .string()
    .regex(/^[A-Za-z][\w-]*$/)
    .default("think"),
  maxAnswerChars: z.number().int().min(16).max(1_000_000).default(12_000),
  percent: z.enum(["equal-fraction", "strict"]).default("equal-fraction"),
  relTol: z.number().min(0).max(0.1).default(1e-3),
  sampleTol: z.number().positive().max(1e-3).default(1e-9),
  samplePoints: z.number().int().min(2).max(64).default(6),
  seed: z.number().int().default(0x5eed),
  maxBits: z.number().int().min(64).max(1_000_000).default(32768),
  cacheSize: z.number().int().min(0).default(50_000),
  partialCredit: z
    .strictObject({
      kind: z.enum(["relative", "log"]),
      /** relative: the relative error at which the credit reaches 0 (default 1); log: the decades (default 1). */
      scale: z.number().positive().max(1e6).optional(),
    })
    .optional(),
});

/** Validated options of the `math` verifier (see {@link MathOptionsSchema}). */
export type MathOptions = z.output<typeof MathOptionsSchema>;
