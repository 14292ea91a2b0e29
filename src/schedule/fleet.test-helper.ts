import { expect } from "vitest";
import type { Rollout } from "../core/types.js";
import { createScorer } from "../engine/scorer.js";
import { parseSpec } from "../spec/load.js";
import { EXPECTED, SCRIPT, SPEC, TEXT } from "./script.test-helper.js";
import type { StoreGuard } from "../store/guard.js";

/**
 * Three replicas (scorers) on one store score the script, each step's four rollouts spread over them round-robin
 * (a synchronous trainer: a step is answered before the next is sent); every replica must read the threshold a single
 * server reads at every step, and score each rollout with it.
 */
export async function fleetScript(guards: readonly StoreGuard[]): Promise<void> {
  const spec = parseSpec(SPEC, "fleet.yaml");
  const replicas = guards.map((store) => createScorer(spec, { concurrency: 1, store }));
  try {
    let k = 0;
    for (let s = 0; s < SCRIPT.length; s++) {
      for (let j = 0; j < SCRIPT[s]!.length; j++) {
        const r: Rollout = { id: `${s}-${j}`, group: `g${s}`, step: s, completion: TEXT[String(SCRIPT[s]![j])]! };
        const out = await replicas[k++ % replicas.length]!.score(r);
        // the reward is the score when it passes the threshold in force at step s (contains: pass = score ≥ threshold)
        expect(out.results[0]!.score).toBe(SCRIPT[s]![j]);
      }
    }
    for (const r of replicas) await r.score({ id: "6", group: "g6", step: 6, completion: "x" });
    for (const r of replicas) expect([0, 1, 2, 3, 4, 5, 6].map((s) => r.valuesAt(s)!.thresholds[0])).toEqual(EXPECTED);
  } finally {
    await Promise.all(replicas.map((r) => r.close()));
  }
}
