import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ENGINE_ID, engineLockLost, engineLockPath, holdEngineLock } from "./engine-lock.js";

/**
 * A memory cgroup per pool slot, so that everything one sandbox run holds — all its processes, and the pages of
 * its tmpfs mounts (`/tmp`, `/sandbox`, `/dev/shm`), which the kernel charges to the cgroup of the process that
 * wrote them — stays within `memoryMb`. The kernel's OOM killer acts inside the group when it is full.
 *
 * cgroup v2 (`/sys/fs/cgroup` unified, or the hybrid `unified` mount): used when the engine's own cgroup can
 * delegate the `memory` controller to a child (its `cgroup.subtree_control` accepts `+memory`; in v2 this needs
 * a cgroup without processes of its own, so the engine moves itself into a leaf `rewardkit-engine-<id>` when it
 * is the only process there, as under `systemd-run --scope -p Delegate=yes`). cgroup v1: the `memory` hierarchy,
 * under the engine's own memory cgroup. Either way the engine must be root (or own the delegated subtree).
 * Without one, `slotGroup` answers undefined and the caller falls back (see local.ts).
 *
 * The engine's directory is `rewardkit-e<ENGINE_ID>` (engine-lock.ts). The engine takes its engine lock BEFORE it
 * makes the directory and holds it for its lifetime, so a directory whose lock file exists but is free belongs to
 * an engine that is gone (killed before its exit handler ran): the next engine under the same parent removes it
 * (`sweep`). A directory without a lock file (another host's or container's lock directory) is never touched.
 */
export interface RunGroup {
  /** The `cgroup.procs` file a process writes itself into (before it execs the sandbox). */
  procs: string;
  /** OOM kills in this group so far (compare before and after a run). */
  oomKills(): number;
}

interface Layout {
  version: 1 | 2;
  /** This engine's directory, parent of the slot groups. */
  base: string;
}

/** Whether the engine moved itself into a leaf group (v2), which outlives it: a later engine's sweep removes it. */
let movedIntoLeaf = false;
/** Set once the directory exists (for the exit handler). */
let layout: Layout | undefined;
const slots = new Map<string, RunGroup>();

function ownPath(controller: string | null): string | undefined {
  for (const line of readFileSync("/proc/self/cgroup", "utf8").split("\n")) {
    const [, ctrls, path] = line.split(":", 3) as [string, string | undefined, string | undefined];
    if (path === undefined || ctrls === undefined) continue;
    if (controller === null ? ctrls === "" && line.startsWith("0::") : ctrls.split(",").includes(controller))
      return path;
  }
  return undefined;
}

function mountOf(fstype: string, option?: string): string | undefined {
  for (const line of readFileSync("/proc/self/mountinfo", "utf8").split("\n")) {
    const sep = line.indexOf(" - ");
    if (sep < 0) continue;
    const [type, , superOpts] = line.slice(sep + 3).split(" ");
    if (type !== fstype) continue;
    if (option !== undefined && !(superOpts ?? "").split(",").includes(option)) continue;
    return line.slice(0, sep).split(" ")[4];
  }
  return undefined;
}

function tryV2(): Layout | undefined {
  const mount = mountOf("cgroup2");
  const own = ownPath(null);
  if (!mount || own === undefined) return undefined;
  const dir = join(mount, own);
  const controllers = readFileSync(join(dir, "cgroup.controllers"), "utf8").split(/\s+/);
  if (!controllers.includes("memory")) return undefined;
  const enable = (): boolean => {
    try {
      writeFileSync(join(dir, "cgroup.subtree_control"), "+memory");
      return true;
    } catch {
      return false;
    }
  };
  if (!enable()) {
    // "No internal processes": move this engine into a leaf of its own cgroup, if it is alone there.
    const procs = readFileSync(join(dir, "cgroup.procs"), "utf8").split("\n").filter(Boolean);
    if (procs.length !== 1 || Number(procs[0]) !== process.pid) return undefined;
    const leaf = join(dir, `rewardkit-engine-${ENGINE_ID}`);
    mkdirSync(leaf, { recursive: true });
    movedIntoLeaf = true;
    writeFileSync(join(leaf, "cgroup.procs"), String(process.pid));
    if (!enable()) return undefined;
  }
  const base = join(dir, `rewardkit-e${ENGINE_ID}`);
  mkdirSync(base, { recursive: true });
  writeFileSync(join(base, "cgroup.subtree_control"), "+memory");
  return { version: 2, base };
}

function tryV1(): Layout | undefined {
  const mount = mountOf("cgroup", "memory");
  const own = ownPath("memory");
  if (!mount || own === undefined) return undefined;
  const base = join(mount, own, `rewardkit-e${ENGINE_ID}`);
  mkdirSync(base, { recursive: true });
  return { version: 1, base };
}

/**
 * Removes the groups of engines that are gone: the `rewardkit-e<id>` directory (and, v2, the leaf
 * `rewardkit-engine-<id>` it moved into) of an engine whose `engine-<id>.lock` exists and is free (probed with
 * `flock --nonblock`), then that lock file. `rmdir` only ever removes a group without processes, so even a wrong
 * verdict could not take a group away from under a run. Exported for tests; the engine calls it once, at detection.
 */
