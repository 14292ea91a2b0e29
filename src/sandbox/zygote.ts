import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { constants } from "node:os";
import { beforeGroupsRemoved } from "./cgroup.js";
import type { ProcessEnd } from "./report.js";

/** Bytes of one rollout's stdout kept (as process.ts). */
const STDOUT_CAP = 16 << 20;
/** Wall time a new zygote may take to import the harness and say it is ready. */
const START_MS = 60_000;

/** The rollout's limits, applied by its judge (python-zygote.ts); sizes in bytes, CPU in seconds. */
export interface RolloutLimits {
  as: number;
  cpu: number;
  nproc: number;
  fsize: number;
  nofile: number;
  /** tmpfs sizes: `/tmp` and `/sandbox` each, and `/dev/shm`. */
  tmp: number;
  shm: number;
}

/** One rollout through a zygote: the judge's nonce (undefined when it never announced one) and how it ended. */
export interface ZygoteRun {
  nonce: string | undefined;
  end: ProcessEnd;
  /** The zygote is fit for the next rollout: it lives, and the judge ended normally (so it consumed its task frame). */
  reusable: boolean;
}

interface Pending {
  nonce?: string;
  lines: string[];
  size: number;
  /** The zygote's end record: the judge's wait status and the token that ends the rollout's stderr. */
  ended?: { st: number | null; token: string };
  stderrCap: number;
  timedOut: boolean;
  started: number;
  timer: NodeJS.Timeout;
  resolve: (r: ZygoteRun) => void;
}

const SIGNALS = new Map<number, NodeJS.Signals>(
  Object.entries(constants.signals).map(([name, n]) => [n, name as NodeJS.Signals]),
);

/** A `waitpid` status as exit code and signal. */
function decodeStatus(st: number): { exitCode: number | null; signal: NodeJS.Signals | null } {
  const sig = st & 0x7f;
  return sig === 0
    ? { exitCode: (st >> 8) & 0xff, signal: null }
    : { exitCode: null, signal: SIGNALS.get(sig) ?? null };
}

/** Characters of stderr always kept at the end of the buffer, where the end marker arrives. */
const TAIL = 256;

/**
 * A pre-started judge for one pool slot: the host's end of python-zygote.ts, running in a long-lived bubblewrap
 * sandbox in the slot's memory cgroup. One rollout at a time. It keeps the engine alive only while it starts or runs
 * a rollout (see hold), and it dies with the engine (bubblewrap's
 * `--die-with-parent`, and `killZygotes()` at exit).
 */
export class Zygote {
  private buf = "";
  /** The current rollout's stderr: its first `stderrCap` characters, then the last TAIL (where the end marker comes). */
  private errHead = "";
  private errTail = "";
  private errDropped = 0;
  private pending: Pending | undefined;
  private ready: ((ok: boolean) => void) | undefined;
  private alive = true;
  private exit: { exitCode: number | null; signal: NodeJS.Signals | null } = { exitCode: null, signal: null };

