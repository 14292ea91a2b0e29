/**
 * The reward server over real HTTP on 127.0.0.1 (random ports): both protocols, auth, limits, malformed JSON,
 * deadlines, metrics, graceful shutdown of the CLI process, and the Python client against a live server.
 */
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startServer } from "../src/server/index.js";
import type { RunningServer } from "../src/server/index.js";
import { loadSpec } from "../src/spec/load.js";
import { ROOT, runPythonTests, tmp } from "./helpers.js";
import type { ScoredResult } from "./helpers.js";

const TOKEN = "test-token";
const AUTH = { Authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };

type Result = ScoredResult;

async function post(
  base: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = AUTH,
): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(base + path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {}, headers: res.headers };
}

/** A spec whose one component backtracks catastrophically: every rollout runs until its 300 ms deadline. */
function slowSpec(dir: string): string {
  const path = join(dir, "slow.yaml");
  writeFileSync(
    path,
    'name: slow\ncomponents:\n  - name: slow\n    type: regex\n    pattern: "^(a+)+$"\n    timeoutMs: 300\n',
  );
  return path;
}
const SLOW = "a".repeat(40) + "b";

/** Waits until the server reports `depth` rollouts admitted (so timing-sensitive steps do not race the load). */
async function queueDepth(base: string, depth: number, headers: Record<string, string> = {}): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const text = await (await fetch(`${base}/metrics`, { headers })).text();
    if (new RegExp(`^rewardkit_queue_depth ${depth}$`, "m").test(text)) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`queue depth never reached ${depth}`);
}

const hasPython = spawnSync("python3", ["--version"]).status === 0;

