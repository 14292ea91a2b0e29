/**
 * Whole groups from every trainer: clients/python/test_groups.py replays verl (compute_score from four threads,
 * compute_score_async from two reward-loop worker processes), TRL (two ranks, each half of a prompt's completions),
 * OpenRLHF (single-query /get_reward requests with ?group_size=4) and verifiers (a group reward function) against a
 * live server, and checks the group-stage component against the offline `rewardkit score` of the same rollouts.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../src/server/index.js";
import type { RunningServer } from "../src/server/index.js";
import { loadSpec } from "../src/spec/load.js";
import { cli, runPythonTests, tmp } from "./helpers.js";

const SPEC = `name: grouped
components:
  - {name: acc, type: math}
  - {name: brevity, type: group-length, correctness: acc, unit: chars}
advantage:
  estimator: grpo
`;
// test_groups.py's TEXTS, in order (ids o0..o3): two identical completions, one long, one wrong
const TEXTS = [
  "so \\boxed{42}",
  "Let me think twice about it. 6*7 = 42, so \\boxed{42}",
  "so \\boxed{42}",
  "\\boxed{41}",
];
const hasPython = spawnSync("python3", ["--version"]).status === 0;

describe.skipIf(!hasPython)("whole groups from every trainer (Python shims against a live server)", () => {
  let server: RunningServer;
  let dir: string;
  beforeAll(async () => {
    dir = tmp();
    writeFileSync(join(dir, "g.yaml"), SPEC);
    writeFileSync(
      join(dir, "g.jsonl"),
      TEXTS.map((c, i) =>
        JSON.stringify({ id: `o${i}`, group: "q7", prompt: "What is 6*7?", completion: c, reference: "42" }),
      ).join("\n") + "\n",
    );
    const r = cli(["score", join(dir, "g.jsonl"), "--spec", join(dir, "g.yaml"), "-o", join(dir, "g.out")]);
    expect(r.code, r.stderr).toBe(0);
    server = await startServer(loadSpec(join(dir, "g.yaml")), { port: 0 });
  });
  afterAll(async () => {
    await server?.shutdown();
  });

  it("verl, TRL, OpenRLHF and verifiers groups get the offline group-stage scores", async () => {
    const r = await runPythonTests("test_groups.py", {
      REWARDKIT_GROUPS_URL: server.url,
      REWARDKIT_GROUPS_OFFLINE: join(dir, "g.out"),
      REWARDKIT_TOKEN: "",
    });
    expect(r.out).toMatch(/Ran \d+ tests/);
    expect(r.out).not.toMatch(/skipped=/);
    expect(r.code, r.out).toBe(0);
  }, 180_000);
});
