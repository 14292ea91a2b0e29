import { z } from "zod";

/** Text normalization options shared by `exact`, `contains` and `regex` (capture comparison). */
export const textNormalizationOptions = {
  /** Compare case-sensitively (default false: both sides lower-cased with `toLowerCase`). */
  caseSensitive: z.boolean().default(false),
  /** `collapse` (default): trim and squeeze runs of whitespace to one space; `trim`: only trim; `exact`: keep. */
  whitespace: z.enum(["collapse", "trim", "exact"]).default("collapse"),
};

export interface TextNormalization {
  caseSensitive: boolean;
  whitespace: "collapse" | "trim" | "exact";
}

/**
 * Normalizes text for comparison: Unicode NFKC, then whitespace and case per options.
 * Example: `normalizeText("  Hello\n World ", {caseSensitive: false, whitespace: "collapse"})` → `"hello world"`.
 */
export function normalizeText(s: string, o: TextNormalization): string {
  let t = s.normalize("NFKC");
  if (o.whitespace === "collapse") t = t.replace(/\s+/g, " ").trim();
  else if (o.whitespace === "trim") t = t.trim();
  return o.caseSensitive ? t : t.toLowerCase();
}

/**
 * Reads the acceptable reference strings: a string, a number, or an array of them (any one may match).
 * Returns `undefined` when the reference is missing or empty, `null` when it has another shape.
 */
export function referenceStrings(reference: unknown): string[] | undefined | null {
  if (reference === undefined || reference === null || reference === "") return undefined;
  if (typeof reference === "string" || typeof reference === "number") return [String(reference)];
  if (
    Array.isArray(reference) &&
    reference.length > 0 &&
    reference.every((r) => typeof r === "string" || typeof r === "number")
  ) {
    return reference.map(String);
  }
  return null;
}
