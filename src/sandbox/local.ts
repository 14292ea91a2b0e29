import { randomBytes } from "node:crypto";
import { accessSync, chmodSync, chownSync, constants, existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JAVASCRIPT_HARNESS } from "./harness/javascript.js";
import { PYTHON_HARNESS } from "./harness/python.js";
import type { SandboxPool } from "./pool.js";
import { runProcess } from "./process.js";
import { parseReport } from "./report.js";
import type { HarnessTask, Language, RunReport, SandboxBackend, SandboxLimits } from "./types.js";

/** Interpreters by language. They must live under /usr: nothing else of the host is mounted in the sandbox. */
export const INTERPRETERS: Record<Language, string> = { python: "/usr/bin/python3", javascript: "/usr/bin/node" };
const HARNESS: Record<Language, { file: string; source: string }> = {
  python: { file: "harness.py", source: PYTHON_HARNESS },
  javascript: { file: "harness.mjs", source: JAVASCRIPT_HARNESS },
};

/** Where the run directory appears inside the sandbox (writable; the program's working directory). */
const WORK = "/sandbox";
/** Where the harness and the task appear inside the sandbox (read-only). */
const INPUT = "/rk";

/** Scrubbed environment: nothing of the engine's environment reaches the program. */
function sandboxEnv(language: Language): Record<string, string> {
  const env: Record<string, string> = { PATH: "/usr/bin:/bin", HOME: WORK, TMPDIR: "/tmp", LANG: "C.UTF-8" };
  if (language === "python") Object.assign(env, { PYTHONHASHSEED: "0", PYTHONDONTWRITEBYTECODE: "1", PYTHONIOENCODING: "utf-8", PYTHONNOUSERSITE: "1" });
  return env;
}

function interpreterArgs(language: Language, limits: SandboxLimits, harness: string, task: string): string[] {
  if (language === "python") return [INTERPRETERS.python, "-s", harness, task];
  // V8 aborts with "heap out of memory" (reported as memory_limit) before the address-space limit is reached.
  return [INTERPRETERS.javascript, `--max-old-space-size=${Math.max(64, Math.floor(limits.memoryMb / 2))}`, harness, task];
}