describe("reward server, math spec", () => {
  let srv: RunningServer;
  let base: string;
  beforeAll(async () => {
    srv = await startServer(loadSpec(join(ROOT, "examples/math.yaml")), { port: 0, token: TOKEN, concurrency: 1 });
    base = srv.url;
  });
  afterAll(async () => {
    await srv.shutdown();
  });

  it("binds loopback; /healthz is open, every other route needs the bearer token", async () => {
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const h = await fetch(`${base}/healthz`);
    expect(h.status).toBe(200);
    expect(((await h.json()) as { status: string }).status).toBe("ok");
    for (const [path, method] of [
      ["/v1/spec", "GET"],
      ["/metrics", "GET"],
      ["/v1/score", "POST"],
      ["/get_reward", "POST"],
      ["/v1/advantages", "POST"],
      ["/nope", "GET"],
    ] as const) {
      const none = await fetch(base + path, { method, body: method === "POST" ? "{}" : undefined });
      expect(none.status, path).toBe(401);
      expect(none.headers.get("www-authenticate")).toContain("Bearer");
      const wrong = await fetch(base + path, {
        method,
        headers: { Authorization: "Bearer nope" },
        body: method === "POST" ? "{}" : undefined,
      });
      expect(wrong.status, path).toBe(401);
      expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
    }
    const spec = await fetch(`${base}/v1/spec`, { headers: AUTH });
    const s = (await spec.json()) as {
      name: string;
      hash: string;
      components: string[];
      limits: { max_rollouts: number };
    };
    expect(s.name).toBe("math-rlvr");
    expect(s.hash).toMatch(/^[0-9a-f]{16}$/);
    expect(s.components).toEqual(["accuracy", "format", "overlong"]);
    expect(s.limits.max_rollouts).toBe(4096);
  });

  it("POST /v1/score: results in request order, components, GRPO advantages over the request's groups, error entries for bad rollouts", async () => {
    const rollouts = [
      { id: "a", group: "g", prompt: "6*7?", completion: "So \\boxed{42}.", reference: "42" },
      { id: "b", group: "g", prompt: "6*7?", completion: "\\boxed{41}", reference: "42" },
      { group: "g", completion: "no idea", reference: "42" },
      { id: "bad", group: "g" },
      "not an object",
      {
        id: 7,
        prompt: "other",
        completion: [
          { role: "user", content: "q" },
          { role: "assistant", content: "\\boxed{42}" },
        ],
        reference: "42",
      },
    ];
    const r = await post(base, "/v1/score", { rollouts, step: 3 });
    expect(r.status).toBe(200);
    const results = r.json.results as Result[];
    expect(results.map((x) => x.id)).toEqual(["a", "b", "2", "bad", "4", "7"]);
    expect(r.json.spec).toEqual({ name: "math-rlvr", hash: srv.context.spec.hash });
    expect(typeof r.json.timing_ms).toBe("number");
    const [a, b, c, bad, notObj, chat] = results as [Result, Result, Result, Result, Result, Result];
    expect(a.reward).toBe(1);
    expect(b.reward).toBe(0);
    expect(Object.keys(a.components!)).toEqual(["accuracy", "format", "overlong"]);
    expect(b.components!.accuracy).toMatchObject({ score: 0, status: "ok", reason: "wrong_answer" });
    expect(c.components!.accuracy).toMatchObject({ score: null, status: "unscorable", reason: "no_answer" });
    // GRPO (verl): rewards 1, 0, 0 in group g → mean 1/3, unbiased std √(1/3)
    const std = Math.sqrt(1 / 3);
    expect(a.advantage).toBeCloseTo((1 - 1 / 3) / (std + 1e-6), 9);
    expect(b.advantage).toBeCloseTo(-1 / 3 / (std + 1e-6), 9);
    expect(bad).toMatchObject({
      reward: null,
      components: null,
      advantage: null,
      error: { field: "rollouts[3].completion", message: "missing" },
    });
    expect(notObj.error!.message).toContain("JSON object");
    expect(chat.reward).toBe(1);
    expect(chat.advantage).toBe(0); // a singleton group
  });

  it("details: false drops per-component details", async () => {
    const r = await post(base, "/v1/score", {
      rollouts: [{ id: "a", group: "g", completion: "\\boxed{42}", reference: "42" }],
      details: false,
    });
    const comp = (r.json.results as Result[])[0]!.components!;
    for (const c of Object.values(comp)) expect(c.details).toBeUndefined();
  });

  it("malformed JSON and wrong envelopes get 400 with a message naming the problem", async () => {
    const bad = await post(base, "/v1/score", '{"rollouts": [');
    expect(bad.status).toBe(400);
    expect((bad.json.error as { code: string; message: string }).code).toBe("bad_json");
    expect((bad.json.error as { message: string }).message).toMatch(/malformed JSON in request body: .+/);
    const cases: Array<[unknown, RegExp]> = [
      [[1, 2], /expected a JSON object/],
      [{ rollouts: 3 }, /rollouts: expected an array/],
      [{}, /rollouts: expected an array, got nothing/],
      [{ rollouts: [], step: -1 }, /step: expected a non-negative integer/],
    ];
    for (const [body, msg] of cases) {
      const r = await post(base, "/v1/score", body);
      expect(r.status).toBe(400);
      expect((r.json.error as { message: string }).message).toMatch(msg);
    }
    const empty = await post(base, "/get_reward", "");
    expect(empty.status).toBe(400);
    const orl = await post(base, "/get_reward", { query: ["a", "b"], prompts: ["a"] });
    expect(orl.status).toBe(400);
    expect((orl.json.error as { message: string }).message).toContain(
      "prompts: expected an array of the same length as query (2)",
    );
  });

  it("POST /get_reward (OpenRLHF): strips the prompt and end-of-turn tokens, labels become references", async () => {
    const qwenPrompt = "<|im_start|>user\nWhat is 6*7?<|im_end|>\n<|im_start|>assistant\n";
    const llamaPrompt =
      "<|start_header_id|>user<|end_header_id|>\n\nWhat is 6*7?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n";
    const body = {
      query: [
        qwenPrompt + "So the answer is \\boxed{42}.<|im_end|>",
        qwenPrompt + "I think \\boxed{41}.<|im_end|><|endoftext|><|endoftext|>",
        "<|begin_of_text|>" + llamaPrompt + "<think>6*7=42</think> \\boxed{42}<|eot_id|>",
        "<|endoftext|>" + qwenPrompt + "nothing here<|im_end|>",
      ],
      prompts: [qwenPrompt, qwenPrompt, llamaPrompt, qwenPrompt],
      labels: ["42", "42", "42", null],
    };
    const r = await post(base, "/get_reward", body);
    expect(r.status).toBe(200);
    const j = r.json as { rewards: number[]; scores: number[]; extra_logs: Record<string, number[]> };
    expect(j.rewards).toEqual([1, 0, 1, 0]);
    expect(j.scores).toEqual(j.rewards);
    expect(Object.keys(j.extra_logs)).toEqual([
      "accuracy",
      "accuracy_unscorable",
      "format",
      "format_unscorable",
      "overlong",
      "overlong_unscorable",
    ]);
    expect(j.extra_logs.accuracy).toEqual([1, 0, 1, 0]);
    expect(j.extra_logs.accuracy_unscorable).toEqual([0, 0, 0, 1]); // no label → no_reference
    expect(j.extra_logs.format).toEqual([0, 0, 1, 0]); // "<think>…</think> answer" after stripping
  });

  it("POST /get_reward with the raw question in prompts: the response starts after the assistant header (ChatML, Llama 3, no template)", async () => {
    const body = {
      query: [
        "<|im_start|>user\nHalf?<|im_end|>\n<|im_start|>assistant\n\\boxed{0.5}<|im_end|>",
        "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHalf?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n\\boxed{0.5}<|eot_id|>",
        "Half? The answer is \\boxed{0.5}</s>",
        "<|im_start|>user\nHalf?<|im_end|>\n<|im_start|>assistant\n\\boxed{0.4}<|im_end|>",
      ],
      prompts: ["Half?", "Half?", "Half?", "Half?"],
      labels: ["0.5", "0.5", "0.5", "0.5"],
    };
    const r = await post(base, "/get_reward", body);
    expect(r.status).toBe(200);
    const j = r.json as { rewards: number[]; extra_logs: Record<string, number[]> };
    expect(j.rewards).toEqual([1, 1, 1, 0]);
    expect(j.extra_logs.accuracy_unscorable).toEqual([0, 0, 0, 0]);
  });

  it("POST /get_reward: a response that recovers empty is counted in /metrics and logged once per request, rate-limited", async () => {
    const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      const qwenPrompt = "<|im_start|>user\nWhat is 6*7?<|im_end|>\n<|im_start|>assistant\n";
      const body = {
        query: [qwenPrompt + "<|im_end|>", qwenPrompt + "\\boxed{42}<|im_end|>", qwenPrompt + "  <|im_end|>"],
        prompts: [qwenPrompt, qwenPrompt, qwenPrompt],
        labels: ["42", "42", "42"],
      };
      const first = await post(base, "/get_reward", body);
      expect(first.status).toBe(200);
      expect((first.json as { rewards: number[] }).rewards).toEqual([0, 1, 0]);
      expect((await post(base, "/get_reward", body)).status).toBe(200); // within the interval: counted, not logged
      const lines = write.mock.calls.map((c) => String(c[0])).filter((l) => l.includes("/get_reward:"));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^rewardkit serve: \/get_reward: 2 of 3 responses recovered empty from query \(first: query\[0\], located by prompt\)/,
      );
    } finally {
      write.mockRestore();
    }
    const text = await (await fetch(`${base}/metrics`, { headers: AUTH })).text();
    expect(text).toMatch(/^# TYPE rewardkit_openrlhf_empty_response_total counter$/m);
    expect(text).toMatch(/^rewardkit_openrlhf_empty_response_total\{located_by="prompt"\} 4$/m);
  });

  it("POST /v1/advantages: the spec's estimator or a named one with a preset; bad rewards get error entries", async () => {
    const rollouts = [
      { id: "a", group: "g", reward: 1 },
      { id: "b", group: "g", reward: 0 },
      { id: "c", group: "g", reward: "high" },
      { id: "d", group: "h", reward: null },
    ];
    const r = await post(base, "/v1/advantages", { rollouts, estimator: "grpo", preset: "trl" });
    expect(r.status).toBe(200);
    const res = r.json.results as Array<{ id: string; advantage: number | null; error?: { field: string } }>;
    expect(res.map((x) => x.id)).toEqual(["a", "b", "c", "d"]);
    expect(res[0]!.advantage).toBeCloseTo(0.5 / (Math.SQRT1_2 + 1e-4), 12);
    expect(res[2]!.error!.field).toBe("rollouts[2].reward");
    expect(res[3]!.advantage).toBeNull();
    expect((r.json.estimator as { options: { epsilon: number } }).options.epsilon).toBe(1e-4);
    const dflt = await post(base, "/v1/advantages", { rollouts: rollouts.slice(0, 2) });
    expect((dflt.json.results as Array<{ advantage: number }>)[0]!.advantage).toBeCloseTo(
      0.5 / (Math.SQRT1_2 + 1e-6),
      12,
    );
    const unknown = await post(base, "/v1/advantages", { rollouts, estimator: "nope" });
    expect(unknown.status).toBe(400);
    expect((unknown.json.error as { message: string }).message).toContain("known: ");
  });

  it("GET /metrics speaks Prometheus text: requests, latency histogram, rollouts, unscorable by component and reason, queue, cache", async () => {
    const once = { rollouts: [{ id: "x", group: "g", completion: "\\boxed{12}", reference: "12" }] };
    await post(base, "/v1/score", once);
    await post(base, "/v1/score", once); // second time: every verdict from the cache
    const res = await fetch(`${base}/metrics`, { headers: AUTH });
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    for (const name of [
      "rewardkit_requests_total",
      "rewardkit_request_duration_seconds",
      "rewardkit_rollouts_scored_total",
      "rewardkit_unscorable_total",
      "rewardkit_queue_depth",
      "rewardkit_cache_hit_ratio",
    ]) {
      expect(text).toMatch(new RegExp(`^# TYPE ${name} `, "m"));
    }
    expect(text).toMatch(/^rewardkit_requests_total\{route="\/v1\/score",code="200"\} \d+$/m);
    expect(text).toMatch(/^rewardkit_request_duration_seconds_bucket\{route="\/v1\/score",le="\+Inf"\} \d+$/m);
    expect(text).toMatch(/^rewardkit_unscorable_total\{component="accuracy",reason="no_answer"\} \d+$/m);
    expect(text).toMatch(/^rewardkit_queue_depth 0$/m);
    const ratio = Number(/^rewardkit_cache_hit_ratio (\S+)$/m.exec(text)![1]);
    expect(ratio).toBeGreaterThan(0);
    // every sample line is `name{labels} value`
    for (const line of text.trim().split("\n"))
      if (!line.startsWith("#")) expect(line).toMatch(/^[a-z_:][a-z0-9_:]*(\{[^}]*\})? \S+$/);
  });

  it.skipIf(!hasPython)(
    "Python client: clients/python/test_client.py passes against this server (verl, TRL, verifiers shims; retries; auth)",
    async () => {
      const r = await runPythonTests("test_client.py", { REWARDKIT_URL: base, REWARDKIT_TOKEN: TOKEN });
      expect(r.out).toMatch(/Ran \d+ tests/);
      expect(r.code, r.out).toBe(0);
    },
  );
});

