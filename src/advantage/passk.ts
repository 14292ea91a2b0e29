import { z } from "zod";
import { filterOption } from "./filter.js";
import { groupStats } from "./group-stats.js";
import type { AdvantageInput, EstimatorDefinition } from "./types.js";

export const grpoPasskOptions = z.strictObject({
  /** `unbiased`: divide by the group's unbiased std + ε (verl `norm_adv_by_std_in_grpo=True`); `none`: no division. */
  std: z.enum(["unbiased", "none"]).default("unbiased"),
  epsilon: z.number().nonnegative().default(1e-6),
  filter: filterOption,
});
export type GrpoPasskOptions = z.infer<typeof grpoPasskOptions>;

/**
 * Pass@k-style GRPO (arXiv 2503.19595; verl `core_algos.compute_grpo_passk_outcome_advantage`): in each group
 * only the best response gets a non-zero advantage, A_max = (r_max − r_2nd) / (σ_g + ε) (σ unbiased, or no
 * division with `std: none`); every other rollout gets 0.
 * Ties: when several rollouts share r_max, r_max − r_2nd = 0, so every advantage of the group is 0 whichever is
 * picked (rewardkit picks the first in input order). Singletons (verl raises an error) get 0.
 * @returns advantages, shape [n]; NaN where the reward is null.
 */
export function grpoPassk(input: AdvantageInput, o: GrpoPasskOptions): Float64Array {
  const { rewards, groups } = input;
  const st = groupStats(rewards, groups);
  const out = new Float64Array(rewards.length).fill(NaN);
  for (let g = 0; g < groups.count; g++) {
    let best = -1;
    let second = -Infinity;
    const top = st.max[g]!;
    for (let k = groups.offsets[g]!; k < groups.offsets[g + 1]!; k++) {
      const i = groups.order[k]!;
      const r = rewards[i]!;
      if (r !== r) continue;
      out[i] = 0;
      if (r === top && best < 0) best = i;
      else if (r > second) second = r;
    }
    const n = st.n[g]!;
    if (n < 2) continue;
    let a = top - second;
    if (o.std === "unbiased") a = a === 0 ? 0 : a / (Math.sqrt(st.m2[g]! / (n - 1)) + o.epsilon);
    out[best] = a;
  }
  return out;
}

export const grpoPasskEstimator: EstimatorDefinition<GrpoPasskOptions> = {
  name: "grpo_passk",
  summary: "GRPO pass@k: only the group's best rollout gets (r_max − r_2nd)/(σ + ε)",
  options: grpoPasskOptions,
  compute: grpoPassk,
  batchStatistics: () => undefined,
};
