import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { lockDir } from "./uids.js";

/**
 * This engine's id (48 random bits, hex): names its cgroup directory `rewardkit-e<id>` and its lock file
 * `engine-<id>.lock`. Not the pid: two engines in two PID namespaces (two containers) can both be PID 1.
 */
export const ENGINE_ID = randomBytes(6).toString("hex");

/** The lock file that says whether the engine `id` is alive (held) or gone (free). */
export function engineLockPath(id: string): string {
  return join(lockDir(), `engine-${id}.lock`);
}

/**
 * Holds `engine-<id>.lock` for as long as the engine lives. A small helper process (`python3`, like the uid lock
 * helper of uids.ts) takes an exclusive `flock` on it and keeps it until its stdin, a pipe from the engine, closes:
 * the kernel releases the lock however the engine ends (exit, crash, SIGKILL). Another engine that finds the file
 * free knows this engine is gone (see the sweep in cgroup.ts).
 */
const HELPER = String.raw`
import fcntl, os, sys
os.makedirs(os.path.dirname(sys.argv[1]), mode=0o755, exist_ok=True)
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
sys.stdout.write("held\n")
sys.stdout.flush()
sys.stdin.buffer.read()
`;

let held: Promise<boolean> | undefined;
let lost = false;

/**
 * Takes this engine's lock (once per process; later calls share the first one's answer).
 * @returns true once the lock is held, false where the helper cannot run (then the caller must not make anything
 * that other engines would sweep). Never rejects.
 */
export function holdEngineLock(): Promise<boolean> {
  held ??= new Promise<boolean>((resolve) => {
    let helper;
    try {
      helper = spawn("/usr/bin/python3", ["-s", "-c", HELPER, engineLockPath(ENGINE_ID)], {
        stdio: ["pipe", "pipe", "ignore"],
        env: { PATH: "/usr/bin:/bin" },
      });
    } catch {
      resolve(false);
      return;
    }
    let out = "";
    helper.on("error", () => resolve(false));
    helper.on("exit", () => {
      lost = true; // killed from outside: other engines may now sweep this one's groups
      resolve(false);
    });
    helper.stdout.on("data", (b: Buffer) => {
      out += b.toString();
      if (!out.includes("held\n")) return;
      // Held: from now on the engine neither waits for the helper nor stays alive for it.
      helper.unref();
      for (const s of [helper.stdin, helper.stdout]) (s as unknown as { unref?: () => void }).unref?.();
      resolve(true);
    });
  });
  return held;
}

/** Whether the lock was held and has since been lost (its helper died while the engine lives). */
export function engineLockLost(): boolean {
  return lost;
}
