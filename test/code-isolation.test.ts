// Isolation the code reward relies on: the whole run's memory is bounded by memoryMb (processes and tmpfs
// together), namespaces cannot be re-created, foreign socket families and tracing fail, the judge's secrets are
// out of the program's reach, and two engines on one machine (even with the same uidBase), or an engine under a
// PID 1 that never reaps, never disturb a run. Needs bubblewrap; the engine-level tests need root.
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ComponentResult } from "../src/core/types.js";
import { cgroupVersion } from "../src/sandbox/cgroup.js";
import { probeBwrap } from "../src/sandbox/local.js";
import { codeVerifier } from "../src/verifiers/code/index.js";
import { holdingChildren as children } from "./code-memory-programs.js";
import { readJsonl, ROOT, tmp } from "./helpers.js";

const unavailable = await probeBwrap();
if (unavailable) console.log(`code isolation tests skipped: ${unavailable}`);
const version = await cgroupVersion();
const root = typeof process.getuid === "function" && process.getuid() === 0;
const canUnsharePid = root && spawnSync("/usr/bin/unshare", ["--pid", "--fork", "--mount-proc", "true"]).status === 0;

const verify256 = codeVerifier.create(
  codeVerifier.options.parse({ memoryMb: 256, testTimeoutMs: 8000, runTimeoutMs: 20_000, uidBase: 140_000 }),
);
/** Scores a stdio program whose only test expects `want`: 1 means it printed `want`. */
const stdio = async (code: string, want: string): Promise<ComponentResult> =>
  verify256({
    completion: "```python\n" + code + "\n```",
    reference: { kind: "stdio", cases: [{ stdin: "", stdout: want }] },
    rollout: { id: "x", group: "g", completion: "" },
  });

const shm = (mb: number): string => `import os
n = 0
try:
    for i in range(${mb} // 8):
        with open("/dev/shm/fill%d" % i, "wb") as f:
            f.write(b"\\1" * (8 << 20))
        n += 8
except OSError:
    pass
print("wrote", n)`;

describe.skipIf(unavailable !== undefined)("code sandbox isolation", () => {
  it(`memoryMb 256 bounds the whole run (cgroup v${version ?? "-"} or the sampled fallback): 4 × 100 MB children and 400 MB in /dev/shm fail, 4 × 10 MB and 8 MB pass`, async () => {
    const [big, small, shmBig, shmSmall] = await Promise.all([
      stdio(children(100), "held 400"),
      stdio(children(10), "held 40"),
      stdio(shm(400), "wrote 400"),
      stdio(shm(8), "wrote 8"),
    ]);
    expect(small.score).toBe(1);
    expect(shmSmall.score).toBe(1);
    expect(big).toMatchObject({ status: "ok", score: 0 });
    expect(shmBig).toMatchObject({ status: "ok", score: 0 });
  });

  it("no new namespaces (unshare -Urm), no AF_VSOCK / netlink / packet sockets, no ptrace, and the judge's /proc entries are closed", async () => {
    const probe = [
      "import ctypes, os, socket",
      "libc = ctypes.CDLL(None, use_errno=True)",
      "out = []",
      "out.append('unshare ' + ('ok' if libc.unshare(0x10000000 | 0x00020000) == 0 else 'refused'))",
      "for name, fam in (('vsock', 40), ('netlink', 16), ('packet', 17)):",
      "    try:",
      "        socket.socket(fam, socket.SOCK_STREAM if fam == 40 else socket.SOCK_RAW); out.append(name + ' ok')",
      "    except OSError:",
      "        out.append(name + ' refused')",
      "out.append('ptrace ' + ('ok' if libc.ptrace(16, 1, 0, 0) == 0 else 'refused'))",
      "for f in ('mem', 'environ', 'fd/1', 'maps'):",
      "    try:",
      "        open('/proc/1/' + f, 'rb').read(1); out.append(f + ' readable')",
      "    except OSError:",
      "        out.append(f + ' closed')",
      "print(', '.join(out))",
    ].join("\n");
    const want =
      "unshare refused, vsock refused, netlink refused, packet refused, ptrace refused, mem closed, environ closed, fd/1 closed, maps closed";
    const r = await stdio(probe, want);
    expect(r.details?.failures).toBeUndefined();
    expect(r.score).toBe(1);
  });

  it("nothing of a rollout is written to the host: no run directory appears in the temp folder", async () => {
    const before = new Set(readdirSync(tmpdir()));
    await stdio("print('x')", "x");
    expect(readdirSync(tmpdir()).filter((f) => !before.has(f) && f.startsWith("rewardkit-run"))).toEqual([]);
  });
});

/** Runs `rewardkit score` asynchronously (so that two engines overlap). */
function score(input: string, spec: string, out: string, wrap: string[] = []): Promise<number> {
  return new Promise((resolve) => {
    const argv = [
      ...wrap,
      process.execPath,
      join(ROOT, "bin/rewardkit.js"),
      "score",
      input,
      "--spec",
      spec,
      "-o",
      out,
      "-q",
      "--concurrency",
      "1",
    ];
    const p = spawn(argv[0]!, argv.slice(1), { cwd: ROOT, stdio: "ignore" });
    p.on("close", (code) => resolve(code ?? -1));
  });
}

