/**
 * Real processes for the scale-out tests (test/scale-*.test.ts) and nothing else: a `redis-server`, `rewardkit serve`
 * replicas and haproxy, each on a free port, each started in its own process group (`detached`) so that a test can
 * SIGKILL a replica's whole group, and every group still alive is killed when the test process exits.
 */
import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./helpers.js";
import { freePort } from "./redis-helper.js";

/** Whether `cmd args` runs (a binary is installed). */
export function runs(cmd: string, args: string[]): boolean {
  const r = spawnSync(cmd, args, { stdio: "ignore" });
  return r.error === undefined && r.status === 0;
}

export const HAS_REDIS = runs("redis-server", ["--version"]) && runs("redis-cli", ["--version"]);
export const HAS_HAPROXY = runs("haproxy", ["-v"]);

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export { freePort };

/** A child process started by these helpers. */
export interface Proc {
  child: ChildProcess;
  pid: number;
  /** What it wrote on stderr (and stdout) so far, the last 64 kB. */
  output(): string;
  /** Resolves with the exit code (or the signal's name) once it has exited. */
  exited: Promise<number | string>;
  /** Whether it has exited. */
  done(): boolean;
  /** Sends `signal` to its whole process group. */
  kill(signal: NodeJS.Signals): void;
}

const live = new Set<number>();
process.once("exit", () => {
  for (const pid of live) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

/** Starts `cmd args` in its own process group, collecting its output. */
export function start(cmd: string, args: string[], env: Record<string, string> = {}): Proc {
  const child = spawn(cmd, args, {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  const pid = child.pid!;
  live.add(pid);
  let out = "";
  const keep = (d: Buffer): void => {
    out = (out + d.toString()).slice(-65_536);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  let exited = false;
  const done = new Promise<number | string>((resolve) =>
    child.once("exit", (code, signal) => {
      exited = true;
      live.delete(pid);
      resolve(code ?? signal ?? -1);
    }),
  );
  return {
    child,
    pid,
    output: () => out,
    exited: done,
    done: () => exited,
    kill: (signal) => {
      try {
        process.kill(-pid, signal);
      } catch {
        // already gone
      }
    },
  };
}

/** Waits until `re` matches the process's output; rejects when it exits first or after `ms`. */
export async function waitOutput(p: Proc, re: RegExp, ms = 30_000): Promise<RegExpMatchArray> {
  const t0 = Date.now();
  for (;;) {
    const m = p.output().match(re);
    if (m) return m;
    if (p.done()) throw new Error(`process exited before printing ${re}:\n${p.output()}`);
    if (Date.now() - t0 > ms) throw new Error(`no ${re} after ${ms} ms:\n${p.output()}`);
    await sleep(20);
  }
}

/** A `redis-server` without persistence on 127.0.0.1. */
export interface RedisProc extends Proc {
  port: number;
  url: string;
}

/** Starts `redis-server` (no RDB, no AOF) on `port` (default: a free one). */
export async function startRedis(port?: number): Promise<RedisProc> {
  for (let attempt = 0; ; attempt++) {
    const p = port ?? (await freePort());
    const proc = start("redis-server", [
      "--port",
      String(p),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
    ]);
    try {
      await waitOutput(proc, /Ready to accept connections/);
      return { ...proc, port: p, url: `redis://127.0.0.1:${p}` };
    } catch (e) {
      proc.kill("SIGKILL");
      if (port !== undefined || attempt >= 3) throw e;
    }
  }
}

/** `redis-cli -p port args…` (synchronous). */
export function redisCli(port: number, ...args: string[]): { code: number; out: string } {
  const r = spawnSync("redis-cli", ["-p", String(port), ...args], { encoding: "utf8" });
  return { code: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

/** A `rewardkit serve` process. */
export interface Replica extends Proc {
  port: number;
  url: string;
}

/**
 * Starts `node bin/rewardkit.js serve --spec spec … args` on `port` (default: 0, the port it prints is read back) and
 * waits until it listens.
 */
export async function startReplica(spec: string, args: string[] = [], port = 0): Promise<Replica> {
  const proc = start(process.execPath, [
    join(ROOT, "bin/rewardkit.js"),
    "serve",
    "--spec",
    spec,
    "--port",
    String(port),
    ...args,
  ]);
  const m = await waitOutput(proc, / on http:\/\/127\.0\.0\.1:(\d+)/);
  const p = Number(m[1]);
  return { ...proc, port: p, url: `http://127.0.0.1:${p}` };
}

/** haproxy in the foreground on the repository's config, its addresses from the environment. */
export interface Haproxy extends Proc {
  url: string;
  statsUrl: string;
}

/**
 * Runs `haproxy -f deploy/haproxy/haproxy.cfg -db` (the file as shipped) with `REWARDKIT_1…` set to `servers`, and
 * waits until its frontend and stats page answer.
 */
export async function startHaproxy(servers: string[]): Promise<Haproxy> {
  const [front, stats] = [await freePort(), await freePort()];
  const env: Record<string, string> = {
    REWARDKIT_BIND: `127.0.0.1:${front}`,
    REWARDKIT_STATS_BIND: `127.0.0.1:${stats}`,
  };
  servers.forEach((s, i) => (env[`REWARDKIT_${i + 1}`] = s));
  const proc = start("haproxy", ["-f", join(ROOT, "deploy/haproxy/haproxy.cfg"), "-db"], env);
  const h = { ...proc, url: `http://127.0.0.1:${front}`, statsUrl: `http://127.0.0.1:${stats}/stats;csv` };
  const t0 = Date.now();
  for (;;) {
    try {
      if ((await fetch(h.statsUrl)).ok) return h;
    } catch {
      // not listening yet
    }
    if (proc.done()) throw new Error(`haproxy exited:\n${proc.output()}`);
    if (Date.now() - t0 > 15_000) throw new Error(`haproxy does not answer:\n${proc.output()}`);
    await sleep(50);
  }
}

/** haproxy's stats (CSV) per server of the `rewardkit` backend: status (UP, DOWN …), retries, redispatches. */
export async function haproxyServers(
  h: Haproxy,
): Promise<Record<string, { status: string; retries: number; redispatches: number; sessions: number }>> {
  const text = await (await fetch(h.statsUrl)).text();
  const [head, ...rows] = text.trim().split("\n");
  const cols = head!.replace(/^# /, "").split(",");
  const at = (name: string): number => cols.indexOf(name);
  const out: Record<string, { status: string; retries: number; redispatches: number; sessions: number }> = {};
  for (const row of rows) {
    const f = row.split(",");
    if (f[at("pxname")] !== "rewardkit" || f[at("svname")] === "FRONTEND") continue;
    out[f[at("svname")]!] = {
      status: f[at("status")]!,
      retries: Number(f[at("wretr")] || 0),
      redispatches: Number(f[at("wredis")] || 0),
      sessions: Number(f[at("stot")] || 0),
    };
  }
  return out;
}

/** Waits until haproxy reports each named server in `status` (e.g. every replica UP). */
export async function waitServers(h: Haproxy, names: string[], status: string, ms = 20_000): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    const s = await haproxyServers(h);
    if (names.every((n) => s[n]?.status === status)) return;
    if (Date.now() - t0 > ms)
      throw new Error(`haproxy servers ${names.join(", ")} not ${status}: ${JSON.stringify(s)}`);
    await sleep(50);
  }
}

/** The sum of the samples of `name` whose labels include `labels` in a Prometheus text body. */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(name) || line.startsWith("#")) continue;
    const m = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$/);
    if (!m || m[1] !== name) continue;
    const ls = m[2] ?? "";
    if (Object.entries(labels).every(([k, v]) => ls.includes(`${k}="${v}"`))) sum += Number(m[3]);
  }
  return sum;
}

/** `GET url/metrics` → {@link metricValue}. */
export async function metric(url: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  return metricValue(await (await fetch(`${url}/metrics`)).text(), name, labels);
}

/** A rollout as sent to `/v1/score`. */
export interface WireRollout {
  id: string;
  group: string;
  prompt: string;
  completion: string;
  reference: unknown;
}

/** A `/v1/score` result. */
export interface Result {
  id: string;
  reward: number | null;
  advantage: number | null;
  components: Record<string, { score: number | null; status: string; details?: Record<string, unknown> }> | null;
  error?: unknown;
}

const MATH = readFileSync(join(ROOT, "examples/data/math-rollouts.jsonl"), "utf8")
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as WireRollout);

/** A tag of letters only (digits in a completion could become its answer). */
function letters(n: number): string {
  let s = "";
  do {
    s = String.fromCharCode(97 + (n % 26)) + s;
    n = Math.floor(n / 26);
  } while (n > 0);
  return s;
}

/**
 * `groups` whole groups of 8 math rollouts from examples/data/math-rollouts.jsonl (cycling over its 100 groups),
 * every one with a new id and group, and a completion made distinct by a prefix of letters (so no cache, in this
 * process or in the store, holds its verdict before the test scores it).
 */
export function mathGroups(tag: string, groups: number): WireRollout[][] {
  const out: WireRollout[][] = [];
  for (let g = 0; g < groups; g++) {
    const src = MATH.slice((g % 100) * 8, (g % 100) * 8 + 8);
    out.push(
      src.map((r, k) => ({
        id: `${tag}-${g}-${k}`,
        group: `${tag}-g${g}`,
        prompt: r.prompt,
        completion: `Attempt ${tag.replace(/[^a-z]/gi, "")}${letters(g * 8 + k)}.\n${r.completion}`,
        reference: r.reference,
      })),
    );
  }
  return out;
}

/** `POST url/v1/score`; never throws for an HTTP status (returned), only for a connection failure. */
export async function score(
  url: string,
  rollouts: readonly unknown[],
  headers: Record<string, string> = {},
  extra: Record<string, unknown> = {},
): Promise<{ status: number; results: Result[]; headers: Headers; text: string }> {
  const res = await fetch(`${url}/v1/score`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ rollouts, ...extra }),
  });
  const text = await res.text();
  let results: Result[] = [];
  try {
    results = (JSON.parse(text) as { results?: Result[] }).results ?? [];
  } catch {
    // an error page (haproxy's own): no results
  }
  return { status: res.status, results, headers: res.headers, text };
}
