import { tokenAdvantagesOption } from "../advantage/tokens.js";
import type { Issue as SpecIssue } from "./issues.js";
import { validate } from "./issues.js";

/** `advantage.tokens`, resolved: which components' token rewards enter the token advantages, with what λ. */
export interface CompiledTokenAdvantages {
  components: Array<{ index: number; name: string; coef: number }>;
  returns: boolean;
}

/**
 * Resolves the `tokens:` key of the `advantage:` block (docs/dense.md): every named component must exist. A spec
 * with a `process` component is refused: its `token_advantages` (step advantages broadcast by `step_token_offsets`)
 * would be a second, different meaning of the same output field.
 * @returns the resolved block, or undefined (issues pushed) when it does not hold.
 */
export function compileTokenAdvantages(
  raw: unknown,
  components: ReadonlyArray<{ name: string; type: string }>,
  issues: SpecIssue[],
): CompiledTokenAdvantages | undefined {
  const r = validate(tokenAdvantagesOption, raw, ["advantage", "tokens"]);
  if ("issues" in r) {
    issues.push(...r.issues);
    return undefined;
  }
  const out: CompiledTokenAdvantages = { components: [], returns: r.data.returns };
  for (const [name, coef] of Object.entries(r.data.components)) {
    const index = components.findIndex((c) => c.name === name);
    if (index < 0) {
      issues.push({
        path: ["advantage", "tokens", "components", name],
        message: `names no component; known: ${components.map((c) => c.name).join(", ")}`,
      });
      continue;
    }
    out.components.push({ index, name, coef });
  }
  const process = components.find((c) => c.type === "process");
  if (process)
    issues.push({
      path: ["advantage", "tokens"],
      message: `not with a process component ("${process.name}"): its step advantages already fill token_advantages`,
    });
  return out;
}