  private constructor(private readonly child: ChildProcess) {
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (s: string) => this.onData(s));
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (s: string) => this.onStderr(s));
    for (const s of [child.stdin, child.stdio[3]]) (s as NodeJS.WritableStream | null)?.on("error", () => {});
    child.on("error", (e) => {
      this.errTail += String(e);
      this.onExit(127, null);
    });
    child.on("close", (code, signal) => this.onExit(code, signal));
  }

  /**
   * Whether the zygote keeps the engine alive: while it starts or runs a rollout (until its end, after a kill too:
   * the engine must not exit before a killed sandbox's end is seen), not while it waits for the next one.
   */
  private hold(on: boolean): void {
    const handles = [this.child, ...this.child.stdio] as unknown as ({ ref?: () => void; unref?: () => void } | null)[];
    for (const h of handles) (on ? h?.ref : h?.unref)?.call(h);
  }

  /**
   * Starts a zygote: `argv` runs `python3 … zygote` in its sandbox; `boot` is what its stdin gets first (the
   * compiled harness and the hello line). Resolves once it is ready; rejects with its stderr when it cannot start.
   */
  static start(argv: string[], env: Record<string, string>, boot: Buffer): Promise<Zygote> {
    const child = spawn(argv[0]!, argv.slice(1), { env, detached: true, stdio: ["pipe", "pipe", "pipe", "pipe"] });
    const z = new Zygote(child);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => z.kill(), START_MS);
      z.ready = (ok) => {
        clearTimeout(timer);
        z.ready = undefined;
        z.hold(false);
        if (ok) resolve(z);
        else {
          z.kill();
          reject(new Error(`the zygote did not start: ${(z.errHead + z.errTail).trim().slice(-300) || "no output"}`));
        }
      };
      child.stdin.write(boot);
    });
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get usable(): boolean {
    return this.alive && !this.pending;
  }

  /** Ends the zygote in order (its command pipe closed, it exits): resolves once its sandbox has ended. */
  close(): Promise<void> {
    if (!this.alive) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once("close", () => resolve());
      this.hold(true); // awaited: keep the engine alive until it has ended
      this.child.stdin!.end();
    });
  }

  /** Ends the zygote and everything in its sandbox (the PID namespace dies with its first process). */
  kill(): void {
    try {
      if (this.child.pid !== undefined) process.kill(-this.child.pid, "SIGKILL");
    } catch {
      // gone already
    }
  }

  /**
   * Runs one rollout: `task` (the judge's JSON; its nonce is the judge's own) goes on the task pipe, the command
   * with `limits` on the command pipe. At `deadlineMs` of wall time the whole sandbox is killed (the zygote with
   * it: it is restarted for the next rollout). Keeps `stderrCap` characters of the rollout's stderr. Never rejects.
   */
  run(task: string, limits: RolloutLimits, deadlineMs: number, stderrCap: number): Promise<ZygoteRun> {
    return new Promise((resolve) => {
      const started = performance.now();
      const timer = setTimeout(() => {
        if (this.pending) this.pending.timedOut = true;
        this.kill();
      }, deadlineMs);
      this.errHead = this.errTail = "";
      this.errDropped = 0;
      this.pending = { lines: [], size: 0, stderrCap, timedOut: false, started, timer, resolve };
      if (!this.alive) return this.finish();
      this.hold(true);
      const body = Buffer.from(task);
      const len = Buffer.alloc(8);
      len.writeBigUInt64LE(BigInt(body.length));
      (this.child.stdio[3] as NodeJS.WritableStream).write(Buffer.concat([len, body]));
      this.child.stdin!.write(JSON.stringify({ op: "run", limits }) + "\n");
    });
  }

  private onData(s: string): void {
    this.buf += s;
    let i: number;
    while ((i = this.buf.indexOf("\n")) >= 0) {
      const line = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + 1);
      this.onLine(line);
    }
  }

  private onLine(line: string): void {
    if (this.ready) {
      if (line === "rk-zygote-ready") this.ready(true);
      return;
    }
    const p = this.pending;
    if (!p) return; // nothing else speaks between rollouts
    if (line.startsWith("rk-zygote-end ")) {
      try {
        p.ended = JSON.parse(line.slice("rk-zygote-end ".length)) as Pending["ended"];
      } catch {
        p.ended = { st: null, token: "" };
      }
      return this.checkEnd();
    }
    if (p.nonce === undefined && line.startsWith("rk-nonce ")) {
      p.nonce = line.slice("rk-nonce ".length);
      return;
    }
    if (p.size < STDOUT_CAP) p.lines.push(line);
    p.size += line.length + 1;
  }

  private onStderr(s: string): void {
    const cap = this.pending?.stderrCap ?? 4096;
    const room = cap - this.errHead.length;
    if (room > 0 && this.errTail === "") {
      this.errHead += s.slice(0, room);
      s = s.slice(room);
    }
    const tail = this.errTail + s;
    this.errDropped += Math.max(0, tail.length - TAIL);
    this.errTail = tail.slice(-TAIL);
    this.checkEnd();
  }

  /** A rollout ends when the zygote's end record has come and its stderr has reached the record's marker. */
  private checkEnd(): void {
    const e = this.pending?.ended;
    if (!e) return;
    const marker = `\nrk-stderr-end ${e.token}\n`;
    const all = this.errHead + this.errTail;
    const at = all.lastIndexOf(marker);
    if (at < 0) return;
    const dropped = this.errDropped;
    if (at < this.errHead.length) this.errHead = this.errHead.slice(0, at);
    else this.errTail = this.errTail.slice(0, at - this.errHead.length);
    this.errDropped = Math.max(0, dropped - marker.length);
    this.finish();
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (!this.alive) return;
    this.alive = false;
    this.hold(false);
    this.exit = { exitCode: code, signal };
    this.ready?.(false);
    if (this.pending) this.finish();
  }

  private finish(): void {
    const p = this.pending;
    if (!p) return;
    this.pending = undefined;
    clearTimeout(p.timer);
    const st = p.ended?.st;
    const status = typeof st === "number" ? decodeStatus(st) : this.exit;
    const over = this.errDropped > 0 ? `\n[… ${this.errDropped} more bytes dropped]` : "";
    const end: ProcessEnd = {
      stdout: p.lines.join("\n") + "\n",
      stderr: this.errHead + (this.errDropped > 0 ? over : "") + this.errTail,
      timedOut: p.timedOut,
      ...status,
      wallMs: performance.now() - p.started,
    };
    this.errHead = this.errTail = "";
    this.errDropped = 0;
    const reusable = this.alive && !p.timedOut && typeof st === "number" && status.exitCode === 0;
    if (reusable) this.hold(false);
    else this.kill(); // held until its end (onExit), which the engine waits for
    p.resolve({ nonce: p.nonce, end, reusable });
  }
}

