import { spawn } from "node:child_process";
import type { StdioOptions } from "node:child_process";
import type { ProcessEnd } from "./report.js";

/** Bytes of stdout kept: the harness's report lines (HumanEval+ tasks have ~1 000 tests, ~40 bytes a line). */
const STDOUT_CAP = 16 << 20;

/** Keeps the first `cap` bytes of a stream and counts (but drops) the rest, so a flood costs no memory. */
class Capped {
  private readonly parts: Buffer[] = [];
  size = 0;
  constructor(private readonly cap: number) {}
  push(b: Buffer): void {
    const room = this.cap - this.size;
    if (room > 0) this.parts.push(room >= b.length ? b : b.subarray(0, room));
    this.size += b.length;
  }
  text(): string {
    const s = Buffer.concat(this.parts).toString("utf8");
    return this.size > this.cap ? `${s}\n[… ${this.size - this.cap} more bytes dropped]` : s;
  }
}

export interface ProcessOptions {
  /** Written to the process's stdin, which is then closed (default: no stdin). */
  stdin?: string | Buffer;
  /** Data for extra descriptors 3, 4, …: each is a pipe that gets its buffer and is closed. */
  fds?: Buffer[];
  /** Called once the process exists (e.g. to watch its memory). */
  onSpawn?: (pid: number) => void;
}

/**
 * Runs `argv` as the leader of a new process group with a scrubbed environment, and kills the whole group
 * (SIGKILL to −pid) at `deadlineMs`. Processes that left the group are the sandbox's job (bubblewrap's PID
 * namespace dies with its first process). Never rejects: a spawn failure is returned as exit code 127 with the
 * error in stderr. The returned promise's `kill()` ends the group at once (the memory watcher uses it).
 */
export function runProcess(
  argv: string[],
  env: Record<string, string>,
  deadlineMs: number,
  stderrCap: number,
  options: ProcessOptions = {},
): Promise<ProcessEnd> & { kill(): void } {
  const started = performance.now();
  let killGroup = (): void => {};
  const done = new Promise<ProcessEnd>((resolve) => {
    const out = new Capped(STDOUT_CAP);
    const err = new Capped(stderrCap);
    let timedOut = false;
    let settled = false;
    const stdio: StdioOptions = [
      options.stdin !== undefined ? "pipe" : "ignore",
      "pipe",
      "pipe",
      ...(options.fds ?? []).map(() => "pipe" as const),
    ];
    const child = spawn(argv[0]!, argv.slice(1), { env, detached: true, stdio });
    const kill = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    };
    killGroup = kill;
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, deadlineMs);
    // A write to a process that already ended fails with EPIPE: what it read is all that matters.
    const feed = (s: NodeJS.WritableStream | null | undefined, data: string | Buffer): void => {
      if (!s) return;
      s.on("error", () => {});
      s.end(data);
    };
    if (options.stdin !== undefined) feed(child.stdin, options.stdin);
    (options.fds ?? []).forEach((data, i) => feed(child.stdio[3 + i] as NodeJS.WritableStream | null, data));
    child.stdout!.on("data", (b: Buffer) => out.push(b));
    child.stderr!.on("data", (b: Buffer) => err.push(b));
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null, extra = ""): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      kill(); // nothing of the group outlives the run
      resolve({
        stdout: out.text(),
        stderr: err.text() + extra,
        timedOut,
        exitCode,
        signal,
        wallMs: performance.now() - started,
      });
    };
    child.on("error", (e) => finish(127, null, String(e)));
    if (child.pid !== undefined) options.onSpawn?.(child.pid);
    // 'close' waits for the pipes: a grandchild holding them open is killed with the group above.
    child.on("close", (code, signal) => finish(code, signal));
  });
  return Object.assign(done, { kill: () => killGroup() });
}
