import { validate } from "../issues.js";
import type { Issue } from "../issues.js";
import { formulaNames, parseFormula } from "../../compose/formula.js";
import { SIMILARITY_METRICS, similarityVerifier, stringCheck, textSimilarity } from "../../verifiers/openai/grader.js";
import { modelGraderComponent } from "./openai-model-grader.js";

/** Is this parsed document an OpenAI grader (it has a `type` and no `components`) rather than a rewardkit spec? */
export function isGraderDocument(data: unknown): data is { type: string } & Record<string, unknown> {
  return (
    data !== null &&
    typeof data === "object" &&
    !Array.isArray(data) &&
    typeof (data as { type?: unknown }).type === "string" &&
    !("components" in data)
  );
}

const NOT_YET: Record<string, string> = {
  python: "Python graders run arbitrary code; port the check to a rewardkit verifier",
};

/** One `string_check` / `text_similarity` grader → a component, or issues (paths into the grader document). */
function component(
  g: unknown,
  name: string,
  at: PropertyKey[],
): { component: Record<string, unknown> } | { issues: Issue[] } {
  const type = (g as { type?: unknown })?.type;
  const label = typeof (g as { name?: unknown })?.name === "string" ? ` "${(g as { name: string }).name}"` : "";
  if (typeof type === "string" && type in NOT_YET)
    return {
      issues: [{ path: [...at, "type"], message: `${type} grader${label} is not supported yet (${NOT_YET[type]})` }],
    };
  if (type === "multi")
    return { issues: [{ path: [...at, "type"], message: "a multi grader cannot contain another multi grader" }] };
  if (type === "score_model" || type === "label_model") return modelGraderComponent(g, name, at);
  if (type !== "string_check" && type !== "text_similarity") {
    return {
      issues: [
        {
          path: [...at, "type"],
          message: `unknown grader type "${String(type)}"; supported: string_check, text_similarity, score_model, label_model, multi`,
        },
      ],
    };
  }
  const r =
    type === "string_check"
      ? validate(stringCheck, g, at, "grader field")
      : validate(textSimilarity, g, at, "grader field");
  if ("issues" in r) return r;
  const grader = r.data;
  if (grader.type === "text_similarity") {
    const vt = SIMILARITY_METRICS[grader.evaluation_metric]!;
    if (!similarityVerifier(vt))
      return {
        issues: [
          {
            path: [...at, "evaluation_metric"],
            message: `${grader.evaluation_metric} needs the ${vt} verifier, which this build does not have yet`,
          },
        ],
      };
  }
  const threshold = grader.type === "text_similarity" ? grader.pass_threshold : undefined;
  return {
    component: {
      name,
      type: "openai-grader",
      grader,
      ...(threshold !== undefined ? { passThreshold: threshold } : {}),
    },
  };
}

/**
 * Turns an OpenAI grader JSON (`string_check`, `text_similarity`, `score_model`, `label_model`, or `multi` of them
 * with `calculate_output`) into rewardkit spec data:
 * - a single grader → one `openai-grader` component named `grader` (its `pass_threshold` → `passThreshold`);
 * - `multi` → one component per entry of `graders` (the key is the component name and the formula variable) and
 *   `aggregate: {type: formula, formula: <calculate_output>}`.
 * - `score_model` / `label_model` → a `judge` component (`model-grader.ts`).
 * The spec is named after the grader's `name`. `python` → "not supported yet".
 * @returns the spec data, or issues with paths into the grader document.
 */
export function graderToSpec(
  g: { type: string } & Record<string, unknown>,
): { data: Record<string, unknown> } | { issues: Issue[] } {
  const name = typeof g.name === "string" && g.name.trim() ? g.name : undefined;
  const base = { ...(name ? { name } : {}), description: `imported OpenAI ${g.type} grader` };
  if (g.type !== "multi") {
    const c = component(g, "grader", []);
    return "issues" in c ? c : { data: { ...base, components: [c.component] } };
  }
  const issues: Issue[] = [];
  const graders = g.graders;
  if (graders === null || typeof graders !== "object" || Array.isArray(graders)) {
    return {
      issues: [
        { path: ["graders"], message: "expected a named map of graders (each key is a variable of calculate_output)" },
      ],
    };
  }
  const components: Record<string, unknown>[] = [];
  for (const [key, sub] of Object.entries(graders)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) {
      issues.push({
        path: ["graders", key],
        message: "a grader key must be a formula variable (letters, digits, _; not starting with a digit)",
      });
      continue;
    }
    const c = component(sub, key, ["graders", key]);
    if ("issues" in c) issues.push(...c.issues);
    else components.push(c.component);
  }
  if (components.length === 0 && issues.length === 0)
    issues.push({ path: ["graders"], message: "a multi grader needs at least one grader" });
  if (typeof g.calculate_output !== "string")
    issues.push({ path: ["calculate_output"], message: "required (a formula of the grader keys)" });
  else {
    try {
      const unknown = formulaNames(parseFormula(g.calculate_output)).filter((n) => !(n in graders));
      if (unknown.length > 0)
        issues.push({
          path: ["calculate_output"],
          message: `unknown variable${unknown.length > 1 ? "s" : ""} ${unknown.map((n) => `"${n}"`).join(", ")}; graders: ${Object.keys(graders).join(", ")}`,
        });
    } catch (e) {
      issues.push({ path: ["calculate_output"], message: (e as Error).message });
    }
  }
  for (const k of Object.keys(g))
    if (!["type", "name", "graders", "calculate_output"].includes(k))
      issues.push({ path: [k], message: `unknown multi grader field "${k}"` });
  if (issues.length > 0) return { issues };
  return { data: { ...base, components, aggregate: { type: "formula", formula: g.calculate_output } } };
}
