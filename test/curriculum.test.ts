/**
 * The curriculum end to end: `score --state` records per-prompt statistics, `rewardkit curriculum` weighs them, the
 * server answers `filter: dapo` in the batch, keeps the statistics across a restart with `--state`, and replicas share
 * them through the store (in-process MemoryStore; a real Redis when `redis-server` is installed).
 */
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CurriculumTracker } from "../src/curriculum/tracker.js";
import { scoredGroups } from "../src/curriculum/groups.js";
import { startServer } from "../src/server/index.js";
import { loadSpec } from "../src/spec/load.js";
import { MemoryStore } from "../src/store/memory.js";
import { RedisStore } from "../src/store/redis.js";
import { StoreGuard } from "../src/store/guard.js";
import type { Store } from "../src/store/types.js";
import { cli, readJsonl, runPythonTests, tmp } from "./helpers.js";
import { spawnSync } from "node:child_process";
import { redisMissing, startRedis } from "./redis-helper.js";

const SPEC = `name: cur
components:
  - {name: exact, type: exact}
filter: dapo
replay: {size: 2}
curriculum: {alpha: 0.5}
`;

/** q1: 2/4 right; q2: all right (flat); q3: all wrong (flat); prompt "shared" over two groups: 3/4 right. */
function rollouts(step = 1): Array<Record<string, unknown>> {
  const rows: Array<Record<string, unknown>> = [];
  const add = (group: string, outs: string[], extra: Record<string, unknown> = {}) =>
    outs.forEach((c, i) =>
      rows.push({ id: `${group}-${step}-${i}`, group, completion: c, reference: "a", step, ...extra }),
    );
  add("q1", ["a", "b", "a", "b"]);
  add("q2", ["a", "a", "a", "a"]);
  add("q3", ["b", "b", "b", "b"]);
  add("q4a", ["a", "b"], { prompt_id: "shared" });
  add("q4b", ["a", "a"], { prompt_id: "shared" });
  return rows;
}

function setup(): { dir: string; spec: string; input: string; state: string } {
  const dir = tmp();
  const spec = join(dir, "cur.yaml");
  writeFileSync(spec, SPEC);
  const input = join(dir, "r.jsonl");
  writeFileSync(
    input,
    rollouts()
      .map((r) => JSON.stringify(r))
      .join("\n") + "\n",
  );
  return { dir, spec, input, state: join(dir, "state.json") };
}

