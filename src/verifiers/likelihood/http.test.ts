import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Rollout } from "../../core/types.js";
import { likelihoodVerifier } from "./index.js";
import { parseEcho, referenceSpan } from "./http.js";

/**
 * A stub OpenAI-compatible completions server on 127.0.0.1 (random port). Its "tokenizer" splits the prompt into
 * runs of optional whitespace + non-whitespace; token k's log-prob is −(its length)/10, the first token has none.
 */
const tokenize = (s: string): string[] => s.match(/\s*\S+|\s+$/g) ?? [];
const lpOf = (t: string): number => -t.length / 10;
const bodies: Array<{ path: string; body: Record<string, unknown>; auth?: string }> = [];
let base = "";
const server = createServer((req, res) => {
  let data = "";
  req.on("data", (c) => (data += c));
  req.on("end", () => {
    const path = req.url ?? "";
    const body = JSON.parse(data || "{}") as Record<string, unknown>;
    bodies.push({ path, body, ...(req.headers.authorization ? { auth: req.headers.authorization } : {}) });
    const toks = tokenize(typeof body.prompt === "string" ? body.prompt : "");
    const send = (code: number, payload: unknown) => {
      res.writeHead(code, { "content-type": "application/json" });
      res.end(typeof payload === "string" ? payload : JSON.stringify(payload));
    };
    if (path === "/vllm/v1/completions" || path === "/mismatch/v1/completions") {
      const shout = path.startsWith("/mismatch"); // decodes differently from the text sent
      const prompt_logprobs = toks.map((t, k) =>
        k === 0 ? null : { [String(1000 + k)]: { logprob: lpOf(t), rank: 1, decoded_token: shout ? `${t}~` : t } },
      );
      return send(200, {
        id: "cmpl-1",
        object: "text_completion",
        model: body.model,
        choices: [{ index: 0, text: " x", logprobs: null, finish_reason: "length", prompt_logprobs }],
        usage: { prompt_tokens: toks.length, completion_tokens: 1, total_tokens: toks.length + 1 },
      });
    }
    if (path === "/echo/v1/completions") {
      const gen = Array.from({ length: Number(body.max_tokens ?? 0) }, () => " gen");
      const all = [...toks, ...gen];
      let off = 0;
      const text_offset = all.map((t) => ((off += t.length), off - t.length));
      return send(200, {
        choices: [
          {
            index: 0,
            text: all.join(""),
            finish_reason: "length",
            logprobs: {
              tokens: all,
              token_logprobs: all.map((t, k) => (k === 0 ? null : lpOf(t))),
              text_offset,
              top_logprobs: null,
            },
          },
        ],
        usage: { prompt_tokens: toks.length, completion_tokens: gen.length, total_tokens: all.length },
      });
    }
    if (path === "/auth/v1/completions") {
      if (req.headers.authorization !== "Bearer s3cret") return send(401, { error: { message: "unauthorized" } });
      return send(200, {
        choices: [
          { prompt_logprobs: toks.map((t, k) => (k === 0 ? null : { "7": { logprob: lpOf(t), decoded_token: t } })) },
        ],
      });
    }
    if (path === "/error/v1/completions")
      return send(500, { object: "error", message: "CUDA out of memory", code: 500 });
    if (path === "/badjson/v1/completions") return send(200, "<html>proxy error</html>");
    if (path === "/wrongshape/v1/completions") return send(200, { choices: [{ text: "ok" }] });
    if (path === "/slow/v1/completions") return void setTimeout(() => send(200, { choices: [] }), 3000);
    send(404, { error: "no route" });
  });
});

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

async function score(route: string, opts: Record<string, unknown> = {}, rollout: Partial<Rollout> = {}) {
  const o = likelihoodVerifier.options.parse({
    form: "logprob",
    source: "http",
    url: `${base}/${route}/v1/completions`,
    model: "stub",
    ...opts,
  });
  const fn = likelihoodVerifier.create(o);
  const r = {
    id: "a",
    group: "g",
    prompt: "Q: 6*7?\nA:",
    completion: " because 6 * 7 = ",
    reference: "42",
    ...rollout,
  } as Rollout;
  return fn({ completion: r.completion as string, reference: r.reference, rollout: r });
}

