/**
 * Per-prompt statistics: plain data and pure functions. One algebra: a group is turned into statistics of its own
 * ({@link groupStats}) and merged into the prompt's ({@link mergeStats}); replicas and restarts merge the same way,
 * so the result does not depend on how the groups were split between them.
 */

/**
 * What is known of one prompt. Shapes: numbers, `components` keyed by component name.
 * - `attempts`: rollouts seen; `successes`: those with reward ≥ the success threshold (a null reward is a failure).
 * - `scored`, `mean`, `m2`: Welford's running mean and sum of squared deviations of the non-null rewards
 *   (Welford 1962; groups merged with Chan, Golub & LeVeque 1979): variance = m2 / scored (population, ddof 0).
 * - `components[name]`: rollouts whose component score is ≥ that component's `passThreshold`.
 * - `lastStep`: the highest training step seen (−1: none).
 * - `ewSuccesses`, `ewAttempts`: the same counts with each rollout of step s weighted (1 − α)^(lastStep − s); their
 *   ratio is the exponentially weighted pass rate.
 * - `groups`: groups seen; `flat`: those whose rewards were all equal (no learning signal for GRPO).
 */
export interface PromptStats {
  attempts: number;
  successes: number;
  scored: number;
  mean: number;
  m2: number;
  components: Record<string, number>;
  lastStep: number;
  ewSuccesses: number;
  ewAttempts: number;
  groups: number;
  flat: number;
}

/** One scored group of one prompt: its step, rewards (null: unscorable) and component scores by name. */
export interface GroupObservation {
  /** The prompt id the statistics are kept under (`prompt_id`, else the group id). */
  key: string;
  /** The group's id (for the replay buffer and the filter's report). */
  group: string;
  step: number;
  rewards: ReadonlyArray<number | null>;
  /** Per component name, one score per rollout (null: unscorable). */
  components: Readonly<Record<string, ReadonlyArray<number | null>>>;
}

/** Thresholds a group is judged with. */
export interface Thresholds {
  /** Reward ≥ success is a success. */
  success: number;
  /** Per component name: score ≥ passThreshold passes. */
  components: Readonly<Record<string, number>>;
}

/** Statistics of nothing. */
export function emptyStats(): PromptStats {
  return {
    attempts: 0,
    successes: 0,
    scored: 0,
    mean: 0,
    m2: 0,
    components: {},
    lastStep: -1,
    ewSuccesses: 0,
    ewAttempts: 0,
    groups: 0,
    flat: 0,
  };
}

/**
 * The statistics of one group on its own.
 * Example: rewards [1, 0, 1, null], success 1, step 3 → attempts 4, successes 2, scored 3, mean 2/3,
 * m2 = 2·(1/3)² + (2/3)² = 2/3, lastStep 3, ewSuccesses 2, ewAttempts 4, groups 1, flat 0.
 */
export function groupStats(g: GroupObservation, t: Thresholds): PromptStats {
  const s = emptyStats();
  for (const r of g.rewards) {
    s.attempts++;
    if (r === null || Number.isNaN(r)) continue;
    if (r >= t.success) s.successes++;
    s.scored++;
    const d = r - s.mean;
    s.mean += d / s.scored;
    s.m2 += d * (r - s.mean);
  }
  for (const [name, scores] of Object.entries(g.components)) {
    const th = t.components[name];
    if (th === undefined) continue;
    s.components[name] = scores.filter((x) => x !== null && x >= th).length;
  }
  const vals = g.rewards.filter((r): r is number => r !== null && !Number.isNaN(r));
  s.lastStep = g.step;
  s.ewSuccesses = s.successes;
  s.ewAttempts = s.attempts;
  s.groups = 1;
  s.flat = vals.length >= 2 && Math.min(...vals) === Math.max(...vals) ? 1 : 0;
  return s;
}

/**
 * a ∪ b: counts add, Welford moments merge exactly (Chan et al.: m2 = m2a + m2b + δ²·na·nb/n), the decayed counts
 * are brought to the later step T = max(lastStep) before adding (each side times (1 − α)^(T − its lastStep)).
 * Commutative and associative, so replicas and restarts may merge in any order.
 * @param alpha the EW pass rate's α (0 < α < 1).
 */