function prlimitArgs(limits: SandboxLimits, nproc: number): string[] {
  const mib = 1024 * 1024;
  return [
    "/usr/bin/prlimit",
    `--as=${limits.memoryMb * mib}`,
    `--cpu=${Math.ceil(limits.runTimeoutMs / 1000) + 1}`,
    `--nproc=${nproc}`,
    `--fsize=${limits.maxFileMb * mib}`,
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

/**
 * Writes the harness and the task into a fresh host directory (mounted read-only). With `work`, also creates the
 * program's working directory there, owned by `owner` (`sandbox: none` only: under bubblewrap the working
 * directory is a private, size-limited tmpfs, so nothing the program writes touches the host's disk).
 */
function prepareRun(language: Language, task: HarnessTask, limits: SandboxLimits, nonce: string, owner: number | undefined, work: boolean): { root: string; input: string; work: string } {
  const root = mkdtempSync(join(tmpdir(), "rewardkit-run-"));
  try {
    chmodSync(root, 0o755);
    const input = join(root, "in");
    mkdirSync(input, { mode: 0o755 });
    const workDir = join(root, "work");
    if (work) {
      mkdirSync(workDir, { mode: 0o700 });
      if (owner !== undefined) chownSync(workDir, owner, owner);
    }
    writeFileSync(join(input, HARNESS[language].file), HARNESS[language].source, { mode: 0o644 });
    writeFileSync(join(input, "task.json"), JSON.stringify({ ...task, nonce, testTimeoutMs: limits.testTimeoutMs, outputLimit: limits.outputLimitBytes }), { mode: 0o644 });
    return { root, input, work: workDir };
  } catch (e) {
    rmSync(root, { recursive: true, force: true }); // the caller's cleanup only starts once this returns
    throw e;
  }
}

/**
 * Kills every process of a slot uid (`kill -KILL -1` as that uid: it may signal exactly its own processes).
 * Run after a run that did not end cleanly, so nothing of it survives into the slot's next run.
 */
async function killUid(uid: number): Promise<void> {
  await runProcess(["/usr/bin/setpriv", `--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", "/usr/bin/kill", "-KILL", "-1"], { PATH: "/usr/bin:/bin" }, 5000, 1024);
}

function isRoot(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

let probe: Promise<string | undefined> | undefined;

/**
 * Checks once that bubblewrap can build a sandbox here (installed, user namespaces allowed).
 * @returns undefined when it works, else why not.
 */
export function probeBwrap(): Promise<string | undefined> {
  probe ??= (async () => {
    try {
      accessSync("/usr/bin/bwrap", constants.X_OK);
    } catch {
      return "bubblewrap is not installed (/usr/bin/bwrap); install the Debian package `bubblewrap`, or set `sandbox: none` (no isolation)";
    }
    const argv = ["/usr/bin/bwrap", "--unshare-all", "--die-with-parent", ...systemMounts(), "--proc", "/proc", "--dev", "/dev", "/usr/bin/true"];
    const end = await runProcess(isRoot() ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", ...argv] : argv, { PATH: "/usr/bin:/bin" }, 10_000, 4096);
    return end.exitCode === 0 ? undefined : `bubblewrap cannot create a sandbox here (exit ${end.exitCode ?? end.signal}): ${end.stderr.trim().slice(0, 200)}`;
  })();
  return probe;
}

export interface LocalOptions {
  /** First uid of the pool's slots (slot i runs as uid `uidBase + i`) when the engine runs as root. */
  uidBase: number;
  /** `false`: no bubblewrap, a plain process with the same limits (`sandbox: none`). */
  isolate: boolean;
}

/**
 * The local backend: one bubblewrap sandbox per run, under `prlimit`, as an unprivileged uid per pool slot.
 *
 * The sandbox has no network (`--unshare-all`: a fresh, empty network namespace), its own PID namespace (it
 * dies with its first process: `--die-with-parent`, and the host kills the process group at the deadline),
 * read-only `/usr` and nothing else of the host: no /home, /root, /work or project. The only writable places
 * are two private tmpfs mounts, `/sandbox` (the working directory) and `/tmp`, each capped at 4 × `maxFileMb`;
 * the root is read-only. Nothing the program writes reaches the host's file system. Without root the runs use the invoking user (no per-slot uid;
 * `--nproc` then counts all of that user's processes, so it is raised by 4096).
 */
export function localBackend(pool: SandboxPool, o: LocalOptions): SandboxBackend {
  const root = isRoot();
  return {
    name: o.isolate ? "bwrap" : "none",
    run(language: Language, task: HarnessTask, limits: SandboxLimits): Promise<RunReport> {
      return pool.run(async (slot) => {
        const uid = root ? o.uidBase + slot : undefined;
        const nonce = randomBytes(12).toString("hex");
        const dir = prepareRun(language, task, limits, nonce, uid, !o.isolate);
        try {
          const nproc = root ? limits.maxProcesses : limits.maxProcesses + 4096;
          const drop = uid !== undefined ? ["/usr/bin/setpriv", `--reuid=${uid}`, `--regid=${uid}`, "--clear-groups"] : [];
          const env = sandboxEnv(language);
          let argv: string[];
          if (o.isolate) {
            const setenv = Object.entries(env).flatMap(([k, v]) => ["--setenv", k, v]);
            // Private tmpfs mounts, each capped (tmpfs pages are host memory that RLIMIT_AS does not count).
            const tmpfs = ["--size", String(4 * Math.max(1, limits.maxFileMb) * 1024 * 1024), "--perms", "1777", "--tmpfs"];
            const bwrap = ["/usr/bin/bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL", ...systemMounts(), "--dev", "/dev", "--proc", "/proc", ...tmpfs, "/tmp", ...tmpfs, WORK, "--ro-bind", dir.input, INPUT, "--remount-ro", "/", "--chdir", WORK, "--hostname", "sandbox", "--clearenv", ...setenv];
            argv = [...drop, ...prlimitArgs(limits, nproc), ...bwrap, ...interpreterArgs(language, limits, `${INPUT}/${HARNESS[language].file}`, `${INPUT}/task.json`)];
          } else {
            argv = [...drop, ...prlimitArgs(limits, nproc), "/usr/bin/env", "-C", dir.work, ...interpreterArgs(language, limits, join(dir.input, HARNESS[language].file), join(dir.input, "task.json"))];
          }
          // Start-up (namespaces, interpreter) is not the program's time: allow one extra second on the wall clock.
          const end = await runProcess(argv, env, limits.runTimeoutMs + 1000, limits.outputLimitBytes);
          if (uid !== undefined && (end.timedOut || end.exitCode !== 0)) await killUid(uid);
          return parseReport(nonce, end);
        } finally {
          rmSync(dir.root, { recursive: true, force: true });
        }
      });
    },
  };
}
