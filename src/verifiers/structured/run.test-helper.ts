import type { Rollout } from "../../core/types.js";
import type { VerifierDefinition } from "../types.js";

/** Instantiates a verifier from raw options and scores one completion (test helper). */
export async function run<O>(def: VerifierDefinition<O>, options: object, completion: string, reference?: unknown) {
  const fn = def.create(def.options.parse(options));
  const rollout: Rollout = { id: "r", group: "g", completion, reference };
  return fn({ completion, reference, rollout });
}
