/** One component's input to an aggregator, after gates are applied. */
export interface AggregateTerm {
  name: string;
  weight: number;
  /** The component's score; `null` when unscorable. */
  score: number | null;
  /** False when the component's gate is closed: it must not contribute. */
  open: boolean;
}

/** Combines component terms into one reward. Returns `null` only when the reward is undefined by construction. */
export type Aggregator = (terms: readonly AggregateTerm[]) => number | null;
