/**
 * The fleet as deployed: a real `redis-server`, three `rewardkit serve --store` replicas and haproxy running
 * deploy/haproxy/haproxy.cfg as shipped (addresses from the environment). Whole groups go through haproxy with
 * `X-Rewardkit-Group` and `X-Rewardkit-Request-Id`; one replica is SIGKILLed, another SIGTERMed, mid-run, and every
 * rollout must still be answered exactly once with the reward a plain single server gives it.
 *
 * Needs Debian's `redis-server` and `haproxy` (.ci/run installs them); skipped, saying so, without them.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "./helpers.js";
import {
  HAS_HAPROXY,
  HAS_REDIS,
  haproxyServers,
  mathGroups,
  metric,
  score,
  sleep,
  startHaproxy,
  startRedis,
  startReplica,
  waitServers,
} from "./scale-helpers.js";
import type { Haproxy, RedisProc, Replica, Result, WireRollout } from "./scale-helpers.js";

const missing = [HAS_REDIS ? "" : "redis-server", HAS_HAPROXY ? "" : "haproxy"].filter(Boolean);
if (missing.length > 0)
  console.log(
    `scale-haproxy.test.ts: skipped: ${missing.join(" and ")} not found (apt-get install redis-server haproxy; .ci/run does)`,
  );

const SPEC = join(ROOT, "examples/math.yaml");
const NAMES = ["rk1", "rk2", "rk3"];
/** Groups of 8 per request: 64 rollouts. */
const GROUPS_PER_REQUEST = 8;

/** Requests of whole groups, each with its group header (the first group's id) and a request id. */
function requestsOf(
  tag: string,
  groups: WireRollout[][],
): Array<{ id: string; group: string; rollouts: WireRollout[] }> {
  const out = [];
  for (let i = 0; i < groups.length; i += GROUPS_PER_REQUEST) {
    const part = groups.slice(i, i + GROUPS_PER_REQUEST);
    out.push({ id: `${tag}-req-${i / GROUPS_PER_REQUEST}`, group: part[0]![0]!.group, rollouts: part.flat() });
  }
  return out;
}

/**
 * Sends `requests` through `url`, `concurrency` at a time, each once (no client retry: haproxy does the retrying);
 * `progress(done)` is called after each answer.
 */
async function drive(
  url: string,
  requests: Array<{ id: string; group: string; rollouts: WireRollout[] }>,
  concurrency: number,
  progress: (done: number) => void = () => {},
): Promise<Array<{ status: number; results: Result[]; text: string }>> {
  const answers = new Array<{ status: number; results: Result[]; text: string }>(requests.length);
  let next = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests.length) {
        const k = next++;
        const r = requests[k]!;
        answers[k] = await score(url, r.rollouts, {
          "X-Rewardkit-Group": r.group,
          "X-Rewardkit-Request-Id": r.id,
        });
        progress(++done);
      }
    }),
  );
  return answers;
}

/** Every rollout answered exactly once, with its reward and advantage as the plain server gives them. */
function expectExactlyOnce(
  answers: Array<{ status: number; results: Result[]; text: string }>,
  groups: WireRollout[][],
  expected: Map<string, Result>,
): void {
  for (const a of answers) expect(a.status, a.text.slice(0, 300)).toBe(200);
  const seen = new Map<string, number>();
  for (const a of answers) for (const r of a.results) seen.set(r.id, (seen.get(r.id) ?? 0) + 1);
  const ids = groups.flat().map((r) => r.id);
  expect(seen.size).toBe(ids.length);
  expect(ids.every((id) => seen.get(id) === 1)).toBe(true);
  const got = new Map(answers.flatMap((a) => a.results.map((r) => [r.id, r] as const)));
  let differ = 0;
  for (const id of ids) {
    const g = got.get(id)!;
    const e = expected.get(id)!;
    if (g.reward !== e.reward || g.advantage !== e.advantage || g.error !== undefined) differ++;
  }
  expect(differ).toBe(0);
}

