import { readdirSync, readFileSync, statfsSync } from "node:fs";

/**
 * The fallback memory bound where no memory cgroup is available (see cgroup.ts): every `PERIOD_MS` the host
 * sums, per watched run, the resident memory of every process under the run's root process and the bytes used in
 * its tmpfs mounts (`/tmp`, `/sandbox`, `/dev/shm`, read through `/proc/<pid>/root`), and kills the run when the
 * sum passes its limit. It is sampled: a run can exceed the limit for up to one period, and a burst shorter than
 * a period can go unseen. One scan of `/proc` serves every run in flight.
 */
const PERIOD_MS = 100;
const PAGE = 4096;
const MOUNTS = ["tmp", "sandbox", "dev/shm"];

interface Watch {
  root: number;
  limit: number;
  onExceed: (bytes: number) => void;
}

const watches = new Set<Watch>();
let timer: NodeJS.Timeout | undefined;

function scan(): void {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ppid = Number(rest[1]);
      const pid = Number(name);
      rss.set(pid, Number(rest[21]) * PAGE);
      const list = children.get(ppid);
      if (list) list.push(pid);
      else children.set(ppid, [pid]);
    } catch {
      // ended meanwhile
    }
  }
  for (const w of watches) {
    let total = 0;
    const tree = [w.root];
    for (let i = 0; i < tree.length; i++) {
      total += rss.get(tree[i]!) ?? 0;
      for (const c of children.get(tree[i]!) ?? []) tree.push(c);
    }
    const inner = tree[1]; // the sandbox's first process: its root is the sandbox's root
    for (const m of inner === undefined ? [] : MOUNTS) {
      try {
        const s = statfsSync(`/proc/${inner}/root/${m}`);
        if (s.type === 0x01021994) total += (s.blocks - s.bfree) * s.bsize; // TMPFS_MAGIC
      } catch {
        // not mounted there, or gone
      }
    }
    if (total > w.limit) {
      watches.delete(w);
      w.onExceed(total);
    }
  }
  if (watches.size === 0 && timer) {
    clearInterval(timer);
    timer = undefined;
  }
}

/**
 * Watches the process tree under `root` (the sandbox's outer process) until the returned function is called.
 * @param limit bytes of resident memory plus tmpfs usage.
 * @param onExceed called once, with the bytes seen, when the limit is passed (the caller kills the run).
 */
export function watchMemory(root: number, limit: number, onExceed: (bytes: number) => void): () => void {
  const w: Watch = { root, limit, onExceed };
  watches.add(w);
  timer ??= setInterval(scan, PERIOD_MS);
  timer.unref();
  return () => {
    watches.delete(w);
    if (watches.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}
