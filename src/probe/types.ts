import type { Rollout } from "../core/types.js";
import type { CompiledSpec } from "../spec/types.js";

/** What a probe sees of one sampled rollout. All strings; `reference` is the reference as text ("" when it is not a string or number). */
export interface ProbeContext {
  rollout: Rollout;
  /** The sampled rollout's own completion, as text. */
  completion: string;
  /** The prompt as text (chat prompts: the contents joined by a blank line). */
  prompt: string;
  /** The reference answer as text ("" when it is not a string or number). */
  reference: string;
  /** A wrong answer in the reference's style: another prompt's reference (never equal to, inside or around this one). */
  wrong: string;
  /** Another prompt's reference value (any JSON), for the shuffled-reference control. */
  otherReference: unknown;
  /** The option letters of the spec's `choice` component (default `ABCD`). */
  letters: string;
  /** Characters of a "maximal length" completion (`--max-chars`). */
  maxChars: number;
  /** 0-based index of the rollout in the sample: probes with several forms rotate through them by it. */
  index: number;
}

/** One adversarial completion, optionally scored against another reference than the rollout's. */
export interface ProbeCase {
  completion: string;
  /** Scored against this reference instead of the rollout's (the shuffled-reference control). */
  reference?: unknown;
  /** Which form of the probe this is (e.g. `"or-maybe"`), shown with examples. */
  form?: string;
}

/**
 * A reward-hacking probe: a way to earn reward without solving the task. `make` builds the adversarial completion
 * for one sampled rollout (or `undefined` when the probe has nothing to try on it, e.g. a look-alike of a reference
 * with no look-alike characters). The runner scores it with the spec and counts how often it earns more than the
 * baseline wrong answer for the same prompt.
 */
export interface ProbeDefinition {
  /** kebab-case; the name `--fail-on` takes and `--json` prints. */
  name: string;
  /** The family file it lives in (`degenerate`, `answers`, `judge`, `code`, `control`). */
  family: string;
  /** One sentence: what the adversarial completion is. */
  description: string;
  /** The probe only runs when this holds (e.g. code hacks need a `code` component); the reason it was skipped otherwise. */
  skip?: (spec: CompiledSpec) => string | undefined;
  make(ctx: ProbeContext): ProbeCase | undefined;
}

/** Picks the `index`-th form, cycling. */
export function rotate<T>(forms: readonly T[], index: number): T {
  return forms[index % forms.length]!;
}
