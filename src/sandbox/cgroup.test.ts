// The engine lock and the sweep of stale engine groups (cgroup.ts, engine-lock.ts). The sweep is exercised on a
// plain directory (rmdir behaves the same on empty directories), so it needs root only for the lock directory.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { cgroupVersion, sweep } from "./cgroup.js";
import { ENGINE_ID, engineLockPath } from "./engine-lock.js";

const root = typeof process.getuid === "function" && process.getuid() === 0;
const free = (lock: string): boolean => spawnSync("/usr/bin/flock", ["--nonblock", lock, "/bin/true"]).status === 0;

const version = root ? await cgroupVersion() : undefined;

describe.skipIf(!root || !existsSync("/usr/bin/flock"))("engine groups (root)", () => {
  it("the sweep removes only a gone engine's groups (lock file free); a live engine's (lock held) and unknown ones stay", async () => {
    const parent = mkdtempSync(join(tmpdir(), "rk-sweep-"));
    const [gone, live, unknown] = ["a1a1a1a1a1a1", "b2b2b2b2b2b2", "c3c3c3c3c3c3"];
    for (const id of [gone, live, unknown])
      mkdirSync(join(parent, `rewardkit-e${id}`, "slot-0-256m"), { recursive: true });
    mkdirSync(join(parent, `rewardkit-engine-${gone}`)); // the v2 leaf a gone engine moved into
    mkdirSync(join(parent, "rewardkit-4242", "slot-0-256m"), { recursive: true }); // not an engine id: never touched
    mkdirSync(join(parent, "rewardkit-e-not-hex"));
    mkdirSync(dirname(engineLockPath(gone)), { recursive: true });
    writeFileSync(engineLockPath(gone), "");
    writeFileSync(engineLockPath(live), "");
    const holder = spawn("/usr/bin/flock", [engineLockPath(live), "/bin/sleep", "30"], { stdio: "ignore" });
    try {
      for (let i = 0; i < 100 && free(engineLockPath(live)); i++) await new Promise((r) => setTimeout(r, 20));
      expect(free(engineLockPath(live))).toBe(false);
      sweep(parent);
      expect(existsSync(join(parent, `rewardkit-e${gone}`))).toBe(false);
      expect(existsSync(join(parent, `rewardkit-engine-${gone}`))).toBe(false);
      expect(existsSync(engineLockPath(gone))).toBe(false);
      expect(existsSync(join(parent, `rewardkit-e${live}`, "slot-0-256m"))).toBe(true);
      expect(existsSync(engineLockPath(live))).toBe(true);
      expect(existsSync(join(parent, `rewardkit-e${unknown}`, "slot-0-256m"))).toBe(true);
      expect(existsSync(join(parent, "rewardkit-4242", "slot-0-256m"))).toBe(true);
      expect(existsSync(join(parent, "rewardkit-e-not-hex"))).toBe(true);
    } finally {
      holder.kill("SIGKILL");
      rmSync(engineLockPath(live), { force: true });
      rmSync(parent, { recursive: true, force: true });
    }
  });

  it.skipIf(version === undefined)(
    `an engine that makes groups (here cgroup v${version ?? "-"}) holds its engine lock`,
    () => {
      expect(existsSync(engineLockPath(ENGINE_ID))).toBe(true);
      expect(free(engineLockPath(ENGINE_ID))).toBe(false);
    },
  );
});
