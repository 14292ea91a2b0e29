// The zygote (docs/code.md, "The zygote"): a program cannot reach its slot's zygote — it sees only its own
// rollout's processes, cannot trace or signal anything outside them, and writing protocol lines to every
// descriptor it can open changes nothing — and nothing of one rollout is there for the next (files, System V
// shared memory). Needs bubblewrap and root (the zygote runs where the engine has a memory cgroup).
import { describe, expect, it } from "vitest";
import { cgroupVersion } from "../src/sandbox/cgroup.js";
import { localBackend, probeBwrap } from "../src/sandbox/local.js";
import { SandboxPool } from "../src/sandbox/pool.js";
import { DEFAULT_LIMITS } from "../src/sandbox/types.js";
import type { HarnessTask } from "../src/sandbox/types.js";
import { zygotePids } from "../src/sandbox/zygote.js";

const unavailable = (await probeBwrap()) ?? ((await cgroupVersion()) ? undefined : "no memory cgroup (not root)");
if (unavailable) console.log(`zygote tests skipped: ${unavailable}`);

const backend = localBackend(new SandboxPool(1), { uidBase: 150_000, isolate: true });
const call = (program: string, output: string): HarnessTask => ({
  kind: "call",
  program,
  entryPoint: "f",
  encoding: "python",
  cases: [{ input: "[0]", output }],
});
const passes = async (t: HarnessTask): Promise<boolean> => {
  const r = await backend.run("python", t, DEFAULT_LIMITS);
  return r.statuses.length > 0 && r.statuses.every((s) => s === "pass");
};

const HOSTILE = String.raw`
import ctypes, os, signal
libc = ctypes.CDLL(None, use_errno=True)
def f(x):
    seen = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    traced = [p for p in range(1, 4096) if libc.ptrace(16, p, 0, 0) == 0]  # PTRACE_ATTACH
    for fd in set(range(1024)) - {3, 4}:  # forged commands and end records on every descriptor but its own channel
        for data in (b'{"op": "run", "limits": {}}\n', b"\nrk-zygote-end {\"st\": 0, \"token\": \"x\"}\n"):
            try:
                os.write(fd, data)
            except OSError:
                pass
    for pid in set(range(1, 4096)) - {os.getpid()}:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass
    return [seen, traced]
`;

describe.skipIf(unavailable !== undefined)("the zygote", () => {
  it("a program sees only its rollout's processes (judge 1, worker 2), traces nothing, and cannot signal or write to the zygote", async () => {
    expect(await passes(call("def f(x):\n    return x", "0"))).toBe(true);
    const before = zygotePids();
    expect(before).toHaveLength(1);
    expect(await passes(call(HOSTILE, "[[1, 2], []]"))).toBe(true);
    expect(zygotePids()).toEqual(before); // the same zygote, alive and idle
    expect(await passes(call("def f(x):\n    return x + 1", "1"))).toBe(true);
    expect(zygotePids()).toEqual(before);
  });

  it("nothing of one rollout is left for the next: files in /tmp, /sandbox and /dev/shm, System V shared memory", async () => {
    const leave = String.raw`
import ctypes, os
def f(x):
    for d in ("/tmp", "/sandbox", "/dev/shm"):
        with open(d + "/left", "w") as fh:
            fh.write("secret")
    libc = ctypes.CDLL(None)
    return libc.shmget(0x5eed, 4096, 0o1666) >= 0  # IPC_CREAT, world-readable
`;
    const look = String.raw`
import ctypes, os
def f(x):
    libc = ctypes.CDLL(None)
    return [os.path.exists(d + "/left") for d in ("/tmp", "/sandbox", "/dev/shm")] + [libc.shmget(0x5eed, 0, 0) >= 0]
`;
    expect(await passes(call(leave, "True"))).toBe(true);
    expect(await passes(call(look, "[False, False, False, False]"))).toBe(true);
  });
});