describe("reward server limits", () => {
  let srv: RunningServer;
  let base: string;
  beforeAll(async () => {
    const spec = loadSpec(slowSpec(tmp()));
    srv = await startServer(spec, {
      port: 0,
      concurrency: 1,
      maxRollouts: 4,
      maxQueue: 8,
      maxBodyBytes: 4000,
      rolloutTimeoutMs: 700,
    });
    base = srv.url;
  });
  afterAll(async () => {
    await srv.shutdown();
  });

  it("413 past the body size and the rollouts per request", async () => {
    const big = await post(
      base,
      "/v1/score",
      { rollouts: [{ id: "a", group: "g", completion: "x".repeat(5000) }] },
      { "content-type": "application/json" },
    );
    expect(big.status).toBe(413);
    expect((big.json.error as { code: string }).code).toBe("too_large");
    // chunked (no content-length): counted while streaming
    const chunks = [
      new TextEncoder().encode('{"rollouts": [{"id": "a", "group": "g", "completion": "'),
      new TextEncoder().encode("y".repeat(5000) + '"}]}'),
    ];
    const stream = new ReadableStream<Uint8Array>({
      pull: (ctl) => (chunks.length ? ctl.enqueue(chunks.shift()!) : ctl.close()),
    });
    const chunked = await fetch(`${base}/v1/score`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: stream,
      duplex: "half",
    });
    expect(chunked.status).toBe(413);
    const many = await post(
      base,
      "/v1/score",
      { rollouts: Array.from({ length: 5 }, (_, i) => ({ id: i, group: "g", completion: "x" })) },
      {},
    );
    expect(many.status).toBe(413);
    expect((many.json.error as { message: string }).message).toContain("5 exceeds the limit of 4");
  });

  it("a full queue answers 429 with Retry-After; the per-rollout deadline answers unscorable timeouts, never hangs", async () => {
    const slow = (p: string) => ({
      rollouts: Array.from({ length: 4 }, (_, i) => ({ id: `${p}${i}`, group: "g", completion: SLOW })),
    });
    const first = post(base, "/v1/score", slow("a"), {});
    const second = post(base, "/v1/score", slow("b"), {});
    await queueDepth(base, 8);
    const third = await post(base, "/v1/score", slow("c"), {});
    expect(third.status).toBe(429);
    expect(Number(third.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((third.json.error as { code: string }).code).toBe("overloaded");
    const [r1, r2] = await Promise.all([first, second]);
    for (const r of [r1, r2]) {
      expect(r.status).toBe(200);
      for (const x of r.json.results as Result[])
        expect(x.components!.slow).toMatchObject({ score: null, status: "unscorable", reason: "timeout" });
    }
    // the first rollout hit its component deadline (300 ms); the queued ones hit the rollout deadline (700 ms)
    const details = (r2.json.results as Result[]).map((x) => x.components!.slow!.details);
    expect(details).toContainEqual({ deadline: "rollout", timeoutMs: 700 });
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/^rewardkit_requests_total\{route="\/v1\/score",code="429"\} 1$/m);
    expect(metrics).toMatch(/^rewardkit_rollout_deadline_exceeded_total [1-9]\d*$/m);
    expect(metrics).toMatch(/^rewardkit_unscorable_total\{component="slow",reason="timeout"\} 8$/m);
  });
});

