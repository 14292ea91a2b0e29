import type { ComponentResult, Rollout } from "../core/types.js";
import { tokenSpans } from "../verifiers/process/token-spans.js";

export { tokenSpans };

/** ε added to the step-reward std (as GRPO adds it to the reward std). */
export const STEP_EPSILON = 1e-6;

/** The scored-row fields of one rollout's step-level advantages. */
export interface StepAdvantageFields {
  /** One number per step; null when the rollout's advantage is null (left out of its group). */
  step_advantages: number[] | null;
  /** The step advantages broadcast to tokens, when the rollout carries `step_token_offsets`. */
  token_advantages?: number[] | null;
  /** Why `step_token_offsets` could not be used (then no `token_advantages`). */
  token_advantages_error?: string;
}

/** What step advantages read of a compiled spec (a `CompiledSpec` is one). */
export interface ProcessSpec {
  components: ReadonlyArray<{ type: string; weight: number }>;
}

/** The `process` component whose step rewards drive `step_advantages`: the first that counts (weight ≠ 0), else the first. */
export function processComponent(spec: ProcessSpec): number {
  const all = spec.components.map((c, i) => ({ c, i })).filter(({ c }) => c.type === "process");
  if (all.length === 0) return -1;
  return (all.find(({ c }) => c.weight !== 0) ?? all[0]!).i;
}

/**
 * Step-level advantages (OPRL: Liu et al. 2025, *Online Process Reward Learning for Agentic RL*, arXiv 2509.19199,
 * §3: step advantages from step rewards are added to the episode advantage from the outcome; the same split as
 * GiGPO, Feng et al. 2025). For rollout i of group g with outcome advantage A_i (the spec's estimator on the
 * reward) and per-step rewards r̃_{i,k} (the process component's `details.step_rewards`):
 *
 *   Â_{i,k} = (r̃_{i,k} − μ_g) / (σ_g + ε),  μ_g, σ_g = mean and population std of every scorable step reward of the
 *   group's rollouts whose advantage is defined;  step_advantages_{i,k} = A_i + α·Â_{i,k}
 *
 * with α the component's `advantageWeight` (default 1; 0 = broadcast A_i to every step). A step without a reward
 * (unscorable) gets A_i. A group with fewer than two step rewards has Â = 0. A rollout whose advantage is null
 * gets `step_advantages: null`.
 *
 * Token broadcast: with `step_token_offsets` on the rollout (`[[start, end], …]` half-open token spans, or
 * `[start_0, start_1, …]` with the last step ending at `completion_tokens`), `token_advantages` has one number per
 * completion token (length `completion_tokens`, else the last span's end): a token in step k gets
 * step_advantages_k, a token in no step gets A_i.
 *
 * Memory: O(total steps) numbers; collected in pass one, read in pass two. Use {@link StepAdvantages.forSpec}.
 */
export class StepAdvantages {
  private readonly rewards: Float64Array[] = [];
  private readonly alphas: number[] = [];
  private readonly spans: ({ spans: [number, number][]; length: number } | { problem: string } | undefined)[] = [];
  private computed: (number[] | null)[] | undefined;
  private outcomes: ArrayLike<number> = [];

  private constructor(private readonly index: number) {}

  /** A collector for the spec, or undefined when the spec has no `process` component. */
  static forSpec(spec: ProcessSpec): StepAdvantages | undefined {
    const i = processComponent(spec);
    return i < 0 ? undefined : new StepAdvantages(i);
  }

