import { z } from "zod";
import { grpo, grpoBatchStatistics, grpoOptions } from "./grpo.js";
import type { GrpoOptions } from "./grpo.js";
import type { EstimatorDefinition } from "./types.js";

/**
 * `dr_grpo`: GRPO without std scaling (Dr.GRPO, Liu et al. 2025, arXiv 2503.20783, §3.2): A_i = r_i − μ_g.
 * verl: `grpo` with `norm_adv_by_std_in_grpo=False`; OpenRLHF `dr_grpo`; TRL `scale_rewards="none"`;
 * open-instruct `centered` (its default).
 */
export const drGrpoEstimator: EstimatorDefinition<GrpoOptions> = {
  name: "dr_grpo",
  summary: "Dr.GRPO: r − group mean (no std division)",
  options: grpoOptions.extend({ std: z.literal("none").default("none") }),
  compute: grpo,
  batchStatistics: grpoBatchStatistics,
};
