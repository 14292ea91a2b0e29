import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { runProcess } from "./process.js";

/**
 * Sandbox uids of this engine, locked so that no other engine on the host uses them at the same time, even when
 * both specs give the same `uidBase`. A small helper process (`python3`, root) takes an exclusive `flock` on one
 * lock file per uid (`/run/lock/rewardkit/uid-<uid>.lock`, or under `/tmp` where `/run/lock` is missing), trying
 * `uidBase`, `uidBase + 1`, … until it holds one per pool slot, and keeps them until the engine exits: its stdin
 * is a pipe from the engine, so the locks go when the engine goes, however it ends (the kernel releases a dead
 * process's flocks). Processes a crashed engine left under a uid we now hold are killed once, when it is locked.
 */
const LOCK_DIRS = ["/run/lock/rewardkit", "/tmp/rewardkit-locks"];
/** How far above `uidBase` the helper looks for free uids. */
const SCAN = 65_536;

const HELPER = String.raw`
import fcntl, json, os, sys
d, base, need, scan = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
os.makedirs(d, mode=0o755, exist_ok=True)
held, fds = [], []
uid = base
while len(held) < need and uid < base + scan:
    fd = os.open(os.path.join(d, "uid-%d.lock" % uid), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        held.append(uid)
        fds.append(fd)
    except OSError:
        os.close(fd)
    uid += 1
sys.stdout.write(json.dumps(held) + "\n")
sys.stdout.flush()
sys.stdin.buffer.read()
`;

export interface UidLease {
  /** One uid per pool slot. */
  uids: number[];
  /** Releases the locks (also happens when the engine exits). */
  release(): void;
}

/** The lock directory every engine on this host uses (the first of `/run/lock/rewardkit`, `/tmp/...` whose parent exists). */
export function lockDir(): string {
  return existsSync("/run/lock") ? LOCK_DIRS[0]! : LOCK_DIRS[1]!;
}

/**
 * Locks `count` uids at or above `base` for this engine (root only).
 * @throws when the helper cannot start or finds fewer free uids than asked for.
 */
export async function lockUids(base: number, count: number): Promise<UidLease> {
  const helper: ChildProcess = spawn(
    "/usr/bin/python3",
    ["-s", "-c", HELPER, lockDir(), String(base), String(count), String(SCAN)],
    {
      stdio: ["pipe", "pipe", "pipe"],
      env: { PATH: "/usr/bin:/bin" },
    },
  );
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    let err = "";
    helper.stdout!.on("data", (b: Buffer) => {
      out += b.toString();
      const i = out.indexOf("\n");
      if (i >= 0) resolve(out.slice(0, i));
    });
    helper.stderr!.on("data", (b: Buffer) => (err += b.toString()));
    helper.on("error", (e) => reject(new Error(`uid lock helper: ${e.message}`)));
    helper.on("exit", (code) => reject(new Error(`uid lock helper exited (${code}): ${err.trim().slice(-300)}`)));
  });
  const uids = JSON.parse(line) as number[];
  // The engine must not wait for the helper, nor keep the event loop alive for it.
  helper.unref();
  for (const s of [helper.stdin, helper.stdout, helper.stderr])
    (s as unknown as { unref?: () => void } | null)?.unref?.();
  const release = (): void => {
    helper.stdin?.destroy();
    helper.kill("SIGKILL");
  };
  if (uids.length < count) {
    release();
    throw new Error(
      `could not lock ${count} sandbox uids from ${base} (found ${uids.length} free in ${SCAN}); raise uidBase`,
    );
  }
  // Anything still running under a uid we now hold belongs to no live engine: end it before the first run.
  await Promise.all(
    uids.map((uid) =>
      runProcess(
        ["/usr/bin/setpriv", `--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", "/usr/bin/kill", "-KILL", "-1"],
        { PATH: "/usr/bin:/bin" },
        5000,
        1024,
      ),
    ),
  );
  return { uids, release };
}
