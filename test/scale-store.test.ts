/**
 * Three `rewardkit serve --store redis://…` replicas on one real `redis-server` (no balancer: the test picks the
 * replica): the shared verdict cache, a performance schedule that moves at the same step on every replica (and at the
 * step a single server moves it), a judge's `rpm` held by the whole fleet, the store dying and coming back mid-run,
 * and a store that is not there at start.
 *
 * Needs Debian's `redis-server` (.ci/run installs it); skipped, saying so, without it.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { Server } from "node:http";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, tmp } from "./helpers.js";
import {
  HAS_REDIS,
  freePort,
  mathGroups,
  metric,
  redisCli,
  score,
  sleep,
  startRedis,
  startReplica,
} from "./scale-helpers.js";
import type { RedisProc, Replica, Result, WireRollout } from "./scale-helpers.js";

if (!HAS_REDIS)
  console.log("scale-store.test.ts: skipped: redis-server not found (apt-get install redis-server; .ci/run does)");

/** Math accuracy + an overlong penalty whose factor a performance schedule moves (0 → 0.5 → 1). */
const PERF_SPEC = join(ROOT, "test/fixtures/scale/performance.yaml");
/** Steps of the schedule case, and how many of each step's 24 rollouts are right. */
const PASSES = [6, 12, 24, 24, 24, 24, 24];
/**
 * The factor in force at each step, by the rule (window 48 = two steps, pass rate ≥ 0.75, not regressing): sealing
 * step 3 sees steps 1-2 (36/48 pass, newer half 24/24) and moves to 0.5; the window is then cleared, and sealing step 5
 * sees steps 3-4 (48/48) and moves to 1, which is `to`.
 */
const FACTOR = [0, 0, 0, 0.5, 0.5, 1, 1];
const LAST_STEP = PASSES.length - 1;

/** Step `step`'s 24 rollouts, 3 groups of 8: the first `passes` right, 75 tokens each (half-way into the buffer). */
function perfGroups(step: number, passes: number): Array<Array<WireRollout & { completion_tokens: number }>> {
  return [0, 1, 2].map((g) =>
    Array.from({ length: 8 }, (_, k) => {
      const i = g * 8 + k;
      const n = 1000 * (step + 1) + i;
      return {
        id: `perf-${step}-${i}`,
        group: `perf-${step}-g${g}`,
        prompt: `What is ${n} + 0?`,
        completion: `The answer is \\boxed{${n}}.`,
        reference: String(i < passes ? n : n + 1),
        completion_tokens: 75,
      };
    }),
  );
}

