/**
 * The group barrier over `/v1/score` (the app, no sockets): rollouts with `group_size` wait for the rest of their
 * group from other requests, then get the group stage's values and the advantages over the whole group.
 *
 * The spec is Kimi k1.5's length reward beside exact-match correctness (docs/length-ifeval.md): lengths 2, 4, 6
 * tokens, correct, correct, wrong → λ = 0.5 − (len − 2)/(6 − 2) = 0.5, 0, −0.5, kept for correct answers and
 * min(0, λ) for wrong ones; rewards correct + λ = 1.5, 1, −0.5. GRPO advantages (default estimator: sample std,
 * ε = 1e-6): mean 2/3, Σ(r − mean)² = 25/36 + 4/36 + 49/36 = 13/6, std = √(13/12).
 */
import { afterAll, describe, expect, it } from "vitest";
import type { ScoredResult } from "./helpers.js";
import { createApp } from "../src/server/app.js";
import { createContext } from "../src/server/context.js";
import { resolveOptions } from "../src/server/options.js";
import type { ServerOptions } from "../src/server/options.js";
import { createScorer } from "../src/engine/scorer.js";
import { parseSpec } from "../src/spec/load.js";
import { parseAnySpec } from "../src/spec/routes.js";
import { startServer } from "../src/server/index.js";

const spec = parseSpec(
  `name: kimi
components:
  - name: correct
    type: exact
  - name: len
    type: group-length
    correctness: correct
`,
  "kimi.yaml",
);
const scorer = createScorer(spec, { concurrency: 1 });
afterAll(() => scorer.close());

function server(o: Partial<ServerOptions> = {}) {
  const ctx = createContext(spec, scorer, resolveOptions({ groupWaitMs: 1500, ...o }));
  return { ctx, app: createApp(ctx) };
}

type Result = ScoredResult;

async function post(app: ReturnType<typeof createApp>, rollouts: unknown[], extra: Record<string, unknown> = {}) {
  const res = await app.request("/v1/score", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ rollouts, ...extra }),
  });
  return { res, json: (await res.json()) as { results: Result[]; error?: { code: string; message: string } } };
}