const py = (code: string): string => "```python\n" + code + "\n```";

describe.skipIf(unavailable !== undefined || !root)("code engines on one machine (root)", () => {
  it("two engines with the same uidBase: one scoring slow correct solutions, one scoring programs that die abruptly, never disturb each other", async () => {
    const dir = tmp();
    const spec = join(dir, "code.yaml");
    writeFileSync(spec, "components:\n  - name: tests\n    type: code\n    uidBase: 141000\n    concurrency: 2\n");
    const slow = Array.from({ length: 6 }, (_, i) => ({
      id: `a${i}`,
      group: `a${i}`,
      completion: py(`import time\ntime.sleep(1.0)\ndef f(x):\n    return x + ${i}`),
      reference: { kind: "call", entryPoint: "f", cases: [{ input: [1], output: 1 + i }] },
    }));
    const abrupt = Array.from({ length: 30 }, (_, i) => ({
      id: `b${i}`,
      group: `b${i}`,
      completion: py(`import os, signal\n# ${i}\nos.kill(os.getpid(), signal.SIGKILL) if ${i} % 2 else os._exit(3)`),
      reference: { kind: "call", entryPoint: "f", cases: [{ input: [1], output: 1 }] },
    }));
    writeFileSync(join(dir, "a.jsonl"), slow.map((r) => JSON.stringify(r)).join("\n") + "\n");
    writeFileSync(join(dir, "b.jsonl"), abrupt.map((r) => JSON.stringify(r)).join("\n") + "\n");
    let done = false;
    const a = score(join(dir, "a.jsonl"), spec, join(dir, "a.out")).then((c) => ((done = true), c));
    let bRuns = 0;
    while (!done) {
      expect(await score(join(dir, "b.jsonl"), spec, join(dir, "b.out"))).toBe(0);
      bRuns++;
    }
    expect(await a).toBe(0);
    expect(bRuns).toBeGreaterThan(0);
    expect(readJsonl<{ reward: number }>(join(dir, "a.out")).map((r) => r.reward)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(readJsonl<{ reward: number }>(join(dir, "b.out")).every((r) => r.reward === 0)).toBe(true);
  }, 120_000);

  it.skipIf(!canUnsharePid)(
    "under a PID 1 that never reaps (a container without --init), 60 runs back to back with maxProcesses 8 all score 1",
    async () => {
      const dir = tmp();
      const spec = join(dir, "code.yaml");
      // Eight processes per slot uid: one leaked zombie per run (bubblewrap's pid 1) would fail the 8th run.
      writeFileSync(
        spec,
        "components:\n  - name: tests\n    type: code\n    uidBase: 142000\n    concurrency: 1\n    maxProcesses: 8\n",
      );
      const rows = Array.from({ length: 60 }, (_, i) => ({
        id: `r${i}`,
        group: `r${i}`,
        completion: py(`def f(x):\n    return x * ${i}`),
        reference: { kind: "call", entryPoint: "f", cases: [{ input: [2], output: 2 * i }] },
      }));
      writeFileSync(join(dir, "in.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
      expect(
        await score(join(dir, "in.jsonl"), spec, join(dir, "out.jsonl"), [
          "/usr/bin/unshare",
          "--pid",
          "--fork",
          "--mount-proc",
        ]),
      ).toBe(0);
      const out = readJsonl<{ reward: number; components: { tests: { reason?: string } } }>(join(dir, "out.jsonl"));
      expect(out.filter((r) => r.reward !== 1).map((r) => r.components.tests.reason)).toEqual([]);
    },
    180_000,
  );
});

describe("sandbox: none (no namespaces): the same judge/worker split and the worker's own seccomp filter", () => {
  const none = codeVerifier.create(codeVerifier.options.parse({ sandbox: "none", uidBase: 145_000 }));
  const run = async (code: string, reference: unknown): Promise<ComponentResult> =>
    none({ completion: py(code), reference, rollout: { id: "x", group: "g", completion: "" } });
  it("a correct solution scores 1, an always-equal object 0, and unshare is refused in the program's process", async () => {
    const ref = { kind: "call", entryPoint: "f", cases: [{ input: [2], output: 4 }] };
    const same = "class A:\n    def __eq__(self, o):\n        return True\ndef f(x):\n    return A()";
    const probe = "import ctypes\ndef f(x):\n    return 4 if ctypes.CDLL(None).unshare(0x10000000) != 0 else 0";
    const [good, hack, sec] = await Promise.all([
      run("def f(x):\n    return x * 2", ref),
      run(same, ref),
      run(probe, ref),
    ]);
    expect([good.score, hack.score, sec.score]).toEqual([1, 0, 1]);
  });
});