/** An OpenAI chat-completions stub that answers "Rating: [[8]]" and records when each call arrived (ms). */
async function judgeStub(): Promise<{ url: string; calls: number[]; server: Server }> {
  const calls: number[] = [];
  const server = createServer((req, res) => {
    const t = performance.now();
    req.resume();
    req.on("end", () => {
      if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
        res.writeHead(404).end();
        return;
      }
      calls.push(t);
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          id: `stub-${calls.length}`,
          object: "chat.completion",
          model: "stub-judge",
          choices: [{ index: 0, message: { role: "assistant", content: "Rating: [[8]]" }, finish_reason: "stop" }],
          usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`, calls, server };
}

const RPM = 120;
/** The spacing the fleet's rpm allows: one call per 60 000 / rpm ms. */
const T = 60_000 / RPM;

/**
 * Windows that hold more calls than the fleet's rpm allows. Calls spaced at least T apart when the store grants them
 * put at most k + 1 calls in any window of length k·T (k ≥ 1), i.e. arrival i + k + 1 comes more than k·T after
 * arrival i. That holds for the arrival times at the stub too, as long as the delay between a grant and the call's
 * arrival varies by less than T (whatever the machine's speed: 500 ms of jitter would be needed to break it).
 */
function rpmViolations(calls: readonly number[]): string[] {
  const t = [...calls].sort((a, b) => a - b);
  const out: string[] = [];
  for (let k = 1; k + 1 < t.length; k++)
    for (let i = 0; i + k + 1 < t.length; i++)
      if (t[i + k + 1]! - t[i]! <= k * T)
        out.push(`${k + 2} calls within ${(t[i + k + 1]! - t[i]!).toFixed(1)} ms (at most ${k + 1} in ${k * T} ms)`);
  return out;
}

describe.skipIf(!HAS_REDIS)("three replicas sharing one Redis (--store)", () => {
  let redis: RedisProc;
  let perf: Replica[] = [];
  let plainPerf: Replica;
  let judged: Replica[] = [];
  let judgedAlone: Replica[] = [];
  let stub: Awaited<ReturnType<typeof judgeStub>>;
  const dir = tmp();

  beforeAll(async () => {
    [redis, stub] = await Promise.all([startRedis(), judgeStub()]);
    const judgeSpec = join(dir, "judge.yaml");
    writeFileSync(
      judgeSpec,
      `name: scale-judge
components:
  - name: quality
    type: judge
    baseUrl: ${stub.url}
    model: stub-judge
    template: "Rate the answer from 1 to 10 as Rating: [[n]].\\n\\n{{completion}}"
    parse: mt-bench
    rpm: ${RPM}
    concurrency: 4
    cache: false
    maxRetries: 0
`,
    );
    const store = ["--store", redis.url, "-j", "1"];
    [perf, plainPerf, judged, judgedAlone] = await Promise.all([
      Promise.all([1, 2, 3].map(() => startReplica(PERF_SPEC, store))),
      startReplica(PERF_SPEC, ["-j", "1"]),
      Promise.all([1, 2, 3].map(() => startReplica(judgeSpec, store))),
      Promise.all([1, 2, 3].map(() => startReplica(judgeSpec, ["-j", "1"]))),
    ]);
  }, 120_000);

  afterAll(async () => {
    for (const r of [...perf, plainPerf, ...judged, ...judgedAlone]) r?.kill("SIGKILL");
    redis?.kill("SIGKILL");
    await new Promise((r) => stub?.server.close(r));
  });

  it("a performance schedule moves at the same step on every replica, the step a single server moves it", async () => {
    // a synchronous trainer: each step's three groups go to the three replicas at once (rotated), the next step
    // once all are answered; the single server gets the same rollouts in the same order
    const fleet: number[][] = []; // per step, the factor each replica's rewards show
    const alone: number[] = [];
    const factorOf = (r: Result, right: boolean): number => ((right ? 1 : 0) - r.reward!) / 0.5;
    for (let step = 0; step <= LAST_STEP; step++) {
      const groups = perfGroups(step, PASSES[step]!);
      const right = new Map(groups.flat().map((r, i) => [r.id, i < PASSES[step]!]));
      const answers = await Promise.all(groups.map((g, k) => score(perf[(k + step) % 3]!.url, g, {}, { step })));
      const byReplica = new Array<number>(3);
      answers.forEach((a, k) => {
        expect(a.status).toBe(200);
        const fs = new Set(a.results.map((r) => factorOf(r, right.get(r.id)!)));
        expect(fs.size).toBe(1);
        byReplica[(k + step) % 3] = [...fs][0]!;
      });
      fleet.push(byReplica);
      const single = await score(plainPerf.url, groups.flat(), {}, { step });
      expect(single.status).toBe(200);
      const fs = new Set(single.results.map((r) => factorOf(r, right.get(r.id)!)));
      expect(fs.size).toBe(1);
      alone.push([...fs][0]!);
      // and rollout for rollout the same rewards as the single server
      const want = new Map(single.results.map((r) => [r.id, r.reward]));
      for (const a of answers) for (const r of a.results) expect(r.reward).toBe(want.get(r.id));
    }
    expect(alone).toEqual(FACTOR);
    expect(fleet).toEqual(FACTOR.map((f) => [f, f, f]));
  });

  it("a verdict scored on one replica is a store cache hit on another", async () => {
    const [group] = mathGroups("shared", 1);
    const hitsB0 = await metric(perf[1]!.url, "rewardkit_store_cache_hits_total");
    const a = await score(perf[0]!.url, group!, {}, { step: LAST_STEP });
    expect(a.status).toBe(200);
    await sleep(200); // the verdicts are written to the store after the answer (a slow store never delays a reward)
    const b = await score(perf[1]!.url, group!, {}, { step: LAST_STEP });
    expect(b.status).toBe(200);
    expect(b.results.map((r) => r.reward)).toEqual(a.results.map((r) => r.reward));
    // the math verdicts (worker component) of all 8 rollouts came from the store, none scored again on B
    expect((await metric(perf[1]!.url, "rewardkit_store_cache_hits_total")) - hitsB0).toBe(group!.length);
  });

  it(`a judge's rpm (${RPM}) holds for the fleet together; three replicas without the store call 3x as fast`, async () => {
    const run = async (fleet: Replica[], tag: string): Promise<{ calls: number[]; rewards: Array<number | null> }> => {
      stub.calls.length = 0;
      // 13 distinct rollouts (no cache can answer one): 12 spacings of T, about 6 s for the fleet
      const rollouts = Array.from({ length: 13 }, (_, i) => ({
        id: `${tag}-${i}`,
        group: `${tag}-${i % 3}`,
        prompt: "Say something.",
        completion: `Answer ${tag} number ${i}.`,
      }));
      const answers = await Promise.all(
        [0, 1, 2].map((k) =>
          score(
            fleet[k]!.url,
            rollouts.filter((_, i) => i % 3 === k),
          ),
        ),
      );
      for (const a of answers) expect(a.status).toBe(200);
      return { calls: [...stub.calls], rewards: answers.flatMap((a) => a.results.map((r) => r.reward)) };
    };
    const shared = await run(judged, "fleet");
    const alone = await run(judgedAlone, "alone");
    for (const r of [...shared.rewards, ...alone.rewards]) expect(r).toBeCloseTo(7 / 9, 12); // [[8]] on 1-10
    expect(shared.calls).toHaveLength(13);
    expect(alone.calls).toHaveLength(13);
    const rate = (c: number[]): number => ((c.length - 1) * 1000) / (Math.max(...c) - Math.min(...c));
    const minGap = (c: number[]): number =>
      Math.min(...[...c].sort((x, y) => x - y).flatMap((t, i, s) => (i > 0 ? [t - s[i - 1]!] : [])));
    console.log(
      `judge rpm ${RPM} over 3 replicas: with --store ${rate(shared.calls).toFixed(2)} calls/s (closest two ${minGap(shared.calls).toFixed(0)} ms apart), ` +
        `without ${rate(alone.calls).toFixed(2)} calls/s (closest two ${minGap(alone.calls).toFixed(0)} ms apart)`,
    );
    expect(rpmViolations(shared.calls)).toEqual([]);
    // each replica alone keeps only its own budget: together they exceed the fleet's
    expect(rpmViolations(alone.calls).length).toBeGreaterThan(0);
    expect(rate(alone.calls)).toBeGreaterThan(rate(shared.calls));
  });

  it("the store dies mid-run: every rollout still gets its reward, the replicas say so, and recover when it returns", async () => {
    const groups = mathGroups("storedown", 96); // 768 rollouts in 12 requests
    const requests = Array.from({ length: 12 }, (_, i) => groups.slice(i * 8, i * 8 + 8).flat());
    const want = new Map<string, number | null>();
    for (const rs of requests) {
      const a = await score(plainPerf.url, rs, {}, { step: LAST_STEP });
      for (const r of a.results) want.set(r.id, r.reward);
    }
    let next = 0;
    let done = 0;
    let shutdown: { code: number; out: string } | undefined;
    const answers: Array<{ status: number; results: Result[] }> = [];
    // request i goes to replica i % 3, three at a time: when the third answer arrives, at most indexes up to 5 are
    // in flight, so 6..11 (two per replica) are sent after the store is gone
    await Promise.all(
      [0, 1, 2].map(async () => {
        while (next < requests.length) {
          const i = next++;
          answers.push(
            await score(
              perf[i % 3]!.url,
              requests[i]!,
              { "X-Rewardkit-Request-Id": `storedown-${i}` },
              {
                step: LAST_STEP,
              },
            ),
          );
          if (++done === 3) shutdown = redisCli(redis.port, "shutdown", "nosave");
        }
      }),
    );
    expect(shutdown?.code).toBe(0);
    expect(await redis.exited).toBe(0);
    expect(answers.map((a) => a.status)).toEqual(new Array(12).fill(200));
    const got = answers.flatMap((a) => a.results);
    expect(got).toHaveLength(want.size);
    for (const r of got) expect(r.reward).toBe(want.get(r.id));
    for (const rep of perf) {
      expect(await metric(rep.url, "rewardkit_store_up")).toBe(0);
      expect(await metric(rep.url, "rewardkit_store_errors_total")).toBeGreaterThan(0);
      expect(rep.output()).toContain(`rewardkit: warning: store redis://127.0.0.1:${redis.port} failed`);
    }
    // back on the same port (empty: no persistence); the next operations succeed and each replica says so
    redis = await startRedis(redis.port);
    const [probe] = mathGroups("storeback", 1);
    for (const rep of perf) {
      const t0 = Date.now();
      while ((await metric(rep.url, "rewardkit_store_up")) !== 1) {
        if (Date.now() - t0 > 20_000) throw new Error(`${rep.url} never saw the store again:\n${rep.output()}`);
        const a = await score(rep.url, probe!, {}, { step: LAST_STEP });
        expect(a.status).toBe(200);
        await sleep(100);
      }
      expect(rep.output()).toContain("answers again; shared state resumed");
    }
  });

  it("a store that does not answer at start: serve exits non-zero, naming it", async () => {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [
        join(ROOT, "bin/rewardkit.js"),
        "serve",
        "--spec",
        PERF_SPEC,
        "--port",
        "0",
        "--store",
        `redis://127.0.0.1:${port}`,
        "--store-wait-ms",
        "500",
      ],
      { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] },
    );
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((r) => child.once("exit", r));
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(err).toContain(`redis://127.0.0.1:${port}`);
    expect(err).toContain("does not answer");
    expect(err).not.toContain(" on http://");
  });
});