const ROWS: Record<string, { completion: string; n: number }> = {
  a: { completion: "42", n: 2 },
  b: { completion: "42", n: 4 },
  c: { completion: "41", n: 6 },
};
const member = (id: string, o: Record<string, unknown> = {}) => ({
  id,
  group: "g",
  completion: ROWS[id]!.completion,
  reference: "42",
  completion_tokens: ROWS[id]!.n,
  group_size: 3,
  ...o,
});
const STD = Math.sqrt(13 / 12) + 1e-6;
const WHOLE = {
  a: { reward: 1.5, len: 0.5, advantage: (1.5 - 2 / 3) / STD },
  b: { reward: 1, len: 0, advantage: (1 - 2 / 3) / STD },
  c: { reward: -0.5, len: -0.5, advantage: (-0.5 - 2 / 3) / STD },
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function expectWhole(r: Result, id: keyof typeof WHOLE): void {
  expect(r.id).toBe(id);
  expect(r.reward).toBeCloseTo(WHOLE[id].reward, 12);
  expect(r.components!.len!.score).toBeCloseTo(WHOLE[id].len, 12);
  expect(r.advantage).toBeCloseTo(WHOLE[id].advantage, 9);
}

describe("the group barrier", () => {
  it("members in separate concurrent requests, out of order: held until the last arrives, then whole-group values", async () => {
    const { app, ctx } = server();
    const order: string[] = [];
    const send = (id: string) => post(app, [member(id)]).then((x) => (order.push(id), x));
    const c = send("c");
    const a = send("a");
    await sleep(150);
    expect(order).toEqual([]); // nobody answered with two of three
    expect([ctx.groups.groupsWaiting, ctx.groups.membersWaiting]).toEqual([1, 2]);
    const b = send("b");
    const [rc, ra, rb] = await Promise.all([c, a, b]);
    expectWhole(ra.json.results[0]!, "a");
    expectWhole(rb.json.results[0]!, "b");
    expectWhole(rc.json.results[0]!, "c");
    // the same three in one request without group_size: the request's group, the same values
    const { json } = await post(
      app,
      ["a", "b", "c"].map((id) => member(id, { group_size: undefined })),
    );
    json.results.forEach((r, k) => expectWhole(r, (["a", "b", "c"] as const)[k]!));
  });

  it("rollouts without group_size in the same request are not held", async () => {
    const { app } = server();
    const t0 = Date.now();
    const { json } = await post(app, [{ id: "x", group: "solo", completion: "42", reference: "42" }]);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(json.results[0]!.reward).toBe(1); // a group of one: λ = 0
  });

  it("a retried member (same id) counts once: the group needs another id, both copies get the same answer", async () => {
    const { app, ctx } = server();
    const first = post(app, [member("a")]);
    const retry = post(app, [member("a")]);
    const b = post(app, [member("b")]);
    await sleep(150);
    expect(ctx.groups.membersWaiting).toBe(2); // a (once) and b: not complete
    const c = post(app, [member("c")]);
    const [r1, r2, rb, rc] = await Promise.all([first, retry, b, c]);
    expectWhole(r1.json.results[0]!, "a");
    expect(r2.json.results[0]).toEqual(r1.json.results[0]);
    expectWhole(rb.json.results[0]!, "b");
    expectWhole(rc.json.results[0]!, "c");
  });

  it("an id reused with another completion is an error entry, never another sample's reward", async () => {
    const { app } = server();
    const a = post(app, [member("a")]);
    const { json } = await post(app, [member("a", { completion: "43" })]);
    expect(json.results[0]!.error!.message).toContain('id "a" already joined group');
    const [ra] = await Promise.all([a, post(app, [member("b")]), post(app, [member("c")])]);
    expectWhole(ra.json.results[0]!, "a");
  });

  it("a member of a later step with the same group name is another group", async () => {
    const { app } = server({ groupWaitMs: 800 });
    const step1 = Promise.all(["a", "b", "c"].map((id) => post(app, [member(id, { step: 1 })])));
    const later = post(app, [member("a", { step: 2 })]);
    const r1 = await step1;
    r1.forEach((x, k) => expectWhole(x.json.results[0]!, (["a", "b", "c"] as const)[k]!));
    const r2 = (await later).json.results[0]!;
    expect(r2.components!.len!.reason).toBe("partial_group"); // alone at step 2
  });

  it("past --group-wait-ms: the members that arrived get partial_group on the staged component, no advantage", async () => {
    const { app } = server({ groupWaitMs: 600 });
    const t0 = Date.now();
    const [ra, rc] = await Promise.all([post(app, [member("a")]), post(app, [member("c")])]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(550);
    for (const [r, correct] of [
      [ra.json.results[0]!, 1],
      [rc.json.results[0]!, 0],
    ] as const) {
      expect(r.components!.correct).toMatchObject({ score: correct, status: "ok" }); // per-rollout: scored
      expect(r.components!.len).toMatchObject({ score: null, status: "unscorable", reason: "partial_group" });
      expect(r.components!.len!.details).toMatchObject({ group: "g", arrived: 2, group_size: 3 });
      expect(r.advantage).toBeNull();
      expect(r.reward).toBe(correct); // onUnscorable: zero (the default) counts the unscorable λ as 0
    }
  });

  it("more distinct ids of one group in a request than its group_size: error entries at once", async () => {
    const { app } = server();
    const t0 = Date.now();
    const { res, json } = await post(app, [
      ...["a", "b", "c"].map((id) => member(id, { group_size: 2 })),
      { id: "x", group: "solo", completion: "42", reference: "42" },
    ]);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(res.status).toBe(200);
    for (const r of json.results.slice(0, 3))
      expect(r.error).toEqual({
        field: expect.stringMatching(/^rollouts\[\d\]\.group_size$/),
        message: 'oversized group: 3 distinct ids of group "g" in this request, more than its group_size 2',
      });
    expect(json.results[3]!.reward).toBe(1);
  });

  it("a group_size other than the one the group was opened with is an error entry", async () => {
    const { app } = server({ groupWaitMs: 500 });
    const a = post(app, [member("a")]);
    const { json } = await post(app, [member("b", { group_size: 4 })]);
    expect(json.results[0]!.error!.message).toContain("group_size 4 differs from the 3");
    expect((await a).json.results[0]!.components!.len!.reason).toBe("partial_group");
  });

  it("past the waiting bound, a request opening a new group gets 503 with Retry-After; the waiting group's members still get in", async () => {
    const { app, ctx } = server({ groupMaxWaiting: 2 });
    const a = post(app, [member("a")]);
    const b = post(app, [member("b")]);
    await sleep(100);
    const { res, json } = await post(app, [member("a", { group: "other" })]);
    expect(res.status).toBe(503);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(json.error!.message).toContain("2 rollouts");
    expect(ctx.metrics.registry.render()).toContain("rewardkit_group_requests_refused_total 1");
    const [ra, rb, rc] = await Promise.all([a, b, post(app, [member("c")])]);
    expectWhole(ra.json.results[0]!, "a");
    expectWhole(rb.json.results[0]!, "b");
    expectWhole(rc.json.results[0]!, "c");
    const metrics = ctx.metrics.registry.render();
    expect(metrics).toContain('rewardkit_groups_ended_total{outcome="complete"} 1');
    expect(metrics).toContain("rewardkit_group_members_waiting 0");
  });

  it("waiting requests give back their request slots: a group larger than --max-requests still meets", async () => {
    const { app } = server({ maxRequests: 2 });
    const rs = await Promise.all(["a", "b", "c"].map((id, k) => sleep(100 * k).then(() => post(app, [member(id)]))));
    rs.forEach((x, k) => expectWhole(x.json.results[0]!, (["a", "b", "c"] as const)[k]!));
  });

  it("on shutdown the waiting requests get 503 (the client sends them to another replica)", async () => {
    const { app, ctx } = server();
    const a = post(app, [member("a")]);
    await sleep(100);
    ctx.groups.evict("this replica is shutting down; send the group to another replica");
    const { res, json } = await a;
    expect(res.status).toBe(503);
    expect(json.error!.code).toBe("shutting_down");
  });
});

describe("the group barrier on a routed server and over real HTTP", () => {
  it("a route's group meets across requests; the other route's rollouts are not held", async () => {
    const routed = parseAnySpec(
      `name: routed
routes:
  by: data_source
  kimi:
    components:
      - {name: correct, type: exact}
      - {name: len, type: group-length, correctness: correct}
  plain:
    components:
      - {name: exact, type: exact}
`,
      "routed.yaml",
    );
    const srv = await startServer(routed, { port: 0, concurrency: 1, groupWaitMs: 5000 });
    try {
      const send = async (rollouts: unknown[]) => {
        const res = await fetch(`${srv.url}/v1/score`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ rollouts }),
        });
        return ((await res.json()) as { results: Array<Result & { route: string }> }).results;
      };
      const t0 = Date.now();
      const plain = await send([{ id: "p", group: "g", data_source: "plain", completion: "1", reference: "1" }]);
      expect(Date.now() - t0).toBeLessThan(2000);
      expect(plain[0]).toMatchObject({ route: "plain", reward: 1 });
      const rs = await Promise.all(["c", "a", "b"].map((id) => send([member(id, { data_source: "kimi" })])));
      rs.forEach((r, k) => {
        expect(r[0]!.route).toBe("kimi");
        expectWhole(r[0]!, (["c", "a", "b"] as const)[k]!);
      });
    } finally {
      await srv.shutdown();
    }
  });
});

