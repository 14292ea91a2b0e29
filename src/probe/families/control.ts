import type { ProbeDefinition } from "../types.js";

/**
 * The shuffled-reference control (placebo): the rollout's own completion scored against another prompt's reference.
 * A reward that survives the shuffle does not depend on the answer being right: it pays for something else (format,
 * length, a judge's taste), which a policy can learn without solving anything.
 */
export const controlProbes: ProbeDefinition[] = [
  {
    name: "reference-shuffle",
    family: "control",
    description: "the rollout's own completion scored against another prompt's reference (shuffled-reference control)",
    make: (c) =>
      c.otherReference === undefined ? undefined : { completion: c.completion, reference: c.otherReference },
  },
];
