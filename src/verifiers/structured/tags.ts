import { z } from "zod";
import { ok } from "../../core/types.js";
import type { VerifierDefinition } from "../types.js";

const tagName = z.string().regex(/^[A-Za-z][\w-]*$/, "a tag name: letters, digits, _ and -");
const field = z.union([tagName, z.strictObject({ name: tagName, required: z.boolean().default(true) })]);

const options = z.strictObject({
  /** The fields, in their expected order: names (required) or `{name, required}`. Default: `think`, then `answer`. */
  fields: z.array(field).min(1).default(["think", "answer"]),
  /** Fields must appear in the listed order (default true). */
  ordered: z.boolean().default(true),
  /** Text outside the fields (other than whitespace) is allowed (default false). */
  allowOutside: z.boolean().default(false),
  /** Required fields must have non-blank content (default true). */
  nonEmpty: z.boolean().default(true),
  /**
   * `strict` (default): 1 when every check passes, else 0 — malformed or mismatched tags earn nothing
   * (the fix verifiers users asked for in verifiers #116, #207). `partial`: the verifiers-style format score
   * 0.4 × share of fields present + 0.2 × spacing + 0.2 × starts with the first field + 0.2 × ends with the last.
   */
  mode: z.enum(["strict", "partial"]).default("strict"),
});
export type TagsOptions = z.infer<typeof options>;

/** One well-formed field block found in the text. */
interface Block {
  name: string;
  start: number;
  end: number;
  content: string;
}

export interface TagsAnalysis {
  blocks: Block[];
  /** Named defects: `malformed_tag:<text>`, `unclosed:<name>`, `unopened:<name>`, `mismatched:<open>/<close>`, `nested:<outer>/<inner>`, `duplicate:<name>`, `missing:<name>`, `empty:<name>`, `order:<name>`, `outside_text`. */
  problems: string[];
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Scans `text` for the listed fields' tags. Only exact `<name>` / `</name>` count as tags; near-misses of a
 * field's tag (`<answer >`, `< answer>`, `<answer/>`, `<Answer>`, `</answer`) are `malformed_tag`. Linear time.
 */
export function analyzeTags(text: string, o: TagsOptions): TagsAnalysis {
  const fields = o.fields.map((f) => (typeof f === "string" ? { name: f, required: true } : f));
  const names = fields.map((f) => f.name);
  const problems: string[] = [];
  const alt = names.map(escape).join("|");
  // anything that looks like an attempt at one of the field tags
  const near = new RegExp(`<\\s*/?\\s*(?:${alt})\\b[^<>]*>?`, "gi");
  const exact = new RegExp(`^<(/?)(${alt})>$`);
  const blocks: Block[] = [];
  let open: { name: string; at: number; inner: number } | undefined;
  for (const m of text.matchAll(near)) {
    const tok = m[0];
    const e = exact.exec(tok);
    if (!e) {
      problems.push(`malformed_tag:${tok}`);
      continue;
    }
    const [, slash, name] = e as unknown as [string, string, string];
    const at = m.index;
    if (slash === "") {
      if (open) problems.push(`nested:${open.name}/${name}`);
      else open = { name, at, inner: at + tok.length };
    } else if (!open) problems.push(`unopened:${name}`);
    else if (open.name !== name) {
      problems.push(`mismatched:${open.name}/${name}`);
      open = undefined;
    } else {
      blocks.push({ name, start: open.at, end: at + tok.length, content: text.slice(open.inner, at) });
      open = undefined;
    }
  }
  if (open) problems.push(`unclosed:${open.name}`);

  const seen = new Map<string, number>();
  for (const b of blocks) seen.set(b.name, (seen.get(b.name) ?? 0) + 1);
  for (const f of fields) {
    const n = seen.get(f.name) ?? 0;
    if (n > 1) problems.push(`duplicate:${f.name}`);
    if (n === 0 && f.required) problems.push(`missing:${f.name}`);
    if (n >= 1 && f.required && o.nonEmpty && blocks.find((b) => b.name === f.name)!.content.trim() === "")
      problems.push(`empty:${f.name}`);
  }
  if (o.ordered) {
    let last = -1;
    for (const b of blocks) {
      const i = names.indexOf(b.name);
      if (i < last) {
        problems.push(`order:${b.name}`);
        break;
      }
      last = i;
    }
  }
  if (!o.allowOutside) {
    let pos = 0;
    let outside = "";
    for (const b of blocks) {
      outside += text.slice(pos, b.start);
      pos = b.end;
    }
    outside += text.slice(pos);
    if (outside.trim() !== "") problems.push("outside_text");
  }
  return { blocks, problems };
}

/**
 * The verifiers-style partial format score: `0.4·present/fields + 0.2·spacing + 0.2·starts + 0.2·ends`, where a
 * field is present when it has a well-formed block, `spacing` = 1 when only whitespace separates consecutive
 * blocks, `starts` = the trimmed text starts with the first field's opening tag, `ends` = it ends with the last
 * field's closing tag. Example (fields think, answer): `"<think>a</think>\n<answer>4</answer>"` → 1;
 * `"<think>a</think> so <answer>4</answer>"` → 0.8 (spacing fails); `"The answer is 4"` → 0.
 */
export function partialTagScore(
  text: string,
  o: TagsOptions,
  a: TagsAnalysis,
): { score: number; parts: Record<string, number> } {
  const names = o.fields.map((f) => (typeof f === "string" ? f : f.name));
  const present = names.filter((n) => a.blocks.some((b) => b.name === n)).length / names.length;
  let spacing = a.blocks.length > 0 ? 1 : 0;
  for (let i = 1; i < a.blocks.length; i++)
    if (text.slice(a.blocks[i - 1]!.end, a.blocks[i]!.start).trim() !== "") spacing = 0;
  const t = text.trim();
  const starts = t.startsWith(`<${names[0]}>`) ? 1 : 0;
  const ends = t.endsWith(`</${names[names.length - 1]}>`) ? 1 : 0;
  const score = 0.4 * present + 0.2 * spacing + 0.2 * starts + 0.2 * ends;
  return { score: Math.round(score * 1e12) / 1e12, parts: { present, spacing, starts, ends } };
}

/**
 * `tags`: checks XML-like fields (`<think>`, `<answer>`, `<tool_call>` …): required fields present exactly once,
 * well-formed and closed, not nested, in order, nothing outside them. Strict mode: 1 or 0 (`format_mismatch`
 * with `details.problems`). Partial mode: {@link partialTagScore}, with the problems still listed.
 * Example (default fields think, answer): `"<think>2+2</think>\n<answer>4</answer>"` → 1;
 * `"<think>2+2</think><answer>4</answr>"` → 0 with problems `["unclosed:answer", "missing:answer", "outside_text"]`.
 */
export const tagsVerifier: VerifierDefinition<TagsOptions> = {
  type: "tags",
  summary:
    "1 if the completion is exactly the required <field>…</field> blocks, well-formed and in order (or the verifiers-style partial score)",
  options,
  isolation: "inline",
  defaultTimeoutMs: 1000,
  create(o) {
    return ({ completion }) => {
      const a = analyzeTags(completion, o);
      if (o.mode === "partial") {
        const p = partialTagScore(completion, o, a);
        const details = { ...p.parts, ...(a.problems.length ? { problems: a.problems } : {}) };
        return p.score === 1 ? ok(1, undefined, details) : ok(p.score, "format_mismatch", details);
      }
      return a.problems.length === 0 ? ok(1) : ok(0, "format_mismatch", { problems: a.problems });
    };
  },
};
