import { answerProbes } from "./families/answers.js";
import { codeProbes } from "./families/code.js";
import { controlProbes } from "./families/control.js";
import { degenerateProbes } from "./families/degenerate.js";
import { judgeProbes } from "./families/judge.js";
import type { ProbeDefinition } from "./types.js";

/** Every probe, one family file each; adding a probe is an entry in its family's list. */
export const PROBES: readonly ProbeDefinition[] = [
  ...degenerateProbes,
  ...answerProbes,
  ...judgeProbes,
  ...codeProbes,
  ...controlProbes,
];

/** The probe named `name`, or undefined. */
export function probeByName(name: string): ProbeDefinition | undefined {
  return PROBES.find((p) => p.name === name);
}
