import { z } from "zod";
import { EXTRACT_STRATEGIES } from "./extract.js";

/**
 * Options of the `math` verifier (strict: unknown keys are rejected; every key has a default).
 *
 * - `extract`: extraction strategies tried in order (default `boxed`, `final-answer`, `answer-line`, `gsm8k`).
 * - `percent`: `equal-fraction` (default) makes `50\%` equal to `0.5` as well as to `50`; `strict`
 *   makes it equal only to `50`/`50\%` (the sign is read as a unit).
 * - `relTol`: relative tolerance used ONLY when the reference is a decimal literal (`3.14`) and the
 *   prediction an exact non-decimal value (`\pi`, `22/7`); default 1e-3. Never used between two exact
 *   values or two decimals.
 * - `sampleTol`: relative tolerance of numeric sampling for expressions with free variables (1e-9).
 * - `samplePoints`: number of seeded random points (6); `seed`: the PRNG seed.
 * - `maxBits`: bound on the size (bits) of any exact intermediate in the fast path (32 768); larger
 *   powers/factorials are refused (`undecidable`) instead of computed.
 * - `cacheSize`: entries kept in the verdict cache (50 000, oldest dropped; 0 disables it).
 */
export const MathOptionsSchema = z.strictObject({
  extract: z.array(z.enum(EXTRACT_STRATEGIES)).min(1).default([...EXTRACT_STRATEGIES]),
  percent: z.enum(["equal-fraction", "strict"]).default("equal-fraction"),
  relTol: z.number().min(0).max(0.1).default(1e-3),
  sampleTol: z.number().positive().max(1e-3).default(1e-9),
  samplePoints: z.number().int().min(2).max(64).default(6),
  seed: z.number().int().default(0x5eed),
  maxBits: z.number().int().min(64).max(1_000_000).default(32768),
  cacheSize: z.number().int().min(0).default(50_000),
});

/** Validated options of the `math` verifier (see {@link MathOptionsSchema}). */
export type MathOptions = z.output<typeof MathOptionsSchema>;
