/**
 * Trainer integration against live servers: the training step on every route (body, header, per rollout; the
 * warning and counter when a scheduled spec gets none), OpenRLHF labels and scores, and each trainer's exact call
 * shape replayed by clients/python/test_trainers.py (TRL, verl, OpenRLHF, verifiers).
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startServer } from "../src/server/index.js";
import type { RunningServer } from "../src/server/index.js";
import { loadSpec } from "../src/spec/load.js";
import { ROOT, runPythonTests, tmp } from "./helpers.js";

const SCHEDULED = `name: trainers
components:
  - name: accuracy
    type: math
    weight: {schedule: piecewise, stages: [{startStep: 0, value: 1}, {startStep: 100, value: 3}]}
  - {name: format, type: think-format, weight: 0}
  - {name: length, type: overlong, maxLength: 4096, bufferLength: 1024, unit: tokens}
`;
const JSON_SPEC = "name: structured\ncomponents:\n  - {name: match, type: json-match}\n";
const JSON_HEADERS = { "content-type": "application/json" };

async function post(
  base: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(base + path, {
    method: "POST",
    headers: { ...JSON_HEADERS, ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function metric(base: string, name: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return text
    .split("\n")
    .filter((l) => l.startsWith(name + "{") || l.startsWith(name + " "))
    .reduce((s, l) => s + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
}

const rewards = (j: Record<string, unknown>): Array<number | null> =>
  (j.results as Array<{ reward: number | null }>).map((r) => r.reward);
const hasPython = spawnSync("python3", ["--version"]).status === 0;
const CHATML = "<|im_start|>user\nWhat is 6*7?<|im_end|>\n<|im_start|>assistant\n";

describe("trainer integration", () => {
  let sched: RunningServer;
  let json: RunningServer;
  let plain: RunningServer;
  beforeAll(async () => {
    const dir = tmp();
    writeFileSync(join(dir, "trainers.yaml"), SCHEDULED);
    writeFileSync(join(dir, "structured.yaml"), JSON_SPEC);
    [sched, json, plain] = await Promise.all([
      startServer(loadSpec(join(dir, "trainers.yaml")), { port: 0, concurrency: 1 }),
      startServer(loadSpec(join(dir, "structured.yaml")), { port: 0, concurrency: 1 }),
      startServer(loadSpec(join(ROOT, "examples/math.yaml")), { port: 0, concurrency: 1 }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([sched?.shutdown(), json?.shutdown(), plain?.shutdown()]);
  });

  it("/v1/score: the step comes from a rollout's step, else the body's step, else the X-Rewardkit-Step header", async () => {
    const r = (extra: Record<string, unknown> = {}) => ({
      group: "g",
      completion: "\\boxed{42}",
      reference: "42",
      ...extra,
    });
    expect(
      rewards((await post(sched.url, "/v1/score", { rollouts: [r()] }, { "X-Rewardkit-Step": "100" })).json),
    ).toEqual([3]);
    expect(
      rewards((await post(sched.url, "/v1/score", { rollouts: [r()] }, { "x-rewardkit-step": "99" })).json),
    ).toEqual([1]);
    expect(
      rewards((await post(sched.url, "/v1/score", { rollouts: [r()], step: 100 }, { "X-Rewardkit-Step": "5" })).json),
    ).toEqual([3]);
    expect(rewards((await post(sched.url, "/v1/score", { rollouts: [r({ step: 7 }), r()], step: 100 })).json)).toEqual([
      1, 3,
    ]);
    const bad = await post(sched.url, "/v1/score", { rollouts: [r()] }, { "X-Rewardkit-Step": "-1" });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.json)).toContain("X-Rewardkit-Step header: expected a non-negative integer");
    expect((await post(sched.url, "/v1/score", { rollouts: [r()], step: 1.5 })).status).toBe(400);
  });

  it("a scheduled spec without a step: each such request is counted", async () => {
    const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true); // the once-only warning (unit-tested in step.test.ts)
    try {
      const before = await metric(sched.url, "rewardkit_requests_without_step_total");
      const body = {
        rollouts: [
          { group: "g", completion: "\\boxed{42}", reference: "42" },
          { group: "g", completion: "x", reference: "42", step: 100 },
        ],
      };
      expect(rewards((await post(sched.url, "/v1/score", body)).json)).toEqual([1, 0]);
      await post(sched.url, "/get_reward", {
        query: [CHATML + "\\boxed{42}<|im_end|>"],
        prompts: [CHATML],
        labels: ["42"],
      });
      // a request whose every rollout has a step is not counted
      await post(sched.url, "/v1/score", { rollouts: [{ group: "g", completion: "x", step: 3 }] });
      expect((await metric(sched.url, "rewardkit_requests_without_step_total")) - before).toBe(2);
      const text = await (await fetch(`${sched.url}/metrics`)).text();
      expect(text).toMatch(/^rewardkit_requests_without_step_total\{route="\/get_reward"\} \d+$/m);
      // a spec without schedules never counts
      await post(plain.url, "/v1/score", { rollouts: [{ group: "g", completion: "x" }] });
      expect(await metric(plain.url, "rewardkit_requests_without_step_total")).toBe(0);
    } finally {
      write.mockRestore();
    }
  });

  it("/get_reward: step field or header moves the schedule; scores are accuracy's pass, in [0, 1]", async () => {
    const q = [CHATML + "\\boxed{42}<|im_end|>", CHATML + "\\boxed{41}<|im_end|>"];
    const a = await post(sched.url, "/get_reward", {
      query: q,
      prompts: [CHATML, CHATML],
      labels: ["42", "42"],
      step: 100,
    });
    expect(a.json.rewards).toEqual([3, 0]);
    expect(a.json.scores).toEqual([1, 0]);
    const b = await post(
      sched.url,
      "/get_reward",
      { query: q, prompts: [CHATML, CHATML], labels: ["42", "42"] },
      { "X-Rewardkit-Step": "100" },
    );
    expect(b.json.rewards).toEqual([3, 0]);
    const c = await post(sched.url, "/get_reward", {
      query: q,
      prompts: [CHATML, CHATML],
      labels: ["42", "42"],
      step: "100",
    });
    expect(c.status).toBe(400);
  });

  it("/get_reward: labels of any JSON type; JSON-string objects and lists decoded; a math interval string kept", async () => {
    const right = '{"city": "Paris", "n": 3}';
    for (const label of [{ city: "Paris", n: 3 }, JSON.stringify({ city: "Paris", n: 3 })]) {
      const j = (
        await post(json.url, "/get_reward", {
          query: [CHATML + right + "<|im_end|>", CHATML + '{"city": "Rome"}<|im_end|>'],
          prompts: [CHATML, CHATML],
          labels: [label, label],
        })
      ).json;
      expect((j.rewards as number[])[0]).toBe(1);
      expect((j.rewards as number[])[1]).toBeLessThan(0.5);
    }
    const m = (completion: string, label: unknown) =>
      post(sched.url, "/get_reward", {
        query: [CHATML + completion + "<|im_end|>"],
        prompts: [CHATML],
        labels: [label],
        step: 0,
      });
    expect((await m("\\boxed{42}", 42)).json.rewards).toEqual([1]);
    expect((await m("\\boxed{42}", ["41", "42"])).json.rewards).toEqual([1]);
    expect((await m("\\boxed{42}", '["41", "42"]')).json.rewards).toEqual([1]);
    expect((await m("\\boxed{[-2, 7]}", "[-2, 7]")).json.rewards).toEqual([1]);
    expect((await m("\\boxed{7}", "[-2, 7]")).json.rewards).toEqual([0]); // an interval, not "-2 or 7"
  });

  it.skipIf(!hasPython)(
    "each trainer's call shape (clients/python/test_trainers.py: TRL, verl, OpenRLHF, verifiers)",
    async () => {
      const r = await runPythonTests("test_trainers.py", {
        REWARDKIT_URL: sched.url,
        REWARDKIT_JSON_URL: json.url,
        REWARDKIT_TOKEN: "",
      });
      expect(r.out).toMatch(/Ran \d+ tests/);
      expect(r.code, r.out).toBe(0);
    },
  );

  it.skipIf(!hasPython)("the Python client raises within 5 s, naming the URL, when no server listens", () => {
    const py = [
      "import sys, time; sys.path.insert(0, 'clients/python'); import rewardkit_client as rk",
      "t = time.monotonic()",
      "try:\n    rk.compute_score('math', '\\\\boxed{1}', '1')\nexcept rk.RewardkitUnreachable as e:\n    print('%.2f' % (time.monotonic() - t)); print(e)",
    ].join("\n");
    const r = spawnSync("python3", ["-c", py], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, REWARDKIT_URL: "http://127.0.0.1:9" },
      timeout: 30_000,
    });
    const [secs, message] = r.stdout.trim().split("\n");
    expect(Number(secs), r.stdout + r.stderr).toBeLessThan(5);
    expect(message).toContain("http://127.0.0.1:9");
    expect(message).toContain("Connection refused");
  });
});