describe("likelihood over HTTP (vLLM prompt_logprobs)", () => {
  it("sends prompt + reasoning + reference and takes the reference's tokens from the end", async () => {
    bodies.length = 0;
    const r = await score("vllm");
    expect(r).toMatchObject({ status: "ok", details: { tokens: 1 } });
    expect(r.score).toBeCloseTo(-0.3, 14); // token " 42"
    expect(bodies[0]!.body).toEqual({
      model: "stub",
      prompt: "Q: 6*7?\nA: because 6 * 7 = 42",
      temperature: 0,
      max_tokens: 1,
      prompt_logprobs: 0,
    });
  });

  it("covers a multi-token reference; mean-prob and seq-prob from the same tokens", async () => {
    const rollout = { reference: " the answer is 42", completion: " because 6 * 7 = 42, so" };
    const lp = [" the", " answer", " is", " 42"].map(lpOf);
    expect((await score("vllm", {}, rollout)).score).toBeCloseTo(
      lp.reduce((a, b) => a + b),
      14,
    );
    expect((await score("vllm", { form: "mean-prob" }, rollout)).score).toBeCloseTo(
      lp.reduce((a, b) => a + Math.exp(b), 0) / 4,
      14,
    );
    expect((await score("vllm", { form: "seq-prob" }, rollout)).score).toBeCloseTo(
      Math.exp(lp.reduce((a, b) => a + b)),
      14,
    );
  });

  it("applies the template and the cut marker; debiasing makes a second request without reasoning", async () => {
    bodies.length = 0;
    const r = await score(
      "vllm",
      { template: "<user>{prompt}</user>{reasoning}", cutMarker: "<answer>", debias: true, form: "mean-logprob" },
      { completion: "<think>6 * 7</think><answer>41</answer>" },
    );
    const prompts = bodies.map((b) => b.body.prompt).sort();
    expect(prompts).toEqual([
      "<user>Q: 6*7?\nA:</user><answer>42",
      "<user>Q: 6*7?\nA:</user><think>6 * 7</think><answer>42",
    ]);
    // the stub tokenizes "...</user><answer>42" and "...</think><answer>42" as one last token each: the straddling
    // token carries the reference (documented), so the values differ only by that token's length
    const withR = lpOf("7</think><answer>42");
    const without = lpOf("A:</user><answer>42");
    expect(r.score).toBeCloseTo(withR - without, 14);
    expect(r.details).toMatchObject({ cutFound: true });
  });

  it("sends a bearer token from the named environment variable", async () => {
    process.env.RK_TEST_LOGPROB_KEY = "s3cret";
    try {
      expect((await score("auth", { apiKeyEnv: "RK_TEST_LOGPROB_KEY" })).score).toBeCloseTo(-0.3, 14);
      expect(await score("auth")).toMatchObject({
        status: "unscorable",
        reason: "logprob_error",
        details: { error: expect.stringMatching(/^HTTP 401/) },
      });
    } finally {
      delete process.env.RK_TEST_LOGPROB_KEY;
    }
  });
});

describe("likelihood over HTTP (echo + logprobs)", () => {
  it("uses max_tokens 0 and reads the echoed prompt tokens", async () => {
    bodies.length = 0;
    const r = await score("echo", { api: "echo" });
    expect(r.score).toBeCloseTo(-0.3, 14);
    expect(bodies[0]!.body).toMatchObject({ max_tokens: 0, echo: true, logprobs: 1 });
  });
  it("drops generated tokens when max_tokens > 0 (servers that refuse 0)", async () => {
    expect((await score("echo", { api: "echo", maxTokens: 2 })).score).toBeCloseTo(-0.3, 14);
  });
});

describe("failures are unscorable logprob_error, never 0", () => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ["error", {}, /^HTTP 500: .*CUDA out of memory/],
    ["badjson", {}, /not JSON/],
    ["wrongshape", {}, /no choices\[0\]\.prompt_logprobs/],
    ["wrongshape", { api: "echo" }, /no choices\[0\]\.logprobs/],
    ["mismatch", {}, /tokenizer mismatch/],
    ["slow", { requestTimeoutMs: 150 }, /^timeout after 150 ms/],
  ];
  for (const [route, opts, msg] of cases) {
    it(`${route} ${JSON.stringify(opts)}`, async () => {
      const t0 = Date.now();
      const r = await score(route, opts);
      expect(r).toMatchObject({ score: null, status: "unscorable", reason: "logprob_error" });
      expect(String(r.details?.error)).toMatch(msg);
      expect(Date.now() - t0).toBeLessThan(2000); // the slow route answers after 3 s: the abort really stopped waiting
    });
  }

  it("connection refused", async () => {
    const o = likelihoodVerifier.options.parse({
      form: "logprob",
      source: "http",
      url: "http://127.0.0.1:9/v1/completions",
      model: "m",
    });
    const r = await likelihoodVerifier.create(o)({
      completion: "x",
      reference: "42",
      rollout: { id: "a", group: "g", prompt: "p", completion: "x" },
    });
    expect(r).toMatchObject({
      status: "unscorable",
      reason: "logprob_error",
      details: { error: expect.stringMatching(/^request failed/) },
    });
  });

  it("no reference, a non-text reference or a chat prompt", async () => {
    expect(await score("vllm", {}, { reference: undefined })).toMatchObject({
      status: "unscorable",
      reason: "no_reference",
    });
    expect(await score("vllm", {}, { reference: { a: 1 } })).toMatchObject({
      status: "unscorable",
      reason: "invalid_reference",
    });
    expect(await score("vllm", {}, { prompt: [{ role: "user", content: "hi" }] })).toMatchObject({
      status: "unscorable",
      reason: "logprob_error",
    });
  });
});

describe("span selection", () => {
  it("needs the prompt to cover the reference and every span token to have a log-prob", () => {
    expect(referenceSpan(["a", "b"], [null, -1], "abc")).toEqual({ error: expect.stringMatching(/cover fewer/) });
    expect(referenceSpan(["a", "b"], [null, -1], "ab")).toEqual({
      error: expect.stringMatching(/token 0 \("a"\) has no log-prob/),
    });
    expect(referenceSpan(["x", " 4", "2"], [null, -1, -2], "42")).toEqual({ logprobs: [-1, -2], tokens: [" 4", "2"] });
    expect(referenceSpan(["x"], [null], "")).toEqual({ error: "empty reference" });
  });
  it("echo: generated tokens are counted from usage.completion_tokens", () => {
    expect(
      parseEcho({
        choices: [{ logprobs: { tokens: ["a", "b", "c"], token_logprobs: [null, -1, -2] } }],
        usage: { completion_tokens: 1 },
      }),
    ).toEqual({ texts: ["a", "b"], logprobs: [null, -1] });
  });
});