describe.skipIf(missing.length > 0)("three replicas behind haproxy (deploy/haproxy/haproxy.cfg), one Redis", () => {
  let redis: RedisProc;
  let replicas: Replica[] = [];
  let hap: Haproxy;
  let plain: Replica;
  const args = (): string[] => ["--store", redis.url, "--shutdown-delay-ms", "1500", "-j", "1"];

  /** What a plain server without a store answers for each rollout of `groups` (by id). */
  async function expectedFor(groups: WireRollout[][]): Promise<Map<string, Result>> {
    const out = new Map<string, Result>();
    for (let i = 0; i < groups.length; i += 64) {
      const a = await score(plain.url, groups.slice(i, i + 64).flat());
      expect(a.status).toBe(200);
      for (const r of a.results) out.set(r.id, r);
    }
    return out;
  }

  /** The index of a replica with a request in flight now (polls for up to 5 s; else the first one alive). */
  async function busyReplica(): Promise<number> {
    const t0 = Date.now();
    while (Date.now() - t0 < 5000) {
      for (let i = 0; i < replicas.length; i++) {
        if (replicas[i]!.done()) continue;
        if ((await metric(replicas[i]!.url, "rewardkit_requests_in_flight")) >= 1) return i;
      }
    }
    return replicas.findIndex((r) => !r.done());
  }

  beforeAll(async () => {
    redis = await startRedis();
    const [rs, p] = await Promise.all([
      Promise.all(NAMES.map(() => startReplica(SPEC, args()))),
      startReplica(SPEC, ["-j", "2"]), // the reference: a plain server on its own, no store
    ]);
    replicas = rs;
    plain = p;
    hap = await startHaproxy(replicas.map((r) => `127.0.0.1:${r.port}`));
    await waitServers(hap, NAMES, "UP");
  });

  afterAll(async () => {
    for (const r of replicas) r.kill("SIGKILL");
    hap?.kill("SIGKILL");
    redis?.kill("SIGKILL");
    plain?.kill("SIGKILL");
  });

  it("requests of one group (X-Rewardkit-Group) reach one replica, whose cache answers the second", async () => {
    const groups = mathGroups("sticky", 6);
    const scored = async (): Promise<number[]> =>
      Promise.all(replicas.map((r) => metric(r.url, "rewardkit_requests_total", { route: "/v1/score" })));
    const hits = async (): Promise<number[]> =>
      Promise.all(replicas.map((r) => metric(r.url, "rewardkit_cache_hits_total")));
    const owners = new Set<number>();
    for (const [g, rollouts] of groups.entries()) {
      const landed: number[] = [];
      let hitsAfterFirst: number[] = [];
      for (const attempt of ["a", "b"]) {
        const before = await scored();
        const h0 = await hits();
        const a = await score(hap.url, rollouts, {
          "X-Rewardkit-Group": rollouts[0]!.group,
          "X-Rewardkit-Request-Id": `sticky-${g}-${attempt}`,
        });
        expect(a.status).toBe(200);
        expect(a.headers.get("x-rewardkit-replayed")).toBeNull(); // two ids: two requests, both scored
        const after = await scored();
        const moved = after.map((v, i) => v - before[i]!);
        expect(moved.filter((d) => d !== 0)).toEqual([1]);
        landed.push(moved.indexOf(1));
        const h1 = await hits();
        if (attempt === "b") hitsAfterFirst = h1.map((v, i) => v - h0[i]!);
      }
      expect(landed[1]).toBe(landed[0]);
      // the second request of the group was answered from that replica's own verdict cache
      expect(hitsAfterFirst[landed[0]!]).toBeGreaterThanOrEqual(rollouts.length);
      owners.add(landed[0]!);
    }
    expect(owners.size).toBeGreaterThan(1); // groups spread over the replicas
  });

  it("SIGKILL of a replica mid-run: every rollout answered exactly once, with the single server's reward", async () => {
    const groups = mathGroups("kill", 250); // 2 000 rollouts in 32 requests of 64
    const expected = await expectedFor(groups);
    let victim = -1;
    let killing: Promise<void> | undefined;
    const answers = await drive(hap.url, requestsOf("kill", groups), 4, (done) => {
      if (done === 12 && !killing)
        killing = (async () => {
          victim = await busyReplica();
          replicas[victim]!.kill("SIGKILL");
        })();
    });
    await killing;
    expect(await replicas[victim]!.exited).toBe("SIGKILL");
    expectExactlyOnce(answers, groups, expected);
    const stats = await haproxyServers(hap);
    // the request the victim held (and any sent to it before its health check failed) was re-sent elsewhere
    expect(stats.BACKEND!.retries + stats.BACKEND!.redispatches).toBeGreaterThanOrEqual(1);
    await waitServers(hap, [NAMES[victim]!], "DOWN");
    // a new replica on the same address: haproxy takes it back once /readyz passes
    replicas[victim] = await startReplica(SPEC, args(), replicas[victim]!.port);
    await waitServers(hap, NAMES, "UP");
  });

  it("SIGTERM with --shutdown-delay-ms: not ready (haproxy marks it DOWN) before it stops; no request fails", async () => {
    const groups = mathGroups("term", 125); // 1 000 rollouts in 16 requests
    const expected = await expectedFor(groups);
    let victim = -1;
    const seen = { readyz503: false, healthz200While503: false, downBeforeExit: false };
    let watching: Promise<void> | undefined;
    const answers = await drive(hap.url, requestsOf("term", groups), 4, (done) => {
      if (done === 4 && !watching)
        watching = (async () => {
          victim = await busyReplica();
          const r = replicas[victim]!;
          r.kill("SIGTERM");
          // until it exits: its /readyz and /healthz, and its state in haproxy
          while (!r.done()) {
            try {
              const [ready, health] = await Promise.all([fetch(`${r.url}/readyz`), fetch(`${r.url}/healthz`)]);
              if (ready.status === 503) {
                seen.readyz503 = true;
                if (health.status === 200) seen.healthz200While503 = true;
              }
            } catch {
              // closed: draining is over
            }
            const s = await haproxyServers(hap);
            if (!r.done() && s[NAMES[victim]!]!.status.startsWith("DOWN")) seen.downBeforeExit = true;
            await sleep(50);
          }
        })();
    });
    await watching;
    expect(await replicas[victim]!.exited).toBe(0);
    expect(replicas[victim]!.output()).toContain("SIGTERM: draining");
    expect(replicas[victim]!.output()).toContain("drained, exiting");
    expect(seen).toEqual({ readyz503: true, healthz200While503: true, downBeforeExit: true });
    expectExactlyOnce(answers, groups, expected);
  });
});