describe("rewardkit score --state → rewardkit curriculum", () => {
  it("records pass rates per prompt (prompt_id over groups), reports the dapo filter, accumulates over runs", () => {
    const { dir, spec, input, state } = setup();
    const out = join(dir, "s.jsonl");
    const sum = join(dir, "sum.json");
    const r = cli(["score", input, "--spec", spec, "--state", state, "-o", out, "--summary", sum, "-q"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const summary = JSON.parse(readFileSync(sum, "utf8")) as { filter: Record<string, unknown> };
    expect(summary.filter).toMatchObject({ groups: 5, kept: 2, dropped: 3, need: 3, sample: 8 });
    expect(summary.filter.dropped_groups).toEqual(["q2", "q3", "q4b"]);
    // dropped groups' advantages are null, as verl drops them from the batch
    const scored = readJsonl<{ group: string; advantage: number | null }>(out);
    expect(scored.filter((x) => x.group === "q2").every((x) => x.advantage === null)).toBe(true);
    expect(scored.filter((x) => x.group === "q1").every((x) => x.advantage !== null)).toBe(true);

    const c = join(dir, "c.jsonl");
    expect(cli(["curriculum", "--state", state, "--strategy", "success-guided", "-o", c]).code).toBe(0);
    const rows = readJsonl<{ prompt_id: string; weight: number; pass_rate: number; attempts: number }>(c);
    expect(rows.map((x) => [x.prompt_id, x.pass_rate, x.attempts])).toEqual([
      ["q1", 0.5, 4],
      ["q2", 1, 4],
      ["q3", 0, 4],
      ["shared", 0.75, 4],
    ]);
    // ε + p(1−p): 0.26, 0.01, 0.01, 0.1975 over 0.4775
    expect(rows[0]!.weight).toBeCloseTo(0.26 / 0.4775, 12);
    expect(rows[3]!.weight).toBeCloseTo(0.1975 / 0.4775, 12);

    // a second run at a later step adds to the same prompts
    writeFileSync(
      input,
      rollouts(3)
        .map((x) => JSON.stringify(x))
        .join("\n") + "\n",
    );
    expect(cli(["score", input, "--spec", spec, "--state", state, "-o", out, "-q"]).code).toBe(0);
    const again = JSON.parse(
      cli(["curriculum", "--state", state, "--strategy", "knapsack", "--budget", "8"]).stdout.split("\n")[0]!,
    ) as Record<string, number>;
    expect(again).toMatchObject({ prompt_id: "q1", attempts: 8, successes: 4, last_step: 3, rollouts: 4 });
    const replay = cli(["curriculum", "--state", state, "--replay", "0"]).stdout.trim().split("\n");
    expect(replay.map((l) => (JSON.parse(l) as { group: string }).group)).toEqual(["q4a", "q1"]); // K = 2, newest first
  });

  it("a corrupt state is an error naming the file and the field, never a silent reset", () => {
    const { spec, input, state } = setup();
    expect(cli(["score", input, "--spec", spec, "--state", state, "-o", "/dev/null", "-q"]).code).toBe(0);
    const st = JSON.parse(readFileSync(state, "utf8")) as { curriculum: { prompts: Array<Record<string, unknown>> } };
    st.curriculum.prompts[1]!.successes = null;
    writeFileSync(state, JSON.stringify(st));
    const r = cli(["curriculum", "--state", state]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`--state ${state}: curriculum.prompts[1].successes: expected a number`);
    const s = cli(["score", input, "--spec", spec, "--state", state, "-o", "/dev/null", "-q"]);
    expect(s.code).toBe(1);
    expect(s.stderr).toContain("curriculum.prompts[1].successes");
    writeFileSync(state, "[1]");
    expect(cli(["curriculum", "--state", state]).stderr).toContain("line 1: expected a JSON object");
    expect(cli(["curriculum", "--state", state + ".none"]).stderr).toContain("no such file");
    const bad = cli(["curriculum", "--state", state, "--strategy", "nope"]);
    expect(bad.code).toBe(1);
  });
});

describe("the server", () => {
  it("answers the dapo filter in the batch, serves /v1/curriculum and /v1/replay, and keeps them across a restart", async () => {
    const { dir, spec: specPath } = setup();
    const spec = loadSpec(specPath);
    const statePath = join(dir, "server-state.json");
    const post = async (base: string) =>
      (await (
        await fetch(`${base}/v1/score`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ rollouts: rollouts() }),
        })
      ).json()) as { filter: Record<string, unknown>; results: Array<{ id: string; advantage: number | null }> };
    let srv = await startServer(spec, { port: 0, concurrency: 1, statePath });
    let rows: unknown;
    try {
      const body = await post(srv.url);
      expect(body.filter).toMatchObject({ groups: 5, kept: 2, dropped: 3, need: 3, sample: 8 });
      expect(body.results.find((r) => r.id === "q2-1-0")!.advantage).toBeNull();
      const cur = (await (await fetch(`${srv.url}/v1/curriculum?strategy=success-guided`)).json()) as {
        rows: Array<{ prompt_id: string; pass_rate: number; attempts: number }>;
      };
      expect(cur.rows.map((r) => [r.prompt_id, r.pass_rate, r.attempts])).toEqual([
        ["q1", 0.5, 4],
        ["q2", 1, 4],
        ["q3", 0, 4],
        ["shared", 0.75, 4],
      ]);
      rows = cur.rows;
      const bad = await fetch(`${srv.url}/v1/curriculum?strategy=knapsack&unit=1`);
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: { message: string } }).error.message).toContain(
        "unit: expected at least 2",
      );
      const rep = (await (await fetch(`${srv.url}/v1/replay?n=1`)).json()) as { groups: Array<{ group: string }> };
      expect(rep.groups.map((g) => g.group)).toEqual(["q4a"]);
    } finally {
      await srv.shutdown();
    }
    srv = await startServer(spec, { port: 0, concurrency: 1, statePath });
    try {
      const cur = (await (await fetch(`${srv.url}/v1/curriculum`)).json()) as { rows: unknown };
      expect(cur.rows).toEqual(rows);
      const rep = (await (await fetch(`${srv.url}/v1/replay`)).json()) as { groups: Array<{ group: string }> };
      expect(rep.groups.map((g) => g.group)).toEqual(["q4a", "q1"]);
    } finally {
      await srv.shutdown();
    }
  });
});

