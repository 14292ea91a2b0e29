/**
 * A scripted performance schedule (MedLoc-R1 style): `contains` with four words scores 0, 0.25 … 1 by how many appear,
 * and a pass threshold moves from 0.25 to 1 by 0.25 when a window of 4 passes at 0.75 without regressing. The script
 * gives each step's four scores and the thresholds one server reads at steps 0..6 (worked out by hand below); used by
 * `performance.test.ts` (one server) and `fleet.test-helper.ts` (three replicas on one store).
 */
export const TEXT: Record<string, string> = {
  "0": "nothing",
  "0.25": "alpha",
  "0.5": "alpha beta",
  "0.75": "alpha beta gamma",
  "1": "alpha beta gamma delta",
};
export const SPEC = `components:
  - name: loc
    type: contains
    value: [alpha, beta, gamma, delta]
    mode: all
    passThreshold: {schedule: performance, from: 0.25, to: 1, increment: 0.25, window: 4, passRate: 0.75, tolerance: 0}
`;
/** Scripted scores per step: 4 rollouts a step. */
export const SCRIPT: number[][] = [
  [0.5, 0.5, 0.5, 0], // at 0.25: pass pass pass fail → full window, rate .75, but newer half .5 < older 1 → no move
  [0.5, 0.5, 0.5, 0.5], // all pass → window 1111 → move to 0.5, effective from step 2
  [0.5, 0.5, 0.5, 0.25], // at 0.5: 1110 → regressing, no move
  [0.25, 0.5, 0.5, 0.5], // 0111 → rate .75, newer half 1 ≥ older .5 → move to 0.75 from step 4
  [1, 1, 1, 1], // at 0.75: 1111 → move to 1 from step 5
  [1, 1, 1, 1], // at the target: no further move
];
/** The threshold in force at steps 0..6. */
export const EXPECTED = [0.25, 0.25, 0.5, 0.5, 0.75, 1, 1];
