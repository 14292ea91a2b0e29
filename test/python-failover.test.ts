/**
 * The Python client over several replicas: clients/python/test_failover.py starts its own `rewardkit serve`
 * processes (the built CLI) and stub servers, and checks rendezvous hashing by group, whole-group requests, request
 * ids kept across failover, and a replica SIGKILLed in the middle of a 4 000-rollout call (every id answered once,
 * in input order, with the rewards of a single server), and a group whose replica dies while half its members wait at the
 * barrier meeting on the group's next replica.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { runPythonTests } from "./helpers.js";

const hasPython = spawnSync("python3", ["--version"]).status === 0;

describe("Python client over several replicas", () => {
  it.skipIf(!hasPython)(
    "clients/python/test_failover.py: rendezvous by group, whole groups per request, failover with the same request id",
    async () => {
      const r = await runPythonTests("test_failover.py", {
        RK_NODE: process.execPath,
        REWARDKIT_URL: "",
        REWARDKIT_URLS: "",
        REWARDKIT_TOKEN: "",
      });
      expect(r.out).toMatch(/Ran \d+ tests/);
      expect(r.code, r.out).toBe(0);
    },
    240_000,
  );
});
