import { expect } from "vitest";
import type { Rollout } from "../core/types.js";
import { createScorer } from "../engine/scorer.js";
import { parseSpec } from "../spec/load.js";
import type { StoreGuard } from "../store/guard.js";

// the script of src/schedule/performance.test.ts: `contains` scores 0, 0.25 … 1 by how many of four words appear
const TEXT: Record<string, string> = {
  "0": "nothing",
  "0.25": "alpha",
  "0.5": "alpha beta",
  "0.75": "alpha beta gamma",
  "1": "alpha beta gamma delta",
};
const SPEC = `components:
  - name: loc
    type: contains
    value: [alpha, beta, gamma, delta]
    mode: all
    passThreshold: {schedule: performance, from: 0.25, to: 1, increment: 0.25, window: 4, passRate: 0.75, tolerance: 0}
`;
const SCRIPT: number[][] = [
  [0.5, 0.5, 0.5, 0], // at 0.25: 1110 → newer half .5 < older 1: no move
  [0.5, 0.5, 0.5, 0.5], // 1111 → 0.5 from step 2
  [0.5, 0.5, 0.5, 0.25], // at 0.5: 1110 → no move
  [0.25, 0.5, 0.5, 0.5], // 0111 → 0.75 from step 4
  [1, 1, 1, 1], // → 1 from step 5
  [1, 1, 1, 1],
];
/** The thresholds one server gives at steps 0..6 (src/schedule/performance.test.ts). */
export const EXPECTED = [0.25, 0.25, 0.5, 0.5, 0.75, 1, 1];

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
