/**
 * Peer conventions as estimator options. Each preset sets every option that matters, so it reproduces the peer's
 * formula whatever rewardkit's defaults are; explicit options given next to a preset override it.
 * Sources (code read at the snapshots listed in docs/research): verl `verl/trainer/ppo/core_algos.py`,
 * TRL `trl/trainer/grpo_trainer.py` (`_generate_and_score_completions`), OpenRLHF
 * `openrlhf/trainer/ppo_utils/experience_maker.py`, NeMo-RL `nemo_rl/algorithms/utils.py`
 * (`calculate_baseline_and_std_per_prompt`) and `advantage_estimator.py`, open-instruct `open_instruct/data_loader.py`.
 * See docs/advantages.md for the table and the singleton decisions.
 */
const PRESETS: Record<string, Record<string, Record<string, unknown>>> = {
  grpo: {
    // (r − μ)/(σ_{n−1} + 1e-6); singleton: μ = 0, σ = 1 → r/(1 + 1e-6)
    verl: {
      baseline: "mean",
      std: "unbiased",
      stdOver: "group",
      epsilon: 1e-6,
      epsilonWhere: "always",
      singleton: "unit",
    },
    // (r − μ)/(σ_{n−1} + 1e-4); TRL needs ≥ 2 generations; a group left with one non-null reward would be
    // 0/(NaN + 1e-4) = NaN in torch: rewardkit gives 0 (the numerator is exactly 0)
    trl: {
      baseline: "mean",
      std: "unbiased",
      stdOver: "group",
      epsilon: 1e-4,
      epsilonWhere: "always",
      singleton: "zero",
    },
    // group_norm: (r − μ)/(σ_{n−1} + 1e-9); singleton 0/NaN in torch → 0
    openrlhf: {
      baseline: "mean",
      std: "unbiased",
      stdOver: "group",
      epsilon: 1e-9,
      epsilonWhere: "always",
      singleton: "zero",
    },
    // leave-one-out baseline and std of the others (Bessel), ÷(σ + 1e-6) only where σ > 0; ≤ 1 valid → baseline = r → 0
    nemo: {
      baseline: "leave-one-out",
      std: "unbiased",
      stdOver: "others",
      epsilon: 1e-6,
      epsilonWhere: "positive-std",
      singleton: "zero",
    },
    // advantage_normalization_type "standard": (r − μ)/(σ_pop + 1e-8); singleton σ = 0 → 0
    "open-instruct": {
      baseline: "mean",
      std: "population",
      stdOver: "group",
      epsilon: 1e-8,
      epsilonWhere: "always",
      singleton: "zero",
    },
  },
  dr_grpo: {
    // norm_adv_by_std_in_grpo=False: r − μ, singleton μ = 0 → r
    verl: { baseline: "mean", singleton: "unit" },
    // scale_rewards="none": r − μ
    trl: { baseline: "mean", singleton: "zero" },
    // dr_grpo / reinforce_baseline: r − μ
    openrlhf: { baseline: "mean", singleton: "zero" },
    // advantage_normalization_type "centered" (open-instruct's default): r − μ
    "open-instruct": { baseline: "mean", singleton: "zero" },
  },
  rloo: {
    // n/(n−1)(r − μ); singleton → r
    verl: { singleton: "raw" },
    // r − (Σr − r)/(n − 1); singleton 0/0 → rewardkit 0
    openrlhf: { singleton: "zero" },
  },
  reinforce_pp_baseline: {
    // r − μ (singleton μ = 0), then masked_whiten over the response tokens: (x − mean)/sqrt(var_unbiased + 1e-8),
    // each rollout counted once per token (`auto`: per token when lengths are known, else per rollout)
    verl: { singleton: "raw", variance: "unbiased", epsilonMode: "sqrt-var", epsilon: 1e-8, whiten: "auto" },
    // reinforce_baseline: r − μ, then whitening over every action token, population variance clamped at 1e-8
    openrlhf: { singleton: "zero", variance: "population", epsilonMode: "clamp-var", epsilon: 1e-8, whiten: "auto" },
    // ReinforcePlusPlusAdvantageEstimator (minus_baseline): r − μ (≤ 1 valid: baseline = r → 0), then over the
    // valid tokens mean, population variance clamped at 1e-8 (advantage_estimator.py)
    nemo: { singleton: "zero", variance: "population", epsilonMode: "clamp-var", epsilon: 1e-8, whiten: "auto" },
  },
  opo: { verl: { singleton: "raw" } },
  gpg: { verl: { singleton: "raw", fNorm: 1 } },
  grpo_passk: { verl: { std: "unbiased", epsilon: 1e-6 } },
  gdpo: {
    // per component (r − μ)/(σ_{n−1} + 1e-6) (verl GRPO incl. its singleton rule), weighted sum,
    // then masked_whiten over the response tokens: (x − mean)/sqrt(var_unbiased + 1e-8) (`auto` as above)
    verl: {
      baseline: "mean",
      std: "unbiased",
      epsilon: 1e-6,
      singleton: "unit",
      batchNorm: "sqrt-var",
      batchVariance: "unbiased",
      batchEpsilon: 1e-8,
      whiten: "auto",
    },
    // normalize_then_sum: per component (r − μ)/(σ_{n−1} + 1e-4), weighted sum, then (x − mean)/(σ_{n−1} + 1e-4)
    // over rollouts; a rollout with no scorable component is left out of the batch statistics and gets 0
    trl: {
      baseline: "mean",
      std: "unbiased",
      epsilon: 1e-4,
      singleton: "zero",
      batchNorm: "std-plus",
      batchVariance: "unbiased",
      batchEpsilon: 1e-4,
      whiten: "rollout",
    },
    // GDPOAdvantageEstimator (use_leave_one_out_baseline=True, its default): per component NeMo's GRPO (leave-one-out
    // baseline and std of the others, ÷(σ + 1e-6) only where σ > 0), weighted sum, then (x − mean)/std_unbiased
    // over rollouts when std > 0, else x − mean
    nemo: {
      baseline: "leave-one-out",
      std: "unbiased",
      stdOver: "others",
      epsilon: 1e-6,
      epsilonWhere: "positive-std",
      singleton: "zero",
      batchNorm: "std-plus",
      batchVariance: "unbiased",
      batchEpsilon: 0,
      whiten: "rollout",
    },
  },
};

/**
 * The options a preset sets for an estimator.
 * @throws Error naming the known presets when the pair is unknown.
 */
export function presetOptions(estimator: string, preset: string): Record<string, unknown> {
  const p = PRESETS[estimator]?.[preset];
  if (!p)
    throw new Error(
      `no preset "${preset}" for estimator ${estimator}; known: ${Object.keys(PRESETS[estimator] ?? {}).join(", ") || "none"}`,
    );
  return { ...p };
}

/** Preset names per estimator. */
export function presetNames(estimator: string): string[] {
  return Object.keys(PRESETS[estimator] ?? {});
}
