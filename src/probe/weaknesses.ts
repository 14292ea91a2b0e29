/**
 * Known, documented weaknesses: a probe that earns above the baseline through a component of one of these types is
 * a property of that reward, not a bug to fix here; `probe --json` links the docs section (`documented`). Every
 * entry has its section in docs/probe.md ("Known weaknesses").
 */
export interface KnownWeakness {
  probe: string;
  types: readonly string[];
  /** Anchor in docs/probe.md. */
  anchor: string;
}

export const KNOWN_WEAKNESSES: readonly KnownWeakness[] = [
  // substring rewards pay any text that holds the value: every enumeration, hedge and spam holds it
  { probe: "*", types: ["contains"], anchor: "contains-pays-any-text-holding-the-value" },
  // similarity metrics give partial credit to near misses and look-alikes by construction
  {
    probe: "*",
    types: ["f1", "levenshtein", "fuzzy", "bleu", "rouge-1", "rouge-2", "rouge-3", "rouge-4", "rouge-5", "rouge-l"],
    anchor: "similarity-rewards-give-partial-credit",
  },
  // reward models and judges prefer longer answers (length bias)
  { probe: "max-length", types: ["reward-model", "judge"], anchor: "learned-rewards-prefer-length" },
];

/** The docs link for a probe whose above-baseline share comes from components of `types`, or undefined. */
export function documentedWeakness(probe: string, types: readonly string[]): string | undefined {
  if (types.length === 0) return undefined;
  for (const w of KNOWN_WEAKNESSES) {
    if ((w.probe === "*" || w.probe === probe) && types.every((t) => w.types.includes(t)))
      return `docs/probe.md#${w.anchor}`;
  }
  return undefined;
}
