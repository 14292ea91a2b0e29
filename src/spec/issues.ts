import { printParseErrorCode, parse as parseJsonc } from "jsonc-parser";
import type { ParseError } from "jsonc-parser";
import type { z } from "zod";

/**
 * A problem at a path inside a document (a spec, an aggregate block, a grader), before it is located in a file:
 * `load.ts` turns the path into `file:line:col` ({@link Problem} in `errors.ts`).
 */
export interface Issue {
  path: PropertyKey[];
  message: string;
}

/** What zod calls an input's type in its messages (`received string`). */
function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number" && Number.isNaN(v)) return "NaN";
  return typeof v;
}

/**
 * The per-parse zod error map that words every spec message: a missing key is `required (expected number)`, a
 * wrong type `expected number, received string`, a bad enum value `expected one of "zero"|"exclude"`. Other codes
 * keep zod's own wording or the schema's message. Built from the issue's fields, never from zod's English text.
 */
export const specErrorMap: z.core.$ZodErrorMap = (iss) => {
  if (iss.code === "invalid_type")
    return iss.input === undefined
      ? `required (expected ${iss.expected})`
      : `expected ${iss.expected}, received ${kindOf(iss.input)}`;
  if (iss.code === "invalid_value")
    return iss.values.length === 1
      ? `expected ${JSON.stringify(iss.values[0])}`
      : `expected one of ${iss.values.map((v) => JSON.stringify(v)).join("|")}`;
  return undefined;
};

/**
 * Validates `data` with `schema`, every problem an {@link Issue}: paths are prefixed with `at`; unknown keys (strict
 * objects) are reported at the key itself as `unknown <noun> "k"`.
 * @param noun what a key of this object is, for unknown keys (`option`, `grader field`, `linear schedule option`).
 */
export function validate<T>(
  schema: z.ZodType<T>,
  data: unknown,
  at: readonly PropertyKey[] = [],
  noun = "option",
): { data: T } | { issues: Issue[] } {
  const r = schema.safeParse(data, { error: specErrorMap });
  if (r.success) return { data: r.data };
  return { issues: zodIssues(r.error, at, noun) };
}

/** A zod error (parsed with {@link specErrorMap}) as issues; see {@link validate}. */
export function zodIssues(error: z.ZodError, at: readonly PropertyKey[] = [], noun = "option"): Issue[] {
  return error.issues.map((i) =>
    i.code === "unrecognized_keys"
      ? {
          path: [...at, ...i.path, i.keys[0]!],
          message: `unknown ${noun}${i.keys.length > 1 ? "s" : ""} ${i.keys.map((k) => `"${k}"`).join(", ")}`,
        }
      : { path: [...at, ...i.path], message: i.message },
  );
}

/** Is this issue a missing required key (for hints such as "write aggregate: {type: …}")? */
export function isMissing(error: z.ZodError, i: z.core.$ZodIssue, data: unknown): boolean {
  if (i.code !== "invalid_type" || !error.issues.includes(i)) return false;
  let v: unknown = data;
  for (const k of i.path) v = v !== null && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v === undefined;
}

/** 1-based line and column of a character offset. */
export function lineCol(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset);
  const nl = before.lastIndexOf("\n");
  return { line: before.split("\n").length, col: offset - nl };
}

const JSON_WORDING: Record<string, string> = {
  InvalidSymbol: "unexpected",
  InvalidNumberFormat: "invalid number",
  PropertyNameExpected: "expected a property name (in double quotes)",
  ValueExpected: "expected a value",
  ColonExpected: "expected ':'",
  CommaExpected: "expected ','",
  CloseBraceExpected: "expected '}'",
  CloseBracketExpected: "expected ']'",
  EndOfFileExpected: "unexpected text after the end of the document",
  InvalidCommentToken: "comments are not JSON",
  UnexpectedEndOfComment: "unterminated comment",
  UnexpectedEndOfString: "unterminated string",
  UnexpectedEndOfNumber: "unterminated number",
  InvalidUnicode: "invalid unicode escape",
  InvalidEscapeCharacter: "invalid escape",
  InvalidCharacter: "invalid character in a string (control characters must be escaped)",
};

/**
 * Strict-JSON syntax problems with their positions (a trailing comma, an unquoted word, a comment …), found by
 * `jsonc-parser`'s error-tolerant scanner in strict mode (every error code and offset, on every Node version;
 * V8's `JSON.parse` message carries no position on Node 20). `JSON.parse` stays the judge of what is valid: a text
 * it rejects and the scanner accepts gets one problem without a position.
 * @returns the problems in document order, empty for valid JSON.
 */
export function jsonSyntaxProblems(text: string): { line?: number; col?: number; message: string }[] {
  try {
    JSON.parse(text);
    return [];
  } catch (e) {
    const errors: ParseError[] = [];
    parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
    if (errors.length === 0) return [{ message: `invalid JSON: ${(e as Error).message.split("\n")[0]}` }];
    const first = errors[0]!; // later errors are mostly consequences of the first
    const code = printParseErrorCode(first.error);
    const token = text.slice(first.offset, first.offset + Math.min(first.length, 40));
    const words = JSON_WORDING[code] ?? code;
    return [
      {
        ...lineCol(text, first.offset),
        message: `invalid JSON: ${words}${code === "InvalidSymbol" ? ` ${JSON.stringify(token)}` : ""}`,
      },
    ];
  }
}