/** Two replicas recording halves of the same prompts through one store read what one process recording all reads. */
async function shareThrough(makeStore: () => Promise<Store>): Promise<void> {
  const dir = tmp();
  writeFileSync(join(dir, "s.yaml"), SPEC);
  const spec = { ...loadSpec(join(dir, "s.yaml")), hash: `h${randomBytes(4).toString("hex")}` };
  const stores = [await makeStore(), await makeStore()];
  try {
    const [a, b] = stores.map((s) => {
      const t = new CurriculumTracker(spec);
      t.share(new StoreGuard(s));
      return t;
    });
    const single = new CurriculumTracker(spec);
    const groupsAt = (step: number) =>
      scoredGroups(
        ["exact"],
        rollouts(step).map((r) => ({
          id: r.id as string,
          group: r.group as string,
          ...(r.prompt_id ? { promptId: r.prompt_id as string } : {}),
          step,
          reward: r.completion === "a" ? 1 : 0,
          scores: [r.completion === "a" ? 1 : 0],
          advantage: 0,
        })),
      );
    const g1 = groupsAt(1);
    const g4 = groupsAt(4);
    await a!.record(g1.slice(0, 3));
    await b!.record(g1.slice(3));
    await b!.record(g4.slice(0, 2));
    await a!.record(g4.slice(2));
    await single.record(g1);
    await single.record(g4);
    const want = await single.rows("success-guided");
    for (const t of [a!, b!]) {
      const got = await t.rows("success-guided");
      expect(got.map((r) => r.prompt_id)).toEqual(want.map((r) => r.prompt_id));
      got.forEach((r, i) => {
        for (const k of ["weight", "pass_rate", "attempts", "ew_pass_rate", "mean", "variance", "last_step"] as const)
          expect(r[k] as number).toBeCloseTo(want[i]![k] as number, 12);
      });
    }
  } finally {
    await Promise.all(stores.map((s) => s.close()));
  }
}

describe("a slow store", () => {
  it("record updates this process at once; reads wait for the store's merges; shutdown-style settled() too", async () => {
    const dir = tmp();
    writeFileSync(join(dir, "s.yaml"), SPEC);
    const spec = { ...loadSpec(join(dir, "s.yaml")), hash: `h${randomBytes(4).toString("hex")}` };
    const store = new MemoryStore();
    let answered = 0;
    const merge = store.statsMerge.bind(store);
    // every merge answers 100 ms late, as a remote store under load would
    store.statsMerge = (...a: Parameters<MemoryStore["statsMerge"]>) =>
      new Promise<void>((r) => setTimeout(r, 100)).then(() => merge(...a)).then(() => void answered++);
    const t = new CurriculumTracker(spec);
    t.share(new StoreGuard(store));
    const groups = scoredGroups(
      ["exact"],
      rollouts(1).map((r) => ({
        id: r.id as string,
        group: r.group as string,
        ...(r.prompt_id ? { promptId: r.prompt_id as string } : {}),
        step: 1,
        reward: r.completion === "a" ? 1 : 0,
        scores: [r.completion === "a" ? 1 : 0],
        advantage: 0,
      })),
    );
    const pending = t.record(groups);
    // this process's table has every prompt before any store answer (what the server answers from)
    expect(answered).toBe(0);
    expect(t.table.entries().length).toBe(new Set(groups.map((g) => g.key)).size);
    // a read waits for the merges, so it sees them in the store's statistics
    const rows = await t.rows("success-guided");
    expect(answered).toBe(groups.length);
    const attempts = rows.reduce((n, r) => n + r.attempts, 0);
    expect(attempts).toBe(groups.reduce((n, g) => n + g.rewards.length, 0));
    await pending;
    await t.settled();
  });
});

describe("replicas share the statistics through the store", () => {
  it("on the in-process MemoryStore", async () => {
    const shared = new MemoryStore();
    await shareThrough(() => Promise.resolve(shared));
  });

  const missing = redisMissing();
  if (missing) console.warn(`skipping the curriculum's Redis test: ${missing}`);
  describe.skipIf(missing !== undefined)("on a real redis-server", () => {
    let redis: Awaited<ReturnType<typeof startRedis>>;
    beforeAll(async () => {
      redis = await startRedis();
    });
    afterAll(() => redis?.stop());
    it("two connections, one fleet", async () => {
      const prefix = `cur${randomBytes(4).toString("hex")}:`;
      await shareThrough(async () => {
        const s = new RedisStore({ url: redis.url, prefix });
        await s.ping();
        return s;
      });
    });
  });
});

const hasPython = spawnSync("python3", ["--version"]).status === 0;
describe.skipIf(!hasPython)("the Python helper (clients/python/rewardkit_curriculum.py)", () => {
  it("turns the JSONL and the endpoint into sampler weights (without torch)", async () => {
    const r = await runPythonTests("test_curriculum.py", {});
    expect(r.out).toMatch(/OK/);
    expect(r.code).toBe(0);
  });
});