  /** Adds one scored rollout (in batch order). */
  add(rollout: Rollout, results: readonly ComponentResult[]): void {
    const d = results[this.index]?.details;
    const raw = d?.step_rewards;
    let r: Float64Array;
    if (Array.isArray(raw))
      r = Float64Array.from(raw as unknown[], (x) => (typeof x === "number" && Number.isFinite(x) ? x : NaN));
    else {
      // unscorable: no rewards, but the steps are still known (from the split, or the rollout's `steps`)
      const n = typeof d?.steps === "number" ? d.steps : Array.isArray(rollout.steps) ? rollout.steps.length : 0;
      r = new Float64Array(n).fill(NaN);
    }
    this.rewards.push(r);
    this.alphas.push(typeof d?.advantage_weight === "number" ? d.advantage_weight : 1);
    const offsets = rollout.step_token_offsets;
    const len =
      typeof rollout.completion_tokens === "number" && Number.isInteger(rollout.completion_tokens)
        ? rollout.completion_tokens
        : undefined;
    this.spans.push(offsets === undefined || offsets === null ? undefined : tokenSpans(offsets, r.length, len));
  }

  /**
   * Computes every rollout's step advantages from the batch's outcome advantages.
   * @param groupIds dense group id per rollout, shape [n].
   * @param advantages outcome advantage per rollout, shape [n], NaN when undefined.
   */
  compute(groupIds: ArrayLike<number>, advantages: ArrayLike<number>): this {
    this.outcomes = advantages;
    const n = this.rewards.length;
    const stats = new Map<number, { n: number; sum: number; sq: number }>();
    for (let i = 0; i < n; i++) {
      if (!Number.isFinite(advantages[i]!)) continue;
      const g = groupIds[i]!;
      let s = stats.get(g);
      if (!s) stats.set(g, (s = { n: 0, sum: 0, sq: 0 }));
      for (const x of this.rewards[i]!) {
        if (x !== x) continue; // NaN: a step without a reward
        s.n++;
        s.sum += x;
      }
    }
    for (let i = 0; i < n; i++) {
      const s = stats.get(groupIds[i]!);
      if (!s || !Number.isFinite(advantages[i]!)) continue;
      const mu = s.n > 0 ? s.sum / s.n : 0;
      for (const x of this.rewards[i]!) if (x === x) s.sq += (x - mu) ** 2;
    }
    this.computed = [];
    for (let i = 0; i < n; i++) {
      const a = advantages[i]!;
      if (!Number.isFinite(a)) {
        this.computed.push(null);
        continue;
      }
      const s = stats.get(groupIds[i]!)!;
      const mu = s.sum / Math.max(1, s.n);
      const sd = s.n > 0 ? Math.sqrt(s.sq / s.n) : 0;
      const alpha = this.alphas[i]!;
      this.computed.push(
        Array.from(this.rewards[i]!, (x) =>
          x !== x || s.n < 2 || alpha === 0 ? a : a + (alpha * (x - mu)) / (sd + STEP_EPSILON),
        ),
      );
    }
    return this;
  }

  /** The scored-row fields of rollout `k` (after {@link compute}). */
  fields(k: number): StepAdvantageFields {
    if (!this.computed) throw new Error("StepAdvantages.fields before compute");
    const steps = this.computed[k]!;
    const out: StepAdvantageFields = { step_advantages: steps };
    const sp = this.spans[k];
    if (sp === undefined) return out;
    if ("problem" in sp) {
      out.token_advantages_error = sp.problem;
      return out;
    }
    if (steps === null) {
      out.token_advantages = null;
      return out;
    }
    // tokens outside every step carry the outcome advantage, which is what a step without a reward gets too
    const outside = this.outcomes[k]!;
    const tokens = new Array<number>(sp.length).fill(outside);
    sp.spans.forEach(([s, e], j) => tokens.fill(steps[j]!, s, e));
    out.token_advantages = tokens;
    return out;
  }

  /** The JSON text `,"step_advantages":[…]…` appended to scored row `k`. */
  jsonSuffix(k: number): string {
    const f = this.fields(k);
    let s = `,"step_advantages":${JSON.stringify(f.step_advantages)}`;
    if ("token_advantages" in f) s += `,"token_advantages":${JSON.stringify(f.token_advantages)}`;
    if (f.token_advantages_error !== undefined)
      s += `,"token_advantages_error":${JSON.stringify(f.token_advantages_error)}`;
    return s;
  }
}
