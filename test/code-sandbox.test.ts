// Containment tests for the code sandbox: each hostile program is contained AND reported with the right status.
// They need bubblewrap (Debian package `bubblewrap`, installed by .ci/run); without it they skip and say why.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComponentResult } from "../src/core/types.js";
import { probeBwrap } from "../src/sandbox/local.js";
import { zygotePids } from "../src/sandbox/zygote.js";
import { codeVerifier } from "../src/verifiers/code/index.js";
import { ROOT, tmp } from "./helpers.js";

const unavailable = await probeBwrap();
if (unavailable) console.log(`code sandbox containment tests skipped: ${unavailable}`);

// Uids of this run's own (a random block, so that other engines on this machine, e.g. this file run by someone
// else at the same time, neither take them nor show up in the leftover-process checks below).
const UID_BASE = 300_000 + Math.floor(Math.random() * 100_000) * 64;
const limits = { testTimeoutMs: 1000, memoryMb: 512, outputLimitBytes: 65_536, uidBase: UID_BASE };
/** Programs whose outcome must not depend on wall time: a per-test limit of 1 s of CPU time, 30 s of wall time for the run. */
const verify = codeVerifier.create(codeVerifier.options.parse({ ...limits, runTimeoutMs: 30_000 }));
/** Programs that only the wall clock can stop (they sleep, or starve their own worker): the run ends after 2 + 1 s of wall time. */
const verifyWall = codeVerifier.create(codeVerifier.options.parse({ ...limits, runTimeoutMs: 2000 }));
/**
 * No assertion here measures time (a loaded machine stretches wall time); a deadline that did not stop a program
 * would show as this test timeout (60 s, far above every limit used here) instead of a `timeout` status.
 */

/** Scores `code`, whose `f` is called once with 1; the test passes when f returns `expected`. */
async function run(code: string, expected: unknown = "contained", v = verify): Promise<ComponentResult> {
  const reference = { kind: "call", entryPoint: "f", cases: [{ input: [1], output: expected }] };
  return v({ completion: "```python\n" + code + "\n```", reference, rollout: { id: "x", group: "g", completion: "" } });
}

const statuses = (r: ComponentResult): Record<string, number> => (r.details?.statuses ?? {}) as Record<string, number>;

/**
 * This engine's zygotes (docs/code.md, "The zygote"): bubblewrap's process, the PID 1 of its sandbox and the zygote
 * proper, which live between runs by design and never run a program. Their children, the runs, are counted.
 */
function zygoteProcesses(): Set<string> {
  const parent = new Map<string, string>();
  for (const pid of readdirSync("/proc")) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      parent.set(pid, stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]!);
    } catch {
      // not a process, or exited meanwhile
    }
  }
  const keep = new Set(zygotePids().map(String));
  for (let depth = 0; depth < 2; depth++)
    for (const [pid, ppid] of parent) if (keep.has(ppid) && !keep.has(pid)) keep.add(pid);
  return keep;
}

/** Live (non-zombie) processes on this machine owned by a sandbox slot uid, but for the zygotes. */
function liveSandboxProcesses(): string[] {
  const found: string[] = [];
  const zygotes = zygoteProcesses();
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid) || zygotes.has(pid)) continue;
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
      if (uid >= UID_BASE && uid < UID_BASE + 64 && !/^State:\s+Z/m.test(status))
        found.push(`${pid} (uid ${uid}): ${/^Name:\s+(.*)$/m.exec(status)?.[1]}`);
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

/** Sandbox processes still alive half a second after a run returned (the kernel tears namespaces down asynchronously). */
async function sandboxProcesses(): Promise<string[]> {
  for (let i = 0; i < 10 && liveSandboxProcesses().length > 0; i++) await new Promise((r) => setTimeout(r, 50));
  return liveSandboxProcesses();
}

