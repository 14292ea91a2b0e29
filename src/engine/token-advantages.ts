import { tokenAdvantages } from "../advantage/tokens.js";
import type { ComponentResult } from "../core/types.js";
import type { CompiledSpec } from "../spec/types.js";

/** The scored-row fields of one rollout's per-token advantages (spec `advantage.tokens`). */
export interface TokenAdvantageFields {
  /** One number per completion token; null when the rollout's advantage is null or a component has no token rewards. */
  token_advantages: number[] | null;
  /** Why `token_advantages` is null although the advantage is not (a component unscorable, lengths that differ). */
  token_advantages_error?: string;
}

/**
 * Per-token advantages of one scored rollout ({@link tokenAdvantages}: the outcome advantage broadcast to every token
 * plus λ_c × each named component's `token_rewards`), or undefined when the spec asks for none.
 * @param advantage the rollout's outcome advantage, NaN when null.
 * @param results the rollout's component results, spec order.
 */
export function tokenAdvantageFields(
  spec: CompiledSpec,
  advantage: number,
  results: readonly ComponentResult[],
): TokenAdvantageFields | undefined {
  const t = spec.advantage.tokens;
  if (!t) return undefined;
  if (Number.isNaN(advantage)) return { token_advantages: null };
  const rewards: number[][] = [];
  for (const c of t.components) {
    const r = results[c.index];
    if (!Array.isArray(r?.token_rewards))
      return {
        token_advantages: null,
        token_advantages_error: `${c.name} has no token_rewards (${r?.status ?? "missing"}${r?.reason ? `: ${r.reason}` : ""})`,
      };
    rewards.push(r.token_rewards);
  }
  const lengths = new Set(rewards.map((r) => r.length));
  if (lengths.size > 1)
    return {
      token_advantages: null,
      token_advantages_error: `token_rewards of different lengths: ${t.components.map((c, k) => `${c.name} ${rewards[k]!.length}`).join(", ")}`,
    };
  return {
    token_advantages: tokenAdvantages(
      advantage,
      rewards,
      t.components.map((c) => c.coef),
      t.returns,
    ),
  };
}
