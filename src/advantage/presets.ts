/**
 * Peer conventions as estimator options. Each preset reproduces one trainer's formula; see
 * `docs/advantages.md` for the sources. Unknown combinations throw.
 */
const PRESETS: Record<string, Record<string, Record<string, unknown>>> = {
  grpo: {
    // verl core_algos.compute_grpo_outcome_advantage: torch.std (n−1), ε = 1e-6
    verl: { std: "unbiased", epsilon: 1e-6 },
    // TRL GRPOTrainer: std (n−1), ε = 1e-4
    trl: { std: "unbiased", epsilon: 1e-4 },
    // OpenRLHF experience_maker: std (n−1), ε = 1e-9
    openrlhf: { std: "unbiased", epsilon: 1e-9 },
  },
};

/**
 * The options a preset sets for an estimator.
 * @throws Error naming the known presets when the pair is unknown.
 */
export function presetOptions(estimator: string, preset: string): Record<string, unknown> {
  const p = PRESETS[estimator]?.[preset];
  if (!p) throw new Error(`no preset "${preset}" for estimator ${estimator}; known: ${Object.keys(PRESETS[estimator] ?? {}).join(", ") || "none"}`);
  return p;
}