describe.skipIf(unavailable !== undefined)("code sandbox containment (bubblewrap)", () => {
  afterAll(async () => {
    expect(await sandboxProcesses()).toEqual([]);
  });

  it("a well-behaved program passes (baseline)", async () => {
    const r = await run("def f(x):\n    return 'contained'");
    expect(r).toMatchObject({ status: "ok", score: 1 });
  });

  it("infinite loop: timeout, stopped at the test's CPU-time limit (not the run's wall clock)", async () => {
    const r = await run("def f(x):\n    while True:\n        pass");
    expect(r.status).toBe("ok");
    expect(r.score).toBe(0);
    expect(statuses(r)).toEqual({ timeout: 1 });
    expect(r.details?.failures).toEqual([{ test: 0, status: "timeout", message: "time limit 1s" }]);
    expect(r.details?.endedBy).toBeUndefined();
  });

  it("infinite loop in C code (no bytecode boundary): the judge kills the worker past its CPU-time limit", async () => {
    const r = await run("def f(x):\n    return sum(range(10**12))");
    expect(statuses(r)).toEqual({ timeout: 1 });
    expect(r.details?.endedBy).toBeUndefined(); // not the run's wall-clock deadline
    // and under the wall-clock run deadline: the host kills the whole sandbox
    const w = await run("def f(x):\n    return sum(range(10**12))", "contained", verifyWall);
    expect(statuses(w)).toEqual({ timeout: 1 });
  });

  it("fork bomb: bounded by the slot uid's process limit, killed at the deadline, nothing left behind", async () => {
    // 64 spinning processes starve the worker of CPU time, so the run's wall-clock deadline is what ends it.
    const r = await run(
      "import os\ndef f(x):\n    while True:\n        try:\n            os.fork()\n        except OSError:\n            pass",
      "contained",
      verifyWall,
    );
    expect(r.status).toBe("ok");
    expect(r.score).toBe(0);
    expect(statuses(r)).toEqual({ timeout: 1 });
    expect(await sandboxProcesses()).toEqual([]);
    // The limit itself: forking stops with EAGAIN below maxProcesses (64), children and all.
    const counted = [
      "import os, time",
      "def f(x):",
      "    n = 0",
      "    try:",
      "        while n < 10000:",
      "            if os.fork() == 0:",
      "                time.sleep(30)",
      "                os._exit(0)",
      "            n += 1",
      "    except OSError:",
      "        pass",
      "    return 0 < n < 64",
    ].join("\n");
    expect(await run(counted, true)).toMatchObject({ status: "ok", score: 1 });
    expect(await sandboxProcesses()).toEqual([]);
  });

  it("memory blow-up: memory_limit (not a crash), under the address-space limit", async () => {
    // zeroing ~500 MB of pages takes over 1 s of CPU on some machines (1.25 s measured on one with slow page faults),
    // which would end this run as a `timeout` before the memory limit: give it 10 s of CPU
    const roomy = codeVerifier.create(
      codeVerifier.options.parse({ ...limits, testTimeoutMs: 10_000, runTimeoutMs: 30_000 }),
    );
    const r = await run(
      "def f(x):\n    hog = []\n    while True:\n        hog.append(bytearray(16 << 20))",
      "contained",
      roomy,
    );
    expect(r.status).toBe("ok");
    expect(statuses(r)).toEqual({ memory_limit: 1 });
    const big = await run("def f(x):\n    return len(bytearray(8 << 30))");
    expect(statuses(big)).toEqual({ memory_limit: 1 });
  });

  it("1 GB of output: dropped past the limit, the run still scores", async () => {
    const code = [
      "import os, sys",
      "def f(x):",
      "    chunk = 'x' * (1 << 20)",
      "    for _ in range(512):",
      "        print(chunk)",
      "    b = b'y' * (1 << 20)",
      "    for _ in range(512):",
      "        os.write(1, b)",
      "        os.write(2, b) if _ < 64 else None",
      "    return 'contained'",
    ].join("\n");
    const r = await run(code);
    expect(r).toMatchObject({ status: "ok", score: 1 });
  });

  it("writing outside the run directory: the host file system is untouched", async () => {
    const dir = tmp();
    const marker = join(dir, "escaped");
    const project = join(ROOT, "escaped-from-sandbox");
    const code = [
      "import os",
      "def f(x):",
      "    wrote = []",
      `    for p in [${JSON.stringify(marker)}, ${JSON.stringify(project)}, '/usr/escaped', '/etc/escaped', '/escaped']:`,
      "        try:",
      "            open(p, 'w').write('escaped')",
      "            wrote.append(p)",
      "        except OSError:",
      "            pass",
      "    open('inside.txt', 'w').write('ok')  # the run directory is writable",
      "    return 'contained' if not [p for p in wrote if not p.startswith('/tmp')] else wrote",
    ].join("\n");
    const r = await run(code);
    expect(r).toMatchObject({ status: "ok", score: 1 });
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(project)).toBe(false);
  });

  it("reading the project's files or the engine's environment: not visible", async () => {
    process.env.REWARDKIT_TEST_SECRET = "s3cret-value";
    const code = [
      "import os",
      "def f(x):",
      "    seen = []",
      `    for p in [${JSON.stringify(join(ROOT, "package.json"))}, '/root/.bashrc', '/home', '/work', '/proc/1/environ']:`,
      "        try:",
      "            data = open(p, 'rb').read() if not p in ('/home', '/work') else os.listdir(p)",
      "            if p != '/proc/1/environ' or b's3cret' in data:",
      "                seen.append(p)",
      "        except OSError:",
      "            pass",
      "    if any('s3cret' in v for v in os.environ.values()):",
      "        seen.append('environ')",
      "    return 'contained' if not seen else seen",
    ].join("\n");
    const r = await run(code);
    delete process.env.REWARDKIT_TEST_SECRET;
    expect(r.details?.failures).toBeUndefined();
    expect(r).toMatchObject({ status: "ok", score: 1 });
  });

  describe("network", () => {
    let port = 0;
    let connections = 0;
    const server = createServer((s) => {
      connections++;
      s.destroy();
    });
    beforeAll(async () => {
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it("a TCP connection to a port the test listens on is refused; no connection arrives", async () => {
      const code = [
        "import socket",
        "def f(x):",
        "    try:",
        `        socket.create_connection(('127.0.0.1', ${port}), timeout=1)`,
        "        return 'connected'",
        "    except OSError:",
        "        return 'contained'",
      ].join("\n");
      const r = await run(code);
      expect(r).toMatchObject({ status: "ok", score: 1 });
      expect(connections).toBe(0);
    });
  });

  it("a child process that outlives the deadline is killed with the sandbox", async () => {
    const code = [
      "import subprocess, time",
      "def f(x):",
      "    subprocess.Popen(['/usr/bin/python3', '-c', 'import time\\nwhile True: time.sleep(0.1)'], start_new_session=True)",
      "    subprocess.Popen(['/usr/bin/sleep', '600'])",
      "    time.sleep(60)",
    ].join("\n");
    const r = await run(code, "contained", verifyWall);
    expect(statuses(r)).toEqual({ timeout: 1 });
    expect(await sandboxProcesses()).toEqual([]);
  });

  it("a program that defines nothing and exits early is scored 0 with status ok", async () => {
    const r = await run("import os\nos._exit(0)");
    expect(r.status).toBe("ok");
    expect(r.score).toBe(0);
    expect(statuses(r)).toEqual({ runtime_error: 1 });
  });
});
