import type { GroupStageContext } from "../verifiers/types.js";
import { COMPONENT_BASE_KEYS } from "./schema.js";
import type { CompiledComponent } from "./types.js";

/** A validation issue with its path into the spec document. */
interface Issue {
  path: PropertyKey[];
  message: string;
}

/**
 * Compiles the group-context stages of the components that have one (`definition.group`), in place. A stage may
 * name other components (e.g. `cosine-length`'s `correctness`): they must exist and be per-rollout components
 * (a stage reads per-rollout verdicts). A staged component's type options cannot be scheduled: its stage is built
 * once, from the spec's values.
 * @param scheduled (component index, key) of every scheduled value.
 */
export function compileStages(
  components: CompiledComponent[],
  scheduled: ReadonlyArray<{ component: number; key: string }>,
  issues: Issue[],
): void {
  const names = components.map((c) => c.name);
  const passThresholds = components.map((c) => c.passThreshold);
  const reads: Array<Array<{ j: number; key: string }>> = components.map(() => []);
  components.forEach((c, i) => {
    if (!c.definition.group) return;
    const ctx: GroupStageContext = {
      index: i,
      names,
      passThresholds,
      component(name, key) {
        const j = names.indexOf(name);
        if (j < 0)
          issues.push({
            path: ["components", i, key],
            message: `"${name}" names no component; known: ${names.join(", ")}`,
          });
        else if (j === i) issues.push({ path: ["components", i, key], message: "a component cannot read itself" });
        else {
          reads[i]!.push({ j, key });
          return j;
        }
        return -1;
      },
      issue(key, message) {
        issues.push({ path: ["components", i, key], message });
      },
    };
    const stage = c.definition.group(c.options, ctx);
    if (stage) c.stage = stage;
  });
  components.forEach((c, i) => {
    for (const { j, key } of reads[i]!) {
      if (components[j]!.stage)
        issues.push({
          path: ["components", i, key],
          message: `"${names[j]}" is itself scored at the group stage; name a per-rollout component`,
        });
    }
  });
  for (const f of scheduled) {
    if (components[f.component]?.stage && !COMPONENT_BASE_KEYS.has(f.key)) {
      issues.push({
        path: ["components", f.component, f.key],
        message: "the type options of a component with a group stage cannot be scheduled",
      });
    }
  }
}
