/** An example of a disagreement, kept for the summary. */
export interface AgreementExample {
  id: string;
  label: boolean;
  score: number | null;
  reason?: string;
  extracted?: unknown;
  reference?: unknown;
}

/** Agreement of a component's pass/fail with a boolean label field. */
export interface LabelAgreement {
  field: string;
  component: string;
  /** Rollouts with a usable label. */
  n: number;
  agree: number;
  /** agree / n, in [0, 1]. */
  agreement: number | null;
  /** Component passed, label false. */
  falsePositives: number;
  /** Component did not pass (wrong or unscorable), label true. */
  falseNegatives: number;
  /** Of the rollouts with a label, how many the component could not score (they count as "did not pass"). */
  unscorable: number;
  /** Rollouts whose label was missing or not boolean-like; not counted in n. */
  missingLabel: number;
  examples: { falsePositives: AgreementExample[]; falseNegatives: AgreementExample[] };
}

/** Reads a label as a boolean: true/false, 1/0, "true"/"false"/"1"/"0"/"yes"/"no"; anything else → undefined. */
export function labelBool(v: unknown): boolean | undefined {
  if (typeof v === "boolean") return v;
  if (v === 1 || v === 0) return v === 1;
  if (typeof v === "string") {
    const s = v.trim().toLowerCase();
    if (s === "true" || s === "1" || s === "yes") return true;
    if (s === "false" || s === "0" || s === "no") return false;
  }
  return undefined;
}

/** Accumulates agreement between a component's verdicts and labels, keeping `maxExamples` of each error kind. */
export class AgreementBuilder {
  private n = 0;
  private agree = 0;
  private fp = 0;
  private fn = 0;
  private unscorable = 0;
  private missing = 0;
  private readonly fps: AgreementExample[] = [];
  private readonly fns: AgreementExample[] = [];

  constructor(
    private readonly field: string,
    private readonly component: string,
    private readonly maxExamples = 5,
  ) {}

  /** Adds one verdict. `passed` is score ≥ passThreshold (false when unscorable). */
  add(label: unknown, passed: boolean, example: Omit<AgreementExample, "label">): void {
    const l = labelBool(label);
    if (l === undefined) {
      this.missing++;
      return;
    }
    this.n++;
    if (example.score === null) this.unscorable++;
    if (passed === l) this.agree++;
    else if (passed) {
      this.fp++;
      if (this.fps.length < this.maxExamples) this.fps.push({ ...example, label: l });
    } else {
      this.fn++;
      if (this.fns.length < this.maxExamples) this.fns.push({ ...example, label: l });
    }
  }

  finish(): LabelAgreement {
    return {
      field: this.field,
      component: this.component,
      n: this.n,
      agree: this.agree,
      agreement: this.n > 0 ? this.agree / this.n : null,
      falsePositives: this.fp,
      falseNegatives: this.fn,
      unscorable: this.unscorable,
      missingLabel: this.missing,
      examples: { falsePositives: this.fps, falseNegatives: this.fns },
    };
  }
}
