import type { Token } from "markdown-it";
import { z } from "zod";
import { ok, unscorable } from "../../core/types.js";
import type { VerifierDefinition } from "../types.js";

/** The structure checks, after FMBench's Markdown error classes (methods-catalog T29). */
export const MARKDOWN_CHECKS = ["headings", "lists", "tables", "fences-closed", "fences-labelled", "sections"] as const;
export type MarkdownCheck = (typeof MARKDOWN_CHECKS)[number];

const options = z.strictObject({
  /** Checks to run (default all; `sections` only counts when `requiredSections` is set). */
  checks: z
    .array(z.enum(MARKDOWN_CHECKS))
    .min(1)
    .default([...MARKDOWN_CHECKS]),
  /** Headings that must be present (text compared case-insensitively, trimmed). */
  requiredSections: z.array(z.string().min(1)).default([]),
});
export type MarkdownOptions = z.infer<typeof options>;

/** One failed check, with the 1-based line it concerns. */
export interface MarkdownProblem {
  check: MarkdownCheck;
  line: number;
  message: string;
}

// markdown-it (~190 ms to import) loads on first use, so workers of specs without `markdown` start fast.
/** What the checks need of a markdown-it instance. */
export interface MarkdownParser {
  parse(src: string, env: object): Token[];
}
let parser: Promise<MarkdownParser> | undefined;
/** The shared parser (CommonMark + GFM tables), created once per thread. */
export function loadMarkdown(): Promise<MarkdownParser> {
  parser ??= import("markdown-it").then((m) => new m.default({ html: false }));
  return parser;
}

/** Cells of a pipe-table row, ignoring one leading and one trailing pipe and escaped pipes. */
export function tableCells(line: string): number {
  let t = line.trim();
  if (t.startsWith("|")) t = t.slice(1);
  if (t.endsWith("|") && !t.endsWith("\\|")) t = t.slice(0, -1);
  return t.split(/(?<!\\)\|/).length;
}

/**
 * Runs the structure checks on a Markdown text:
 * - `headings`: heading levels never skip downwards (`#` then `###` fails);
 * - `lists`: no item-like line whose marker lacks its space (`-item`, `1.item`), ordered lists numbered consecutively;
 * - `tables`: every row has the header's number of cells; a `|`-row outside any table (e.g. no delimiter row) fails;
 * - `fences-closed`: every code fence is closed; `fences-labelled`: every fence names its language;
 * - `sections`: every `requiredSections` heading is present.
 * Returns the checks run and the problems found.
 */
export function checkMarkdown(
  md: MarkdownParser,
  text: string,
  o: MarkdownOptions,
): { checks: MarkdownCheck[]; problems: MarkdownProblem[] } {
  const tokens = md.parse(text, {});
  const lines = text.split(/\r?\n/);
  const problems: MarkdownProblem[] = [];
  const on = new Set(o.checks);
  const checks = o.checks.filter((c) => c !== "sections" || o.requiredSections.length > 0);
  const covered = new Array<boolean>(lines.length).fill(false); // lines inside code blocks / tables
  let lastLevel = 0;
  const headings: string[] = [];
  const listStack: Array<{ ordered: boolean; next: number }> = [];

  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const line = (t.map?.[0] ?? 0) + 1;
    if ((t.type === "fence" || t.type === "code_block") && t.map)
      for (let l = t.map[0]; l < t.map[1]; l++) covered[l] = true;
    if (t.type === "heading_open") {
      const level = Number(t.tag.slice(1));
      if (on.has("headings") && lastLevel > 0 && level > lastLevel + 1)
        problems.push({ check: "headings", line, message: `h${lastLevel} followed by h${level}` });
      lastLevel = level;
      headings.push((tokens[i + 1]?.content ?? "").trim().toLowerCase());
    } else if (t.type === "ordered_list_open") listStack.push({ ordered: true, next: Number(t.attrGet("start") ?? 1) });
    else if (t.type === "bullet_list_open") listStack.push({ ordered: false, next: 0 });
    else if (t.type === "ordered_list_close" || t.type === "bullet_list_close") listStack.pop();
    else if (t.type === "list_item_open") {
      const top = listStack[listStack.length - 1];
      if (top?.ordered) {
        const n = Number(t.info);
        if (on.has("lists") && n !== top.next)
          problems.push({ check: "lists", line, message: `item numbered ${n}, expected ${top.next}` });
        top.next = n + 1;
      }
    } else if (t.type === "fence") {
      const end = t.map ? t.map[1] - 1 : -1;
      const closing = lines[end]?.trim() ?? "";
      const closed =
        t.map !== null &&
        end > t.map[0] &&
        closing.startsWith(t.markup[0]!.repeat(t.markup.length)) &&
        closing.replace(new RegExp(`^\\${t.markup[0]}+`), "").trim() === "";
      if (on.has("fences-closed") && !closed)
        problems.push({ check: "fences-closed", line, message: "code fence not closed" });
      if (on.has("fences-labelled") && t.info.trim() === "")
        problems.push({ check: "fences-labelled", line, message: "code fence without a language" });
    } else if (t.type === "table_open" && t.map) {
      const [from, to] = t.map;
      for (let l = from; l < to; l++) covered[l] = true;
      const want = tableCells(lines[from] ?? "");
      for (let l = from + 2; l < to; l++) {
        const got = tableCells(lines[l] ?? "");
        if (on.has("tables") && got !== want)
          problems.push({ check: "tables", line: l + 1, message: `row has ${got} cells, header has ${want}` });
      }
    }
  }
  lines.forEach((l, idx) => {
    if (covered[idx]) return;
    // "-item", "+item", "1.item": a marker glued to a word (not "*emphasis*", "-5", "1.5")
    if (on.has("lists") && /^\s{0,3}(?:[-+][A-Za-z]|\d{1,9}[.)][A-Za-z])/.test(l)) {
      problems.push({ check: "lists", line: idx + 1, message: "list marker without a following space" });
    }
    if (on.has("tables") && /^\s*\|.*\|\s*$/.test(l))
      problems.push({
        check: "tables",
        line: idx + 1,
        message: "table row outside a well-formed table (missing delimiter row?)",
      });
  });
  if (on.has("sections")) {
    for (const s of o.requiredSections)
      if (!headings.includes(s.trim().toLowerCase()))
        problems.push({ check: "sections", line: 0, message: `missing section "${s}"` });
  }
  return { checks, problems };
}

/**
 * `markdown`: share of the structure checks passed, `1 − |failed checks| / |checks run|` (a check fails once
 * however many problems it finds); failed checks and their problems (with lines) in `details`.
 * Example: `"# T\n### Sub\n```\ncode\n```"` fails `headings` (h1 → h3) and `fences-labelled` → 1 − 2/5 = 0.6.
 */
export const markdownVerifier: VerifierDefinition<MarkdownOptions> = {
  type: "markdown",
  summary:
    "share of Markdown structure checks passed (heading levels, lists, table columns, code fences, required sections)",
  options,
  isolation: "worker",
  defaultTimeoutMs: 5000,
  create(o) {
    return async ({ completion }) => {
      if (completion.trim() === "") return unscorable("no_completion");
      const { checks, problems } = checkMarkdown(await loadMarkdown(), completion, o);
      const failed = [...new Set(problems.map((p) => p.check))];
      const score = checks.length === 0 ? 1 : 1 - failed.length / checks.length;
      if (failed.length === 0) return ok(1);
      return ok(score, "format_mismatch", { failed, problems: problems.slice(0, 20) });
    };
  },
};