export function sweep(parent: string): void {
  const byId = new Map<string, string[]>();
  for (const name of readdirSync(parent)) {
    const id = /^rewardkit-(?:e|engine-)([0-9a-f]{12})$/.exec(name)?.[1];
    if (id && id !== ENGINE_ID) byId.set(id, [...(byId.get(id) ?? []), join(parent, name)]);
  }
  for (const [id, dirs] of byId) {
    const lock = engineLockPath(id);
    if (!existsSync(lock)) continue; // not ours to judge
    if (spawnSync("/usr/bin/flock", ["--nonblock", lock, "/bin/true"], { timeout: 5000 }).status !== 0) continue; // its engine is alive
    try {
      for (const dir of dirs) {
        for (const sub of readdirSync(dir)) if (sub.startsWith("slot-")) rmdirSync(join(dir, sub));
        rmdirSync(dir);
      }
      unlinkSync(lock);
    } catch {
      // in use after all, or gone
    }
  }
}

let detecting: Promise<Layout | null> | undefined;

/** Whether this engine may make memory groups at all: root, and not switched off with `REWARDKIT_CGROUP=off`. */
function eligible(): boolean {
  return process.env.REWARDKIT_CGROUP !== "off" && typeof process.getuid === "function" && process.getuid() === 0;
}

/** Finds the layout once per engine: the engine lock first (so that no other engine sweeps what we make), then the directory. */
function detect(): Promise<Layout | null> {
  detecting ??= (async () => {
    if (!eligible() || !(await holdEngineLock())) return null;
    for (const attempt of [tryV2, tryV1]) {
      try {
        const l = attempt();
        if (!l) continue;
        layout = l;
        process.once("exit", removeAll);
        try {
          sweep(dirname(l.base));
        } catch {
          // best effort
        }
        return l;
      } catch {
        // not this one
      }
    }
    try {
      if (!movedIntoLeaf) unlinkSync(engineLockPath(ENGINE_ID)); // nothing made, nothing to protect
    } catch {
      // gone already
    }
    return null;
  })();
  return detecting;
}

/** Whether runs get a memory cgroup here (detected once per engine; as root this takes the engine lock). */
export async function cgroupVersion(): Promise<1 | 2 | undefined> {
  return (await detect())?.version;
}

/**
 * The memory group of pool slot `slot`, limited to `memoryMb` MiB (memory and swap). Created on first use and
 * reused by the slot's later runs (one run at a time per slot). Undefined where cgroups are unavailable.
 */
export async function slotGroup(slot: number, memoryMb: number): Promise<RunGroup | undefined> {
  const layout = await detect();
  // Without its lock (its helper was killed) the engine's groups may be swept by another engine: fall back.
  if (!layout || engineLockLost()) return undefined;
  const key = `${slot}:${memoryMb}`;
  const known = slots.get(key);
  if (known) return known;
  const dir = join(layout.base, `slot-${slot}-${memoryMb}m`);
  const bytes = String(memoryMb * 1024 * 1024);
  try {
    mkdirSync(dir, { recursive: true });
    if (layout.version === 2) {
      writeFileSync(join(dir, "memory.max"), bytes);
      if (existsSync(join(dir, "memory.swap.max"))) writeFileSync(join(dir, "memory.swap.max"), "0");
    } else {
      writeFileSync(join(dir, "memory.limit_in_bytes"), bytes);
      if (existsSync(join(dir, "memory.memsw.limit_in_bytes")))
        writeFileSync(join(dir, "memory.memsw.limit_in_bytes"), bytes);
    }
  } catch {
    return undefined;
  }
  const events = layout.version === 2 ? join(dir, "memory.events") : join(dir, "memory.oom_control");
  const group: RunGroup = {
    procs: join(dir, "cgroup.procs"),
    oomKills() {
      try {
        return Number(/^oom_kill (\d+)/m.exec(readFileSync(events, "utf8"))?.[1] ?? 0);
      } catch {
        return 0;
      }
    },
  };
  slots.set(key, group);
  return group;
}

const beforeRemove = new Set<() => void>();

/** `fn` runs at exit before the groups are removed (it ends processes that live in them: the zygotes). */
export function beforeGroupsRemoved(fn: () => void): void {
  beforeRemove.add(fn);
}

/** rmdir, retried for up to ~0.5 s while the group's last processes are still exiting (EBUSY). */
function rmdirWhenEmpty(dir: string): void {
  for (let i = 0; ; i++) {
    try {
      return rmdirSync(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EBUSY" || i >= 50) throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

/** Removes this engine's (empty) groups; runs at exit. */
export function removeAll(): void {
  if (!layout) return;
  const waitForExit = beforeRemove.size > 0;
  for (const fn of beforeRemove) fn();
  for (const key of slots.keys()) {
    const [slot, mb] = key.split(":");
    try {
      const dir = join(layout.base, `slot-${slot}-${mb}m`);
      if (waitForExit) rmdirWhenEmpty(dir);
      else rmdirSync(dir);
    } catch {
      // still in use or already gone
    }
  }
  slots.clear();
  try {
    rmdirSync(layout.base);
    if (!movedIntoLeaf) unlinkSync(engineLockPath(ENGINE_ID)); // nothing left to protect
  } catch {
    // not empty: the lock file stays, so that a later engine sweeps the directory once this one is gone
  }
}
