import { getPath } from "../../io/fields.js";
import type { ChatMessage } from "../../core/types.js";

/**
 * Judge prompt templates: `{{prompt}}`, `{{completion}}`, `{{reference}}`, `{{item.<path>}}` (any rollout field,
 * dotted, `[n]` indexes allowed), and for the pairwise and listwise modes `{{answer_a}}`, `{{answer_b}}`,
 * `{{completions}}` (the group's completions, numbered `[1] …`) and `{{n}}` (their count). OpenAI's spellings
 * `{{sample.output_text}}` (= completion) and `{{ item.x }}` are accepted. Spaces inside the braces are allowed.
 *
 * Substitution is one pass over the template: text brought in by a variable is never searched for variables again,
 * so a completion that contains `{{reference}}` cannot pull the reference answer into the judge's prompt.
 */
const VAR = /\{\{\s*([A-Za-z_][\w.[\]-]*)\s*\}\}/g;

/** Variable names (as normalized: `sample.output_text` → `completion`) a template uses. */
export function templateVariables(t: string): string[] {
  return [...t.matchAll(VAR)].map((m) => canonicalVariable(m[1]!));
}

/** `sample.output_text` → `completion`; `item.a[0].b` → `item.a.0.b`; others unchanged. */
export function canonicalVariable(name: string): string {
  if (name === "sample.output_text") return "completion";
  return name.replace(/\[(\d+)\]/g, ".$1");
}

const PLAIN = new Set(["prompt", "completion", "reference", "answer_a", "answer_b", "completions", "n"]);

/** Why a variable cannot be rendered (undefined when it can). */
export function unknownVariable(name: string): string | undefined {
  const c = canonicalVariable(name);
  if (PLAIN.has(c) || /^item\.[^.]+(\.[^.]+)*$/.test(c)) return undefined;
  return `unknown template variable {{${name}}}; known: ${[...PLAIN].map((v) => `{{${v}}}`).join(", ")}, {{item.<path>}}`;
}

/** A value as judge-prompt text: strings as they are, anything else as JSON. */
export function asText(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}

/** A prompt as text: a string as it is; chat messages as their contents, each after its role when there are several. */
export function promptText(p: string | ChatMessage[] | undefined): string | undefined {
  if (p === undefined) return undefined;
  if (typeof p === "string") return p;
  if (p.length === 1) return asText(p[0]!.content);
  return p.map((m) => `${m.role}: ${asText(m.content)}`).join("\n\n");
}

/**
 * Renders a template. `vars` gives the plain variables (undefined = not available); `item` is the rollout record.
 * @returns the text, or the first variable that has no value (an absent reference, a missing `item` path).
 */
export function render(
  template: string,
  vars: Record<string, string | undefined>,
  item: unknown,
): { text: string } | { missing: string } {
  let missing: string | undefined;
  const text = template.replace(VAR, (whole, name: string) => {
    const c = canonicalVariable(name);
    let v: string | undefined;
    if (c.startsWith("item.")) {
      const x = getPath(item, c.slice(5));
      v = x === undefined ? undefined : asText(x);
    } else v = vars[c];
    if (v === undefined) {
      missing ??= name;
      return whole;
    }
    return v;
  });
  return missing === undefined ? { text } : { missing };
}
