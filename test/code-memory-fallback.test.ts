// The memory bound where no cgroup is available (REWARDKIT_CGROUP=off forces it): the host samples the run's
// resident memory plus its tmpfs usage and kills the run past memoryMb. Sampled, so the probe holds its memory for
// two seconds (a burst shorter than the 100 ms period can go unseen: docs/code.md).
process.env.REWARDKIT_CGROUP = "off";
import { describe, expect, it } from "vitest";
import { cgroupVersion } from "../src/sandbox/cgroup.js";
import { probeBwrap } from "../src/sandbox/local.js";
import { codeVerifier } from "../src/verifiers/code/index.js";

const unavailable = await probeBwrap();
const verify = codeVerifier.create(codeVerifier.options.parse({ memoryMb: 256, testTimeoutMs: 8000, runTimeoutMs: 20_000, uidBase: 143_000 }));
const children = (mb: number): string =>
  `import os, time\nr, w = os.pipe()\nfor i in range(4):\n    if os.fork() == 0:\n        b = bytearray(${mb} << 20)\n        for j in range(0, len(b), 4096): b[j] = 1\n        os.write(w, b"1"); time.sleep(2); os._exit(0)\nos.close(w)\ngot = 0\nwhile got < 4:\n    c = os.read(r, 16)\n    if not c: break\n    got += len(c)\ntime.sleep(0.5)\nprint("held", got * ${mb})`;

describe.skipIf(unavailable !== undefined)("memory bound without a cgroup (sampled fallback)", () => {
  it("4 × 100 MB children under memoryMb 256 end in memory_limit; 4 × 10 MB pass", async () => {
    expect(cgroupVersion()).toBeUndefined();
    const run = (code: string, want: string) => verify({ completion: "```python\n" + code + "\n```", reference: { kind: "stdio", cases: [{ stdin: "", stdout: want }] }, rollout: { id: "x", group: "g", completion: "" } });
    const [big, small] = await Promise.all([run(children(100), "held 400"), run(children(10), "held 40")]);
    expect(small.score).toBe(1);
    expect(big).toMatchObject({ status: "ok", score: 0 });
    expect(big.details?.statuses).toEqual({ memory_limit: 1 });
  });
});
