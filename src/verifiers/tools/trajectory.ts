import { z } from "zod";
import { ok, unscorable } from "../../core/types.js";
import type { VerifierDefinition } from "../types.js";

const options = z.strictObject({
  /** Tools left out on both sides (read-only lookups that do not change the outcome). */
  ignoreTools: z.array(z.string()).default([]),
  /** `multiset` (default): the same calls in any order. `sequence`: the same calls in the same order. */
  order: z.enum(["multiset", "sequence"]).default("multiset"),
  /** `all` (default): 1 when the calls equal the gold actions, else 0. `share`: matched / max(gold, made). */
  score: z.enum(["all", "share"]).default("all"),
});
export type TrajectoryOptions = z.infer<typeof options>;

/** One action: a tool name and its arguments. */
export interface Action {
  name: string;
  kwargs: Record<string, unknown>;
}

/** Canonical JSON of a value: object keys sorted, so argument order never matters; array order does. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (v && typeof v === "object") {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v ?? null);
}

function actionKey(a: Action): string {
  return `${a.name}\u0000${canonicalJson(a.kwargs)}`;
}

/** The tool calls of a message list (OpenAI `tool_calls` of assistant turns, in order); arguments JSON-decoded. */
export function trajectoryActions(messages: readonly unknown[]): { actions: Action[]; undecodable: number } {
  const actions: Action[] = [];
  let undecodable = 0;
  for (const m of messages) {
    const msg = m as { role?: unknown; tool_calls?: unknown };
    if (msg?.role !== "assistant" || !Array.isArray(msg.tool_calls)) continue;
    for (const tc of msg.tool_calls as unknown[]) {
      const fn = (tc as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
      if (!fn || typeof fn.name !== "string") {
        undecodable++;
        continue;
      }
      let args: unknown = fn.arguments ?? {};
      if (typeof args === "string") {
        try {
          args = args.trim() === "" ? {} : JSON.parse(args);
        } catch {
          undecodable++;
          args = { __undecodable__: fn.arguments };
        }
      }
      actions.push({
        name: fn.name,
        kwargs:
          args && typeof args === "object" && !Array.isArray(args)
            ? (args as Record<string, unknown>)
            : { __value__: args },
      });
    }
  }
  return { actions, undecodable };
}

function goldActions(reference: unknown): Action[] | null {
  let v = reference;
  if (typeof v === "string") {
    try {
      v = JSON.parse(v);
    } catch {
      return null;
    }
  }
  if (!Array.isArray(v)) return null;
  const out: Action[] = [];
  for (const a of v) {
    const x = a as { name?: unknown; kwargs?: unknown; arguments?: unknown } | null;
    if (!x || typeof x.name !== "string") return null;
    const kw = x.kwargs ?? x.arguments ?? {};
    if (!kw || typeof kw !== "object" || Array.isArray(kw)) return null;
    out.push({ name: x.name, kwargs: kw as Record<string, unknown> });
  }
  return out;
}

/**
 * `trajectory`: action-level agreement of an agent trajectory with gold actions, as tau-bench scores agents
 * (its reward replays the gold actions and compares the resulting database; the same set of state-changing calls
 * with the same arguments reaches the same state). Completion: chat messages with `tool_calls`. Reference:
 * tau-bench's `[{name, kwargs}]`. Tools in `ignoreTools` are dropped from both sides; the rest must match as a
 * multiset (or, with `order: sequence`, in order), arguments compared as canonical JSON (key order free, list
 * order and values exact). An extra state-changing call fails like a missing one.
 *
 * Example: gold `[{name: "cancel", kwargs: {id: "X"}}]`; calls `get(id=X), cancel(id=X)` with `ignoreTools:
 * [get]` → 1; `cancel(id=Y)` → 0; `cancel(id=X), cancel(id=X)` → 0 (`share`: 0.5).
 */
export const trajectoryVerifier: VerifierDefinition<TrajectoryOptions> = {
  type: "trajectory",
  summary: "1 if the trajectory's state-changing tool calls equal the gold actions (tau-bench style), else 0",
  options,
  isolation: "inline",
  defaultTimeoutMs: 2000,
  reads: ["completion"],
  create(o) {
    const ignore = new Set(o.ignoreTools);
    return ({ reference, rollout }) => {
      if (reference === undefined || reference === null) return unscorable("no_reference");
      const gold0 = goldActions(reference);
      if (!gold0) return unscorable("invalid_reference", { expected: "[{name, kwargs}] gold actions" });
      if (!Array.isArray(rollout.completion))
        return unscorable("invalid_reference", { expected: "a completion of chat messages with tool_calls" });
      const { actions, undecodable } = trajectoryActions(rollout.completion);
      const made = actions.filter((a) => !ignore.has(a.name));
      const gold = gold0.filter((a) => !ignore.has(a.name));
      let matched = 0;
      const missing: Action[] = [];
      let extra: Action[];
      if (o.order === "sequence") {
        // longest common subsequence of action keys
        const g = gold.map(actionKey);
        const m = made.map(actionKey);
        const dp = Array.from({ length: g.length + 1 }, () => new Array<number>(m.length + 1).fill(0));
        for (let i = 1; i <= g.length; i++)
          for (let j = 1; j <= m.length; j++)
            dp[i]![j] = g[i - 1] === m[j - 1] ? dp[i - 1]![j - 1]! + 1 : Math.max(dp[i - 1]![j]!, dp[i]![j - 1]!);
        matched = dp[g.length]![m.length]!;
        const exact = matched === g.length && g.length === m.length;
        extra = exact ? [] : made;
        if (!exact) missing.push(...gold);
      } else {
        const pool = new Map<string, number>();
        for (const a of made) pool.set(actionKey(a), (pool.get(actionKey(a)) ?? 0) + 1);
        for (const a of gold) {
          const k = actionKey(a);
          const n = pool.get(k) ?? 0;
          if (n > 0) {
            pool.set(k, n - 1);
            matched++;
          } else missing.push(a);
        }
        extra = made.filter((a) => {
          const k = actionKey(a);
          const n = pool.get(k) ?? 0;
          if (n > 0) {
            pool.set(k, n - 1);
            return true;
          }
          return false;
        });
      }
      const all = missing.length === 0 && extra.length === 0;
      const details = {
        gold: gold.length,
        made: made.length,
        matched,
        ...(missing.length ? { missing: missing.slice(0, 5) } : {}),
        ...(extra.length ? { extra: extra.slice(0, 5) } : {}),
        ...(undecodable ? { undecodable } : {}),
      };
      const s =
        o.score === "share"
          ? gold.length === 0 && made.length === 0
            ? 1
            : matched / Math.max(gold.length, made.length)
          : all
            ? 1
            : 0;
      return s === 1 && all ? ok(1, undefined, details) : ok(s, "wrong_answer", details);
    };
  },
};