export function mergeStats(a: PromptStats, b: PromptStats, alpha: number): PromptStats {
  const n = a.scored + b.scored;
  const delta = b.mean - a.mean;
  const mean = n === 0 ? 0 : a.mean + (delta * b.scored) / n;
  const m2 = n === 0 ? 0 : a.m2 + b.m2 + (delta * delta * a.scored * b.scored) / n;
  const last = Math.max(a.lastStep, b.lastStep);
  const fa = a.ewAttempts === 0 ? 0 : Math.pow(1 - alpha, last - a.lastStep);
  const fb = b.ewAttempts === 0 ? 0 : Math.pow(1 - alpha, last - b.lastStep);
  const components: Record<string, number> = { ...a.components };
  for (const [k, v] of Object.entries(b.components)) components[k] = (components[k] ?? 0) + v;
  return {
    attempts: a.attempts + b.attempts,
    successes: a.successes + b.successes,
    scored: n,
    mean,
    m2,
    components,
    lastStep: last,
    ewSuccesses: a.ewSuccesses * fa + b.ewSuccesses * fb,
    ewAttempts: a.ewAttempts * fa + b.ewAttempts * fb,
    groups: a.groups + b.groups,
    flat: a.flat + b.flat,
  };
}

/** A prompt's statistics as one output row (snake_case, what `rewardkit curriculum` and the server print). */
export interface PromptRow {
  prompt_id: string;
  attempts: number;
  successes: number;
  /** successes / attempts: the raw share (0 when nothing was seen). */
  pass_rate: number;
  /** ewSuccesses / ewAttempts (0 when nothing was seen). */
  ew_pass_rate: number;
  /** Beta posterior mean (a + successes) / (a + b + attempts). */
  posterior_mean: number;
  /** Beta posterior variance a'b' / ((a'+b')²(a'+b'+1)). */
  posterior_variance: number;
  /** Mean of the non-null rewards (null when none). */
  mean: number | null;
  /** Population variance of the non-null rewards (null when none). */
  variance: number | null;
  last_step: number;
  groups: number;
  /** Groups whose rewards were all equal. */
  flat_groups: number;
  /** Per component: the share of attempts that passed it. */
  component_pass_rates: Record<string, number>;
}

/**
 * The row of a prompt's statistics.
 * Example: attempts 4, successes 1, prior Beta(1, 1) → pass_rate 0.25, posterior_mean 2/6 = 1/3,
 * posterior_variance (2·4)/(6²·7) = 8/252.
 */
export function promptRow(id: string, s: PromptStats, prior: { a: number; b: number }): PromptRow {
  const a = prior.a + s.successes;
  const b = prior.b + s.attempts - s.successes;
  const component_pass_rates: Record<string, number> = {};
  for (const [k, v] of Object.entries(s.components)) component_pass_rates[k] = s.attempts > 0 ? v / s.attempts : 0;
  return {
    prompt_id: id,
    attempts: s.attempts,
    successes: s.successes,
    pass_rate: s.attempts > 0 ? s.successes / s.attempts : 0,
    ew_pass_rate: s.ewAttempts > 0 ? s.ewSuccesses / s.ewAttempts : 0,
    posterior_mean: a / (a + b),
    posterior_variance: (a * b) / ((a + b) * (a + b) * (a + b + 1)),
    mean: s.scored > 0 ? s.mean : null,
    variance: s.scored > 0 ? s.m2 / s.scored : null,
    last_step: s.lastStep,
    groups: s.groups,
    flat_groups: s.flat,
    component_pass_rates,
  };
}

/**
 * Statistics as flat additive fields (the shared store's hash): moments as Σr and Σr² so that replicas add them
 * with atomic increments; `ewS`/`ewA` are decayed to `last` by the store (see `Store.statsMerge`).
 */
export function toFields(s: PromptStats): { add: Record<string, number>; decayed: Record<string, number> } {
  const add: Record<string, number> = {
    attempts: s.attempts,
    successes: s.successes,
    scored: s.scored,
    sum: s.mean * s.scored,
    sumsq: s.m2 + s.scored * s.mean * s.mean,
    groups: s.groups,
    flat: s.flat,
  };
  for (const [k, v] of Object.entries(s.components)) add[`c:${k}`] = v;
  return { add, decayed: { ewS: s.ewSuccesses, ewA: s.ewAttempts } };
}

/** The inverse of {@link toFields} (m2 = Σr² − (Σr)²/n, clamped at 0 against rounding). */
export function fromFields(f: Readonly<Record<string, number>>): PromptStats {
  const n = f.scored ?? 0;
  const sum = f.sum ?? 0;
  const components: Record<string, number> = {};
  for (const [k, v] of Object.entries(f)) if (k.startsWith("c:")) components[k.slice(2)] = v;
  return {
    attempts: f.attempts ?? 0,
    successes: f.successes ?? 0,
    scored: n,
    mean: n > 0 ? sum / n : 0,
    m2: n > 0 ? Math.max(0, (f.sumsq ?? 0) - (sum * sum) / n) : 0,
    components,
    lastStep: f.last ?? -1,
    ewSuccesses: f.ewS ?? 0,
    ewAttempts: f.ewA ?? 0,
    groups: f.groups ?? 0,
    flat: f.flat ?? 0,
  };
}
