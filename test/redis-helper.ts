import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createServer, Socket } from "node:net";

/** Why Redis tests cannot run here, or undefined when `redis-server` is installed. */
export function redisMissing(): string | undefined {
  const r = spawnSync("redis-server", ["--version"], { encoding: "utf8" });
  return r.status === 0
    ? undefined
    : "redis-server is not installed (Debian package redis-server; .ci/run installs it)";
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = new Socket();
    sock.once("connect", () => {
      sock.end();
      resolve(true);
    });
    sock.once("error", () => resolve(false));
    sock.connect(port, "127.0.0.1");
  });
}

/** A real redis-server (no persistence) on `port` (default: a free one), answering; `stop()` kills it. */
export async function startRedis(
  port?: number,
): Promise<{ url: string; port: number; proc: ChildProcess; stop: () => void }> {
  const p = port ?? (await freePort());
  const proc = spawn("redis-server", ["--port", String(p), "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  const t0 = Date.now();
  while (!(await listening(p))) {
    if (Date.now() - t0 > 10_000) throw new Error(`redis-server did not start on ${p}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `redis://127.0.0.1:${p}`, port: p, proc, stop: () => proc.kill("SIGKILL") };
}
