/**
 * OpenAI grader templates: `{{ item.<path> }}` (the dataset row — here the rollout record) and
 * `{{ sample.output_text }}` / `{{ sample.output_json.<path> }}` (the completion, as text or parsed JSON).
 * Paths use dots and `[n]` indexes: `{{ item.reference_answer.donors }}`, `{{ sample.output_json.items[0].name }}`.
 */

const TAG = /\{\{\s*([^{}]*?)\s*\}\}/g;
const SUPPORTED = /^(item(\.[^.[\]]+|\[\d+\])*|sample\.output_text|sample\.output_json(\.[^.[\]]+|\[\d+\])*)$/;

/** The variable references of a template, e.g. `["sample.output_text", "item.label"]`. */
export function templateRefs(template: string): string[] {
  return [...template.matchAll(TAG)].map((m) => m[1]!);
}

/** Why a template cannot be rendered by rewardkit (undefined when it can). */
export function unsupportedRef(template: string): string | undefined {
  for (const ref of templateRefs(template)) {
    if (!SUPPORTED.test(ref)) {
      return ref.startsWith("sample.")
        ? `{{ ${ref} }} is not supported yet (supported: sample.output_text, sample.output_json.<path>, item.<path>)`
        : `{{ ${ref} }}: only the namespaces item and sample exist`;
    }
  }
  return undefined;
}

function walk(value: unknown, path: string): unknown {
  let cur = value;
  for (const key of path.match(/[^.[\]]+/g) ?? []) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** What a template reads from. `outputJson` is parsed lazily (only when a template asks for it). */
export interface TemplateContext {
  item: unknown;
  outputText: string;
}

/** A rendering failure: which side, and why (the verifier turns it into an unscorable reason). */
export type RenderResult = { text: string } | { missing: "item" | "invalid_json" };

function text(v: unknown): string {
  return typeof v === "string" ? v : v === undefined ? "" : JSON.stringify(v);
}

/**
 * Renders a template. A missing `item` value is an error (`missing: "item"`); a missing `sample.output_json`
 * field renders as "" (the sample simply lacks it); output_text that is not JSON when output_json is asked for is
 * `missing: "invalid_json"`.
 * Example: render("{{item.a.b}}!", {item: {a: {b: 3}}, outputText: ""}) → {text: "3!"}.
 */
export function render(
  template: string,
  ctx: TemplateContext,
  json?: { value?: unknown; parsed?: boolean; ok?: boolean },
): RenderResult {
  let failure: RenderResult | undefined;
  const out = template.replace(TAG, (_m, ref: string) => {
    if (ref === "sample.output_text") return ctx.outputText;
    if (ref.startsWith("sample.output_json")) {
      const j = json ?? {};
      if (!j.parsed) {
        j.parsed = true;
        try {
          j.value = JSON.parse(ctx.outputText);
          j.ok = true;
        } catch {
          j.ok = false;
        }
      }
      if (!j.ok) {
        failure ??= { missing: "invalid_json" };
        return "";
      }
      return text(walk(j.value, ref.slice("sample.output_json".length)));
    }
    const v = walk(ctx.item, ref.slice("item".length));
    if (v === undefined || v === null) {
      failure ??= { missing: "item" };
      return "";
    }
    return text(v);
  });
  return failure ?? { text: out };
}
