import { randomBytes } from "node:crypto";
import {
  accessSync,
  chmodSync,
  chownSync,
  constants,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { registerTemp, unregisterTemp } from "../io/temp.js";
import { slotGroup } from "./cgroup.js";
import { interpreterMounts } from "./interpreter.js";
import type { RunGroup } from "./cgroup.js";
import { watchMemory } from "./memwatch.js";
import type { SandboxPool } from "./pool.js";
import { runProcess } from "./process.js";
import { parseReport } from "./report.js";
import { seccompFilter } from "./seccomp.js";
import { INTERPRETERS, judgeStart, taskPayload } from "./task.js";
import type { TaskExtras } from "./task.js";
import type { HarnessTask, Language, RunReport, SandboxBackend, SandboxLimits } from "./types.js";
import { lockUids } from "./uids.js";
import type { UidLease } from "./uids.js";
import { slotZygote, Zygote } from "./zygote.js";

export { INTERPRETERS } from "./task.js";

/** Where the run's working directory appears inside the sandbox (a private tmpfs; the program's cwd). */
const WORK = "/sandbox";
/** Where the execute-only node for JavaScript test code appears inside the sandbox. */
const RK = "/rk";
const MIB = 1024 * 1024;

/** Scrubbed environment: nothing of the engine's environment reaches the program. */
function sandboxEnv(): Record<string, string> {
  return {
    PATH: "/usr/bin:/bin",
    HOME: WORK,
    TMPDIR: "/tmp",
    LANG: "C.UTF-8",
    PYTHONHASHSEED: "0",
    PYTHONDONTWRITEBYTECODE: "1",
    PYTHONIOENCODING: "utf-8",
    PYTHONNOUSERSITE: "1",
    // numpy's BLAS would start a thread per core, and threads count against `prlimit --nproc` (maxProcesses)
    OPENBLAS_NUM_THREADS: "1",
    OMP_NUM_THREADS: "1",
    MKL_NUM_THREADS: "1",
  };
}

/** Address space per process: memoryMb; for JavaScript 1 GiB more, as V8 reserves ~750 MiB of it at start-up (its heap is capped at memoryMb / 2, and the run's memory by the cgroup). */
export function addressSpaceMb(language: Language, memoryMb: number): number {
  return language === "javascript" ? memoryMb + 1024 : memoryMb;
}

function prlimitArgs(language: Language, limits: SandboxLimits, nproc: number): string[] {
  return [
    "/usr/bin/prlimit",
    `--as=${addressSpaceMb(language, limits.memoryMb) * MIB}`,
    `--cpu=${Math.ceil(limits.runTimeoutMs / 1000) + 1}`,
    `--nproc=${nproc}`,
    `--fsize=${limits.maxFileMb * MIB}`,
    `--nofile=${limits.maxOpenFiles}`,
    "--core=0",
  ];
}

/** System directories mounted read-only: real directories are bound, merged-/usr symlinks are recreated. */
function systemMounts(): string[] {
  const args = ["--ro-bind", "/usr", "/usr"];
  for (const d of ["/bin", "/sbin", "/lib", "/lib64", "/lib32"]) {
    if (!existsSync(d)) continue;
    if (lstatSync(d).isSymbolicLink()) args.push("--symlink", `usr${d}`, d);
    else args.push("--ro-bind", d, d);
  }
  for (const f of ["/etc/ld.so.cache", "/etc/localtime", "/etc/alternatives"]) args.push("--ro-bind-try", f, f);
  return args;
}

/** tmpfs sizes (bytes): `/tmp` and `/sandbox` 4 × maxFileMb each, `/dev/shm` the same but at most half of memoryMb. */
export function tmpfsSizes(limits: SandboxLimits): { tmp: number; shm: number } {
  const tmp = 4 * Math.max(1, limits.maxFileMb) * MIB;
  return { tmp, shm: Math.min(tmp, Math.floor(limits.memoryMb / 2) * MIB) };
}

/**
 * bubblewrap's arguments. `--as-pid-1`: the judge is the namespace's PID 1 (it reaps every orphan) and bwrap's
 * outer process waits for it, so no run leaves a zombie behind. `--unshare-all --unshare-user --disable-userns`:
 * new user, PID, network (no interfaces), IPC, UTS and cgroup namespaces, and no nested user namespace.
 * `--seccomp 3`: the filter of seccomp.ts, read from descriptor 3. Writable: `/tmp`, `/sandbox` and `/dev/shm`
 * (private tmpfs mounts with `size=`); `/dev` (device nodes only) and the root are read-only.
 */
function bwrapArgs(limits: SandboxLimits, rk: string | undefined, extra: string[] = [], zygote = false): string[] {
  const { tmp, shm } = zygote ? { tmp: 65536, shm: 65536 } : tmpfsSizes(limits);
  // A zygote keeps what each rollout's set-up needs (new namespaces, its mounts) and drops it, with the
  // seccomp filter loaded, in the rollout's judge before the worker exists (python-zygote.ts).
  const caps = zygote ? ["--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SETPCAP"] : ["--cap-drop", "ALL"];
  const tmpfs = (size: number, at: string): string[] => ["--size", String(size), "--perms", "1777", "--tmpfs", at];
  return [
    "/usr/bin/bwrap",
    "--unshare-all",
    "--unshare-user",
    "--disable-userns",
    "--die-with-parent",
    "--new-session",
    "--as-pid-1",
    ...caps,
    ...systemMounts(),
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    ...tmpfs(shm, "/dev/shm"),
    "--remount-ro",
    "/dev",
    ...tmpfs(tmp, "/tmp"),
    ...tmpfs(tmp, WORK),
    ...(rk ? ["--ro-bind", rk, RK] : []),
    ...extra.flatMap((d) => ["--ro-bind", d, d]),
    "--remount-ro",
    "/",
    "--chdir",
    WORK,
    "--hostname",
    "sandbox",
    "--clearenv",
    ...Object.entries(sandboxEnv()).flatMap(([k, v]) => ["--setenv", k, v]),
    ...(zygote ? [] : ["--seccomp", "3"]),
  ];
}

function isRoot(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

let probe: Promise<string | undefined> | undefined;

/**
 * Checks once that bubblewrap can build this sandbox here (installed, user namespaces allowed, the options this
 * backend uses understood: bubblewrap ≥ 0.8 for `--disable-userns`).
 * @returns undefined when it works, else why not.
 */
export function probeBwrap(): Promise<string | undefined> {
  probe ??= (async () => {
    try {
      accessSync("/usr/bin/bwrap", constants.X_OK);
    } catch {
      return "bubblewrap is not installed (/usr/bin/bwrap); install the Debian package `bubblewrap`, or set `sandbox: none` (no isolation)";
    }
    const argv = [
      "/usr/bin/bwrap",
      "--unshare-all",
      "--unshare-user",
      "--disable-userns",
      "--die-with-parent",
      "--as-pid-1",
      ...systemMounts(),
      "--proc",
      "/proc",
      "--dev",
      "/dev",
      "--seccomp",
      "3",
      "/usr/bin/true",
    ];
    const end = await runProcess(
      isRoot() ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", ...argv] : argv,
      { PATH: "/usr/bin:/bin" },
      10_000,
      4096,
      { fds: [seccompFilter()] },
    );
    return end.exitCode === 0
      ? undefined
      : `bubblewrap cannot create a sandbox here (exit ${end.exitCode ?? end.signal}): ${end.stderr.trim().slice(0, 200)}`;
  })();
  return probe;
}

/** Locked uids per pool: every backend on one pool (every code component of an engine) shares them. */
const leases = new WeakMap<SandboxPool, Promise<UidLease>>();

function leaseFor(pool: SandboxPool, base: number): Promise<UidLease> {
  let lease = leases.get(pool);
  if (!lease) {
    lease = lockUids(base, pool.size);
    leases.set(pool, lease);
    lease.catch(() => leases.delete(pool)); // a later run tries again
  }
  return lease;
}

let nodeCopy: string | undefined;

/**
 * A directory holding an execute-only (mode 0111) copy of node: a cache per node binary (size and mtime) and user,
 * `<tmpdir>/rewardkit-node-<uid>/<size>-<mtime>/node`, made once (copied under a temporary name, then renamed)
 * and kept, so that an interrupted engine leaves nothing new behind.
 */
function executeOnlyNode(): string {
  if (nodeCopy) return nodeCopy;
  const st = statSync(INTERPRETERS.javascript);
  const base = join(tmpdir(), `rewardkit-node-${process.getuid?.() ?? 0}`);
  const dir = join(base, `${st.size}-${Math.floor(st.mtimeMs)}`);
  mkdirSync(base, { recursive: true, mode: 0o755 });
  // Only a cache this user made and nobody else can write to may hold the binary that runs the tests.
  const uid = process.getuid?.() ?? 0;
  const ours = (p: string): boolean => {
    const l = lstatSync(p);
    return !l.isSymbolicLink() && l.uid === uid && (l.mode & 0o022) === 0;
  };
  if (!ours(base)) throw new Error(`${base} is not this user's own directory: refusing it as the node cache`);
  if (existsSync(dir) && !(ours(dir) && ours(join(dir, "node")))) rmSync(dir, { recursive: true, force: true });
  if (!existsSync(join(dir, "node"))) {
    const part = mkdtempSync(join(base, "part-"));
    chmodSync(part, 0o755);
    copyFileSync(INTERPRETERS.javascript, join(part, "node"));
    chmodSync(join(part, "node"), 0o111);
    try {
      renameSync(part, dir);
    } catch {
      rmSync(part, { recursive: true, force: true }); // another engine made it first
    }
  }
  nodeCopy = dir;
  return dir;
}

/** Kills every process of a uid this engine holds (`kill -KILL -1` as that uid): `sandbox: none` only. */
async function killUid(uid: number): Promise<void> {
  await runProcess(
    ["/usr/bin/setpriv", `--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", "/usr/bin/kill", "-KILL", "-1"],
    { PATH: "/usr/bin:/bin" },
    5000,
    1024,
  );
}

export interface LocalOptions {
  /** First uid this engine tries to lock for its slots (as root); see uids.ts. */
  uidBase: number;
  /** `false`: no bubblewrap, a plain process with the same limits (`sandbox: none`). */
  isolate: boolean;
  /** The Python of judge and worker (default `/usr/bin/python3`); under bubblewrap its venv / prefix is bound read-only. */
  python?: string;
  /** `false`: no zygote, one fresh sandbox and interpreter per rollout (also `REWARDKIT_ZYGOTE=off`). Default true. */
  zygote?: boolean;
}

/**
 * A Python rollout through the slot's zygote (zygote.ts, python-zygote.ts): a long-lived bubblewrap sandbox in the
 * slot's memory group whose first process forks each rollout's judge into fresh namespaces and tmpfs mounts.
 * Undefined when no zygote can start here (the caller then runs a sandbox of its own).
 */
async function runInZygote(
  pool: SandboxPool,
  slot: number,
  uid: number | undefined,
  group: RunGroup,
  task: HarnessTask,
  limits: SandboxLimits,
): Promise<RunReport | undefined> {
  const drop = uid !== undefined ? ["/usr/bin/setpriv", `--reuid=${uid}`, `--regid=${uid}`, "--clear-groups"] : [];
  const z = await slotZygote(pool, slot, `${uid}:${limits.memoryMb}`, () => {
    const judge = judgeStart("");
    const hello = JSON.stringify({ op: "hello", bpf: seccompFilter().toString("base64") }) + "\n";
    const argv = [
      "/bin/sh",
      "-c",
      'echo 0 > "$0" && exec "$@"',
      group.procs,
      ...drop,
      ...bwrapArgs(limits, undefined, [], true),
    ];
    return Zygote.start(
      [...argv, ...judge.argv, "zygote"],
      sandboxEnv(),
      Buffer.concat([judge.stdin, Buffer.from(hello)]),
    );
  });
  if (!z) return undefined;
  const { tmp, shm } = tmpfsSizes(limits);
  const oomBefore = group.oomKills();
  const r = await z.run(
    taskPayload("python", task, limits, ""),
    {
      as: addressSpaceMb("python", limits.memoryMb) * MIB,
      cpu: Math.ceil(limits.runTimeoutMs / 1000) + 1,
      nproc: limits.maxProcesses + 2, // the zygote and the rollout's keeper run as the slot's uid too
      fsize: limits.maxFileMb * MIB,
      nofile: limits.maxOpenFiles,
      tmp,
      shm,
    },
    limits.runTimeoutMs + 1000,
    limits.outputLimitBytes,
  );
  if (group.oomKills() > oomBefore) r.end.oomKilled = true;
  // A judge that never announced its nonce reported nothing: a nonce that matches no line makes that a sandbox error.
  return parseReport(r.nonce ?? randomBytes(12).toString("hex"), r.end);
}

/**
 * The local backend: one bubblewrap sandbox per run, under `prlimit`, as a uid that this engine has locked for
 * the pool slot (as root), in a memory cgroup per slot where the host has one (else the sampled watcher of
 * memwatch.ts). The judge gets the task on its stdin: nothing of a rollout is written to the host's disk.
 *
 * Inside: read-only `/usr` and nothing else of the host: no /home, /root, /work or project. The only writable
 * places are three private, size-capped tmpfs mounts, `/sandbox` (the working directory), `/tmp` and
 * `/dev/shm`. Without root the runs use the invoking user (no per-slot uid; `--nproc` then counts all of that
 * user's processes, so it is raised by 4096).
 */
export function localBackend(pool: SandboxPool, o: LocalOptions): SandboxBackend {
  const root = isRoot();
  const python = o.python ?? INTERPRETERS.python;
  let mounts: string[] | undefined; // computed on first use: a missing interpreter is the self-test's to report
  return {
    name: o.isolate ? "bwrap" : "none",
    key: `${o.isolate ? "bwrap" : "none"} ${python}`,
    run(language: Language, task: HarnessTask, limits: SandboxLimits): Promise<RunReport> {
      return pool.run(async (slot) => {
        let uid: number | undefined;
        if (root) {
          try {
            uid = (await leaseFor(pool, o.uidBase)).uids[slot];
          } catch (e) {
            return { statuses: [], messages: new Map(), sandboxError: (e as Error).message, wallMs: 0, stderr: "" };
          }
        }
        // the zygote runs the default interpreter; a configured one (`python:`) gets a sandbox of its own per rollout
        const zygote = o.zygote !== false && process.env.REWARDKIT_ZYGOTE !== "off" && python === INTERPRETERS.python;
        if (o.isolate && language === "python" && zygote) {
          const group = root ? await slotGroup(slot, limits.memoryMb) : undefined;
          const report = group && (await runInZygote(pool, slot, uid, group, task, limits));
          if (report) return report;
        }
        const nonce = randomBytes(12).toString("hex");
        const jsTest = language === "javascript" && task.kind === "assert";
        let rk: string | undefined;
        try {
          rk = jsTest ? executeOnlyNode() : undefined;
        } catch (e) {
          return { statuses: [], messages: new Map(), sandboxError: (e as Error).message, wallMs: 0, stderr: "" };
        }
        const extras: TaskExtras = {};
        if (!o.isolate) extras.bpf = seccompFilter().toString("base64");
        if (rk) extras.nodeCheck = [o.isolate ? `${RK}/node` : join(rk, "node")];
        const judge = judgeStart(taskPayload(language, task, limits, nonce, extras), python);
        const nproc = root ? limits.maxProcesses : limits.maxProcesses + 4096;
        const drop =
          uid !== undefined ? ["/usr/bin/setpriv", `--reuid=${uid}`, `--regid=${uid}`, "--clear-groups"] : [];
        let work: string | undefined;
        let argv: string[];
        if (o.isolate) {
          try {
            mounts ??= python === INTERPRETERS.python ? [] : interpreterMounts(python);
          } catch (e) {
            return { statuses: [], messages: new Map(), sandboxError: (e as Error).message, wallMs: 0, stderr: "" };
          }
          argv = [...drop, ...prlimitArgs(language, limits, nproc), ...bwrapArgs(limits, rk, mounts), ...judge.argv];
        } else {
          work = mkdtempSync(join(tmpdir(), "rewardkit-work-"));
          registerTemp(work); // removed at exit too, should the engine be stopped mid-run
          if (uid !== undefined) chownSync(work, uid, uid);
          argv = [...drop, ...prlimitArgs(language, limits, nproc), "/usr/bin/env", "-C", work, ...judge.argv];
        }
        // The run's memory group: the first process writes itself into it before it execs anything else.
        const group = root ? await slotGroup(slot, limits.memoryMb) : undefined;
        if (group) argv = ["/bin/sh", "-c", 'echo 0 > "$0" && exec "$@"', group.procs, ...argv];
        const oomBefore = group?.oomKills() ?? 0;
        let overMemory = false;
        let unwatch: (() => void) | undefined;
        try {
          // Start-up (namespaces, interpreter) is not the program's time: allow one extra second on the wall clock.
          const proc = runProcess(argv, sandboxEnv(), limits.runTimeoutMs + 1000, limits.outputLimitBytes, {
            stdin: judge.stdin,
            fds: o.isolate ? [seccompFilter()] : [],
            onSpawn: group
              ? undefined
              : (pid) => {
                  unwatch = watchMemory(pid, limits.memoryMb * MIB, () => {
                    overMemory = true;
                    proc.kill();
                  });
                },
          });
          const end = await proc;
          if (overMemory || (group && group.oomKills() > oomBefore)) end.oomKilled = true;
          if (!o.isolate && uid !== undefined) await killUid(uid); // the uid is this engine's alone: only this run's processes
          return parseReport(nonce, end);
        } finally {
          unwatch?.();
          if (work) {
            rmSync(work, { recursive: true, force: true });
            unregisterTemp(work);
          }
        }
      });
    },
  };
}