interface Held {
  key: string;
  zygote: Promise<Zygote | undefined>;
}

/** Zygotes per pool and slot (every backend on one pool shares them, as it shares the slots' uids). */
const held = new WeakMap<object, Map<number, Held>>();
const everyZygote = new Set<Zygote>();
/** Why zygotes cannot start here, once seen: the engine's later runs go without. */
let broken: string | undefined;

/** The host pids (bubblewrap's outer process) of this engine's live zygotes: for tests. */
export function zygotePids(): number[] {
  return [...everyZygote].filter((z) => z.usable).map((z) => z.pid);
}

/** Kills every zygote of this engine (at exit, before the memory groups are removed: see cgroup.ts). */
export function killZygotes(): void {
  for (const z of everyZygote) z.kill();
  everyZygote.clear();
}

/**
 * Closes every zygote of this engine in order and waits for their sandboxes to end (so that their CPU time is
 * accounted to this process's children, as a benchmark reads it); later runs start new ones.
 */
export async function closeZygotes(): Promise<void> {
  const all = [...everyZygote];
  everyZygote.clear();
  await Promise.all(all.map((z) => z.close()));
}

/**
 * The zygote of pool slot `slot` for `key` (what it was started for: uid and memory group), started with `start`
 * when the slot has none, its zygote is gone or served another key. Undefined when zygotes cannot start here.
 */
export async function slotZygote(
  pool: object,
  slot: number,
  key: string,
  start: () => Promise<Zygote>,
): Promise<Zygote | undefined> {
  if (broken !== undefined) return undefined;
  let slots = held.get(pool);
  if (!slots) held.set(pool, (slots = new Map<number, Held>()));
  const h = slots.get(slot);
  if (h) {
    const z = await h.zygote;
    if (z?.usable && h.key === key) return z;
    z?.kill();
    if (z) everyZygote.delete(z);
  }
  if (everyZygote.size === 0) beforeGroupsRemoved(killZygotes);
  const zygote = start().then(
    (z) => {
      everyZygote.add(z);
      return z;
    },
    (e: Error) => {
      broken = e.message;
      console.warn(`rewardkit: code sandbox without zygotes (one interpreter per rollout): ${e.message}`);
      return undefined;
    },
  );
  slots.set(slot, { key, zygote });
  return zygote;
}