describe("rewardkit serve (CLI process)", () => {
  function startCli(
    args: string[],
    env: Record<string, string> = {},
  ): Promise<{ child: ReturnType<typeof spawn>; port: number; stderr: () => string }> {
    const child = spawn(process.execPath, [join(ROOT, "bin/rewardkit.js"), "serve", "--port", "0", ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let err = "";
    return new Promise((resolve, reject) => {
      child.stderr.on("data", (d: Buffer) => {
        err += d.toString();
        const m = /on http:\/\/127\.0\.0\.1:(\d+)/.exec(err);
        if (m) resolve({ child, port: Number(m[1]), stderr: () => err });
      });
      child.once("exit", (code) => reject(new Error(`serve exited ${code}: ${err}`)));
    });
  }

  it("takes the token from REWARDKIT_TOKEN; SIGTERM drains in-flight work, refuses new connections, then exits 0", async () => {
    const { child, port, stderr } = await startCli(["--spec", slowSpec(tmp()), "-j", "1"], {
      REWARDKIT_TOKEN: "env-token",
    });
    const base = `http://127.0.0.1:${port}`;
    const auth = { Authorization: "Bearer env-token" };
    expect((await fetch(`${base}/v1/spec`)).status).toBe(401);
    expect((await fetch(`${base}/v1/spec`, { headers: auth })).status).toBe(200);
    const inflight = post(
      base,
      "/v1/score",
      { rollouts: [0, 1].map((i) => ({ id: `s${i}`, group: "g", completion: SLOW })) },
      auth,
    );
    await queueDepth(base, 2, auth);
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    const r = await inflight;
    expect(r.status).toBe(200);
    expect((r.json.results as Result[]).map((x) => x.id)).toEqual(["s0", "s1"]);
    expect(await exited).toBe(0);
    expect(stderr()).toContain("SIGTERM: draining");
    expect(stderr()).toContain("drained, exiting");
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  });

  it("--config: settings from a YAML file, its spec path relative to the file's folder, flags win; a bad key exits 1", async () => {
    const dir = tmp();
    writeFileSync(
      join(dir, "spec.yaml"),
      readFileSync(join(ROOT, "examples/math.yaml"), "utf8").replace(/^name: .*$/m, "name: from-config"),
    );
    writeFileSync(join(dir, "server.yaml"), "spec: spec.yaml\nmaxQueue: 77\nport: 1\n"); // --port 0 (a flag) wins
    const { child, port } = await startCli(["--config", join(dir, "server.yaml"), "-j", "1"]);
    try {
      const spec = (await (await fetch(`http://127.0.0.1:${port}/v1/spec`)).json()) as {
        name: string;
        limits: { max_queue: number };
      };
      expect(spec.name).toBe("from-config");
      expect(spec.limits.max_queue).toBe(77);
    } finally {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    }
    writeFileSync(join(dir, "bad.yaml"), "spec: spec.yaml\nmaxQeue: 1\n");
    const bad = spawnSync(
      process.execPath,
      [join(ROOT, "bin/rewardkit.js"), "serve", "--config", join(dir, "bad.yaml")],
      {
        cwd: ROOT,
        encoding: "utf8",
      },
    );
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain(`--config ${join(dir, "bad.yaml")}`);
    expect(bad.stderr).toContain("maxQeue");
  });

  it("a spec that does not load exits 1 naming the file", () => {
    const bad = spawnSync(process.execPath, [join(ROOT, "bin/rewardkit.js"), "serve", "--spec", "examples/nope.yaml"], {
      cwd: ROOT,
      encoding: "utf8",
    });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("nope.yaml");
  });

  it("a --cache-size that is not a non-negative integer exits 1 (it used to disable the cache silently)", () => {
    for (const v of ["abc", "-1", "1.5"]) {
      const bad = spawnSync(
        process.execPath,
        [join(ROOT, "bin/rewardkit.js"), "serve", "--spec", "examples/math.yaml", "--cache-size", v],
        { cwd: ROOT, encoding: "utf8" },
      );
      expect(bad.status).toBe(1);
      expect(bad.stderr).toContain(
        `option '--cache-size <n>' argument '${v}' is invalid. expected a non-negative integer`,
      );
    }
  });
});

describe("reward server, group-stage components", () => {
  let srv: RunningServer;
  beforeAll(async () => {
    const path = join(tmp(), "kimi.yaml");
    writeFileSync(
      path,
      "components:\n  - {name: acc, type: exact}\n  - {name: len, type: group-length, correctness: acc, unit: chars}\n",
    );
    srv = await startServer(loadSpec(path), { port: 0, token: TOKEN, concurrency: 1 });
  });
  afterAll(async () => {
    await srv.shutdown();
  });

  it("POST /v1/score: group-length is scored over each group of the request (Kimi k1.5)", async () => {
    const rollouts = [
      { id: "a", group: "g", completion: "x".repeat(10), reference: "x".repeat(10) },
      { id: "z", group: "other", completion: "y", reference: "y" },
      { id: "b", group: "g", completion: "x".repeat(20), reference: "x".repeat(20) },
      { id: "c", group: "g", completion: "x".repeat(30), reference: "no" },
    ];
    const r = await post(srv.url, "/v1/score", { rollouts });
    const results = r.json.results as Result[];
    expect(results.map((x) => x.components!.len!.score)).toEqual([0.5, 0, 0, -0.5]);
    expect(results.map((x) => x.reward)).toEqual([1.5, 1, 1, -0.5]);
  });
});