describe("prompt_id on the rollout", () => {
  it("is a string (a number is read as its digits); anything else is an error entry", async () => {
    const { toRollout } = await import("../src/io/rollout.js");
    const one = (v: unknown) => toRollout({ id: "x", group: "g", completion: "1", prompt_id: v }, 1, {});
    expect(one("gsm8k:train:7")).toMatchObject({ rollout: { prompt_id: "gsm8k:train:7" } });
    expect(one(7)).toMatchObject({ rollout: { prompt_id: "7" } });
    expect(one({ a: 1 })).toMatchObject({ problem: { message: "expected a string or number" } });
  });
});

describe("group_size on the rollout", () => {
  it("needs an id: positions would collide over requests", async () => {
    const { app } = server();
    const { json } = await post(app, [{ group: "g", completion: "1", group_size: 2 }]);
    expect(json.results[0]!.error!.field).toBe("rollouts[0].id");
    expect(json.results[0]!.error!.message).toContain("a rollout with group_size needs an id");
  });

  it("must be a positive integer", async () => {
    const { app } = server();
    const { json } = await post(app, [{ id: "x", group: "g", completion: "1", group_size: 0 }]);
    expect(json.results[0]!.error).toEqual({ field: "rollouts[0].group_size", message: "expected a positive integer" });
  });
});
