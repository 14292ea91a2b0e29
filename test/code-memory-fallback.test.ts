// The memory bound where no cgroup is available (REWARDKIT_CGROUP=off forces it): the host samples the run's
// resident memory plus its tmpfs usage and kills the run past memoryMb. Sampled, so the probe holds its memory for
// two seconds after all four children hold theirs (a burst shorter than the 100 ms period can go unseen: docs/code.md).
process.env.REWARDKIT_CGROUP = "off";
import { describe, expect, it } from "vitest";
import { cgroupVersion } from "../src/sandbox/cgroup.js";
import { probeBwrap } from "../src/sandbox/local.js";
import { codeVerifier } from "../src/verifiers/code/index.js";
import { holdingChildren as children } from "./code-memory-programs.js";

const unavailable = await probeBwrap();
const verify = codeVerifier.create(
  codeVerifier.options.parse({ memoryMb: 256, testTimeoutMs: 8000, runTimeoutMs: 20_000, uidBase: 143_000 }),
);
describe.skipIf(unavailable !== undefined)("memory bound without a cgroup (sampled fallback)", () => {
  it("4 × 100 MB children under memoryMb 256 end in memory_limit; 4 × 10 MB pass", async () => {
    expect(await cgroupVersion()).toBeUndefined();
    const run = (code: string, want: string) =>
      verify({
        completion: "```python\n" + code + "\n```",
        reference: { kind: "stdio", cases: [{ stdin: "", stdout: want }] },
        rollout: { id: "x", group: "g", completion: "" },
      });
    const [big, small] = await Promise.all([run(children(100), "held 400"), run(children(10), "held 40")]);
    expect(small.score).toBe(1);
    expect(big).toMatchObject({ status: "ok", score: 0 });
    expect(big.details?.statuses).toEqual({ memory_limit: 1 });
  });
});
