import type { EstimatorDefinition } from "../advantage/types.js";
import type { VerifierDefinition } from "../verifiers/types.js";

/** A component ready to run: validated options and resolved verifier. */
export interface CompiledComponent {
  name: string;
  type: string;
  weight: number;
  passThreshold: number;
  /** Index (into `components`) of the gate component, if any. */
  gate?: number;
  timeoutMs: number;
  /** Validated type options, defaults filled in (plain data, sent to workers). */
  options: Record<string, unknown>;
  definition: VerifierDefinition<unknown>;
}

/** A validated, resolved spec. `plain` is the normalized spec as plain data (what `check` prints, what workers get). */
export interface CompiledSpec {
  name: string;
  /** First 16 hex digits of the SHA-256 of the normalized spec (stable across key order and formatting). */
  hash: string;
  components: CompiledComponent[];
  aggregate: "weighted-sum";
  onUnscorable: "zero" | "exclude";
  advantage: { estimator: EstimatorDefinition<unknown>; options: Record<string, unknown> };
  plain: PlainSpec;
}

/** The normalized spec as plain JSON data. */
export interface PlainSpec {
  name: string;
  components: Array<{ name: string; type: string; weight: number; passThreshold: number; gate?: string; timeoutMs: number; options: Record<string, unknown> }>;
  aggregate: string;
  onUnscorable: string;
  advantage: { estimator: string; options: Record<string, unknown> };
}
