import type { Rollout } from "../core/types.js";
import type { CompiledSpec } from "../spec/types.js";

/** A component whose verifier cannot run on this host (its definition's `health` check failed). */
export interface HealthProblem {
  /** The component's name (with a routed spec: `<route>/<name>`). */
  component: string;
  type: string;
  /** Why not, one line (e.g. the code sandbox's self-test and what it saw). */
  problem: string;
}

/**
 * Runs every component's host check (`VerifierDefinition.health`: the code sandbox's self-test, per language and
 * reference kind; with `sample`, the checks that depend on the data) and lists the failures; empty when the host can
 * run the whole spec. Checks are cached per process by the verifiers, so calling this on every `/readyz` costs
 * nothing after the first.
 */
export async function specHealth(
  spec: Pick<CompiledSpec, "components">,
  prefix = "",
  sample?: readonly Rollout[],
): Promise<HealthProblem[]> {
  const found = await Promise.all(
    spec.components.map(async (c): Promise<HealthProblem | undefined> => {
      if (!c.definition.health) return undefined;
      let problem: string | undefined;
      try {
        problem = await c.definition.health(c.options, sample);
      } catch (e) {
        problem = `health check failed: ${(e as Error).message}`;
      }
      return problem === undefined ? undefined : { component: prefix + c.name, type: c.type, problem };
    }),
  );
  return found.filter((p) => p !== undefined);
}
