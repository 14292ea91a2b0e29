// Infrastructure failures are never a 0 (issue 32, part 3): every verifier that calls a service — the LLM judge,
// HTTP reward models, log-probs over HTTP, the remote code sandbox (SandboxFusion) — against each kind of fault of
// that service (nothing listening, 500, 503, a body that is not JSON, JSON of the wrong shape). Each verdict must be
// unscorable with the verifier's reason code, never a scored 0. (The local sandbox's faults: code-broken-host.test.ts
// and src/sandbox/harness.test.ts; a missing bubblewrap: src/verifiers/code/index.test.ts.)
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComponentResult, Rollout } from "../src/core/types.js";
import { createScorer } from "../src/engine/scorer.js";
import { compileSpec } from "../src/spec/compile.js";

type Fault = "refused" | "http500" | "http503" | "not-json" | "wrong-shape";
const FAULTS: Fault[] = ["refused", "http500", "http503", "not-json", "wrong-shape"];

let base = "";
let server: ReturnType<typeof createServer>;
beforeAll(async () => {
  // /<fault>/… answers every request with that fault (no retry ever succeeds)
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const fault = (req.url ?? "/").split("/")[1] as Fault;
      if (fault === "http500") res.writeHead(500, { "content-type": "application/json" }).end('{"error":"boom"}');
      else if (fault === "http503") res.writeHead(503, { "content-type": "text/plain" }).end("overloaded");
      else if (fault === "not-json") res.writeHead(200, { "content-type": "application/json" }).end("<html>proxy");
      else res.writeHead(200, { "content-type": "application/json" }).end('{"unexpected": [1, 2, 3]}');
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** The URL of a service with `fault`: port 1 (nothing listens) for refused. */
const at = (fault: Fault): string => (fault === "refused" ? "http://127.0.0.1:1" : `${base}/${fault}`);

async function verdict(component: Record<string, unknown>, rollout: Partial<Rollout> = {}): Promise<ComponentResult> {
  const r = compileSpec({ components: [{ name: "c", ...component }] }, "t");
  if ("issues" in r) throw new Error(JSON.stringify(r.issues));
  const scorer = createScorer(r.spec, { concurrency: 1 });
  try {
    const row: Rollout = { id: "r", group: "g", prompt: "What is 2 + 2?", completion: "4", reference: "4", ...rollout };
    return (await scorer.score(row)).results[0]!;
  } finally {
    await scorer.close();
  }
}

const FAMILIES: Array<{
  name: string;
  reason: string;
  component: (url: string) => Record<string, unknown>;
  rollout?: Partial<Rollout>;
}> = [
  {
    name: "judge (chat completions)",
    reason: "judge_error",
    component: (url) => ({
      type: "judge",
      baseUrl: `${url}/v1`,
      model: "m",
      maxRetries: 1,
      template: "Rate this answer: {{completion}}",
      parse: "mt-bench",
    }),
  },
  {
    name: "reward model (openrlhf /get_reward)",
    reason: "judge_error",
    component: (url) => ({ type: "reward-model", api: "openrlhf", baseUrl: url, maxRetries: 1 }),
  },
  {
    name: "reward model (vLLM /classify)",
    reason: "judge_error",
    component: (url) => ({ type: "reward-model", api: "vllm-classify", baseUrl: url, model: "rm", maxRetries: 1 }),
  },
  {
    name: "log-probs over HTTP (likelihood, source: http)",
    reason: "logprob_error",
    component: (url) => ({ type: "likelihood", form: "logprob", source: "http", url: `${url}/v1`, model: "m" }),
  },
  {
    name: "remote code sandbox (SandboxFusion)",
    reason: "sandbox_error",
    component: (url) => ({ type: "code", sandbox: "sandboxfusion", sandboxFusionUrl: url }),
    rollout: {
      completion: "```python\ndef add(a, b):\n    return a + b\n```",
      reference: { kind: "call", entryPoint: "add", cases: [{ input: [1, 2], output: 3 }] },
    },
  },
];

describe("a failing service is an unscorable verdict with a reason code, never a scored 0", () => {
  for (const f of FAMILIES)
    for (const fault of FAULTS)
      it(`${f.name}: ${fault}`, async () => {
        const r = await verdict(f.component(at(fault)), f.rollout);
        expect({ score: r.score, status: r.status, reason: r.reason }).toEqual({
          score: null,
          status: "unscorable",
          reason: f.reason,
        });
      }, 60_000);
});
