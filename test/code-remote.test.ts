// Remote sandboxes (issue 30, part 3): the SandboxFusion backend against a stub that speaks SandboxFusion's API
// (`POST /run_code`: RunCodeRequest → RunCodeResponse, bytedance/SandboxFusion `sandbox/server/sandbox_api.py`) and
// runs the code it is sent with /usr/bin/python3, as SandboxFusion's python runner does, with faults injected:
// answers past the deadline, 5xx, 429, dropped connections (before and during the answer), bodies that are not JSON
// or not a RunCodeResponse. Retries are bounded and back off, the concurrency limit holds, a fault is never a 0
// (`sandbox_error`), every rollout is answered exactly once, and the verdicts equal the local sandbox's.
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComponentResult, Rollout } from "../src/core/types.js";
import { createScorer } from "../src/engine/scorer.js";
import { probeBwrap } from "../src/sandbox/local.js";
import { sandboxFusionBackend } from "../src/sandbox/sandboxfusion.js";
import { SandboxPool } from "../src/sandbox/pool.js";
import { DEFAULT_LIMITS } from "../src/sandbox/types.js";
import { compileSpec } from "../src/spec/compile.js";
import { readJsonl, ROOT, tmp } from "./helpers.js";

const noBwrap = await probeBwrap();
if (noBwrap) console.log(`remote sandbox tests: the comparison with the local sandbox is skipped: ${noBwrap}`);

type Fault =
  "slow" | "http429" | "http500" | "http502" | "http503" | "http504" | "drop" | "drop-mid" | "not-json" | "wrong-shape";
const TRANSIENT: Fault[] = ["http429", "http500", "http502", "http503", "http504", "drop", "drop-mid"];
const MARK = /# rk-remote (\S+)/; // only programs that carry a mark get faults (the engine's self-test does not)

/** A SandboxFusion stand-in: `fault(mark, attempt)` says what the attempt-th request (1-based) of a program meets. */
class Stub {
  server!: Server;
  url = "";
  dir = "";
  inFlight = 0;
  maxInFlight = 0;
  attempts = new Map<string, number>();
  fault: (mark: string, attempt: number) => Fault | undefined = () => undefined;

  async start(): Promise<void> {
    this.dir = mkdtempSync(join(tmp(), "stub-"));
    chmodSync(this.dir, 0o1777); // the harness drops root to uid 65534 and makes its working directory here
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as {
          code: string;
          stdin: string;
          language: string;
          run_timeout: number;
        };
        expect(req.method).toBe("POST");
        expect(req.url?.endsWith("/run_code")).toBe(true);
        expect(body.language).toBe("python");
        const mark = MARK.exec((JSON.parse(body.stdin) as { program: string }).program)?.[1];
        const n = mark ? (this.attempts.get(mark) ?? 0) + 1 : 0;
        if (mark) this.attempts.set(mark, n);
        const fault = mark ? this.fault(mark, n) : undefined;
        this.inFlight++;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        const done = (): void => void this.inFlight--;
        res.on("close", done);
        if (fault?.startsWith("http")) {
          const status = Number(fault.slice(4));
          res.writeHead(status, status === 429 ? { "retry-after": "0" } : {}).end('{"detail": "fault"}');
        } else if (fault === "drop") req.socket.destroy();
        else if (fault === "drop-mid") {
          res.writeHead(200, { "content-type": "application/json", "content-length": "4000" });
          res.write('{"status": "Success", "run_res');
          setTimeout(() => req.socket.destroy(), 20);
        } else if (fault === "not-json") res.writeHead(200).end("<html>502 Bad Gateway</html>");
        else if (fault === "wrong-shape")
          res.writeHead(200, { "content-type": "application/json" }).end('{"status": "Success", "run_result": 7}');
        else
          void this.run(body).then((answer) =>
            setTimeout(
              () => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer)),
              fault === "slow" ? 2500 : 0,
            ),
          );
      });
    });
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** SandboxFusion's python runner: the code in a fresh directory, stdin piped in, killed at run_timeout. */
  run(body: { code: string; stdin: string; run_timeout: number }): Promise<unknown> {
    return new Promise((resolve) => {
      const cwd = mkdtempSync(join(this.dir, "run-"));
      const p = spawn("/usr/bin/python3", ["-c", body.code], {
        cwd,
        env: { PATH: "/usr/bin:/bin", TMPDIR: this.dir, PYTHONHASHSEED: "0" },
      });
      let stdout = "";
      let stderr = "";
      let timedOut = false;
      const t0 = performance.now();
      const timer = setTimeout(() => {
        timedOut = true;
        p.kill("SIGKILL");
      }, body.run_timeout * 1000);
      p.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      p.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      p.stdin.on("error", () => undefined);
      p.stdin.end(body.stdin);
      p.on("close", (code) => {
        clearTimeout(timer);
        rmSync(cwd, { recursive: true, force: true });
        resolve({
          status: code === 0 ? "Success" : "Failed",
          message: "",
          compile_result: null,
          run_result: {
            status: timedOut ? "TimeLimitExceeded" : "Finished",
            execution_time: (performance.now() - t0) / 1000,
            return_code: timedOut ? null : code,
            stdout,
            stderr,
          },
          executor_pod_name: null,
          files: {},
        });
      });
    });
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const stub = new Stub();
beforeAll(() => stub.start());
afterAll(() => stub.stop());

/** A call task on `add(a, b)`: two cases. */
const ADD = {
  kind: "call",
  entryPoint: "add",
  cases: [
    { input: [1, 2], output: 3 },
    { input: [5, 5], output: 10 },
  ],
};
const py = (code: string): string => "```python\n" + code + "\n```";
/** a + b over stdin and stdout; the second case has no final newline (compared without it). */
const STDIO_ADD = {
  kind: "stdio",
  cases: [
    { stdin: "1 2\n", stdout: "3\n" },
    { stdin: "2 2\n", stdout: "4" },
  ],
};

/** Programs of each outcome, and the reference each is tested with. */
const PROGRAMS: Array<{ name: string; completion: string; reference: unknown }> = [
  { name: "correct", completion: py("def add(a, b):\n    return a + b"), reference: ADD },
  { name: "wrong", completion: py("def add(a, b):\n    return a - b"), reference: ADD },
  { name: "half", completion: py("def add(a, b):\n    return a + b if a < 5 else 0"), reference: ADD },
  { name: "raises", completion: py("def add(a, b):\n    raise ValueError('no')"), reference: ADD },
  { name: "syntax", completion: py("def add(a, b)\n    return a + b"), reference: ADD },
  { name: "loops", completion: py("def add(a, b):\n    while True:\n        pass"), reference: ADD },
  { name: "exits", completion: py("import os\nos._exit(0)\ndef add(a, b):\n    return a + b"), reference: ADD },
  {
    name: "sorted",
    completion: py("from sortedcontainers import SortedList\ndef add(a, b):\n    return sum(SortedList([a, b]))"),
    reference: ADD,
  },
  {
    name: "stdio",
    completion: py("a, b = map(int, input().split())\nprint(a + b)"),
    reference: STDIO_ADD,
  },
  {
    name: "stdio-wrong",
    completion: py("print(3)"),
    reference: STDIO_ADD,
  },
  {
    name: "assert",
    completion: py("def add(a, b):\n    return a + b"),
    reference: {
      kind: "assert",
      entryPoint: "add",
      test: "def check(c):\n    assert c(1, 2) == 3\n    assert c(2, 2) == 4\n",
    },
  },
  {
    name: "assert-wrong",
    completion: py("def add(a, b):\n    return 3"),
    reference: {
      kind: "assert",
      entryPoint: "add",
      test: "def check(c):\n    assert c(1, 2) == 3\n    assert c(2, 2) == 4\n",
    },
  },
];

const LIMITS = { testTimeoutMs: 1000, runTimeoutMs: 20_000, score: "fraction" };

function scorerFor(component: Record<string, unknown>, concurrency = 4) {
  const r = compileSpec({ components: [{ name: "c", type: "code", ...LIMITS, ...component }] }, "t");
  if ("issues" in r) throw new Error(JSON.stringify(r.issues));
  return createScorer(r.spec, { concurrency });
}

/** Scores each rollout with the component (one scorer), in parallel. */
async function scoreAll(component: Record<string, unknown>, rows: Rollout[]): Promise<ComponentResult[]> {
  const scorer = scorerFor(component);
  try {
    return await Promise.all(rows.map(async (r) => (await scorer.score(r)).results[0]!));
  } finally {
    await scorer.close();
  }
}

const rows = (tag: string): Rollout[] =>
  PROGRAMS.map((p) => ({
    id: `${tag}-${p.name}`,
    group: "g",
    completion: p.completion.replace("\n```", `\n# rk-remote ${tag}-${p.name}\n\`\`\``),
    reference: p.reference,
  }));

/** What must be equal between two backends: score, status, reason and the per-test statuses. */
const verdict = (r: ComponentResult) => ({
  score: r.score,
  status: r.status,
  reason: r.reason ?? null,
  statuses: r.details?.statuses ?? null,
});

describe("SandboxFusion backend against a SandboxFusion stub", () => {
  it("verdicts equal the local sandbox's, on correct and incorrect programs", async () => {
    const remote = await scoreAll({ sandbox: "sandboxfusion", sandboxFusionUrl: `${stub.url}/equal` }, rows("eq"));
    for (const r of remote) expect(r.details?.sandbox).toBe("sandboxfusion");
    const byName = Object.fromEntries(PROGRAMS.map((p, i) => [p.name, verdict(remote[i]!)]));
    expect(byName.correct).toMatchObject({ score: 1, status: "ok" });
    expect(byName.wrong).toMatchObject({ score: 0, status: "ok", reason: "tests_failed" });
    expect(byName.half).toMatchObject({ score: 0.5 });
    expect(byName.loops).toMatchObject({ score: 0, statuses: { timeout: 2 } });
    expect(byName.sorted).toMatchObject({ score: 1 });
    if (noBwrap) return;
    const local = await scoreAll({ sandbox: "bwrap" }, rows("eq"));
    expect(remote.map(verdict)).toEqual(local.map(verdict));
  }, 120_000);

  it("retries each transient fault (429, 500, 502, 503, 504, dropped connections) and scores as without it", async () => {
    stub.fault = (mark, n) => (mark.startsWith("once-") && n === 1 ? (mark.split("-")[1] as Fault) : undefined);
    const correct = PROGRAMS[0]!;
    const faulted: Rollout[] = TRANSIENT.map((f) => ({
      id: f,
      group: "g",
      completion: correct.completion.replace("\n```", `\n# rk-remote once-${f}\n\`\`\``),
      reference: correct.reference,
    }));
    const got = await scoreAll({ sandbox: "sandboxfusion", sandboxFusionUrl: `${stub.url}/once` }, faulted);
    expect(got.map((r) => r.score)).toEqual(TRANSIENT.map(() => 1));
    for (const f of TRANSIENT) expect(stub.attempts.get(`once-${f}`), f).toBe(2);
  }, 60_000);

  it("a fault that persists is sandbox_error after a bounded number of attempts, never a 0", async () => {
    const kinds: Fault[] = [...TRANSIENT, "not-json", "wrong-shape"];
    stub.fault = (mark) => (mark.startsWith("always-") ? (mark.slice(7) as Fault) : undefined);
    const wrong = PROGRAMS[1]!; // a wrong program: a fault must not turn into its 0 either
    const faulted: Rollout[] = kinds.map((f) => ({
      id: f,
      group: "g",
      completion: wrong.completion.replace("\n```", `\n# rk-remote always-${f}\n\`\`\``),
      reference: wrong.reference,
    }));
    const t0 = performance.now();
    const got = await scoreAll(
      { sandbox: "sandboxfusion", sandboxFusionUrl: `${stub.url}/always`, sandboxFusionRetries: 2 },
      faulted,
    );
    for (const [i, f] of kinds.entries()) {
      expect({ f, score: got[i]!.score, status: got[i]!.status, reason: got[i]!.reason }).toEqual({
        f,
        score: null,
        status: "unscorable",
        reason: "sandbox_error",
      });
      expect(stub.attempts.get(`always-${f}`), f).toBe(TRANSIENT.includes(f) ? 3 : 1);
    }
    expect(String(got[0]!.details?.error)).toMatch(/^SandboxFusion: HTTP 429 \(3 attempts\)$/);
    expect(String(got[kinds.indexOf("not-json")]!.details?.error)).toBe("SandboxFusion: response is not JSON");
    // backoff: 0.5 s then 1 s (± 25 %) between the three attempts; 429 says Retry-After: 0
    expect(performance.now() - t0).toBeGreaterThan(1000);
  }, 60_000);

  it("an answer past the deadline is a sandbox error (no answer within …), not retried", async () => {
    stub.fault = (mark) => (mark === "slow" ? "slow" : undefined);
    const backend = sandboxFusionBackend(new SandboxPool(1), { url: stub.url, httpGraceS: 0, backoffMs: 1 });
    const r = await backend.run(
      "python",
      { kind: "call", program: "def add(a, b):\n    return a + b\n# rk-remote slow\n", entryPoint: "add", cases: [] },
      { ...DEFAULT_LIMITS, runTimeoutMs: 1000 },
    );
    expect(r.sandboxError).toBe("SandboxFusion: no answer within 1 s");
    expect(stub.attempts.get("slow")).toBe(1);
  }, 30_000);

  it("rewardkit score: the concurrency limit holds and every rollout is answered exactly once, faults or not", async () => {
    const dir = tmp();
    // a fixed mix: transient faults on first attempts, a persistent 503 on every 7th rollout
    stub.fault = (mark, n) => {
      const i = Number(/^mix(\d+)$/.exec(mark)?.[1] ?? -1);
      if (i < 0) return undefined;
      if (i % 7 === 3) return "http503";
      return n === 1 && i % 2 === 0 ? TRANSIENT[i % TRANSIENT.length] : undefined;
    };
    const N = 28;
    const input = Array.from({ length: N }, (_, i) => ({
      id: `mix${i}`,
      group: `g${i % 4}`,
      completion: py(`def add(a, b):\n    return a ${i % 3 === 0 ? "-" : "+"} b\n# rk-remote mix${i}`),
      reference: ADD,
    }));
    writeFileSync(join(dir, "in.jsonl"), input.map((r) => JSON.stringify(r)).join("\n") + "\n");
    writeFileSync(
      join(dir, "spec.json"),
      JSON.stringify({
        components: [
          {
            name: "tests",
            type: "code",
            sandbox: "sandboxfusion",
            sandboxFusionUrl: `${stub.url}/mix`,
            concurrency: 3,
            sandboxFusionRetries: 1,
          },
        ],
      }),
    );
    stub.maxInFlight = 0;
    const code = await new Promise<number | null>((resolve) => {
      const p = spawn(
        process.execPath,
        [
          join(ROOT, "bin/rewardkit.js"),
          "score",
          join(dir, "in.jsonl"),
          "--spec",
          join(dir, "spec.json"),
          "-o",
          join(dir, "out.jsonl"),
        ],
        { cwd: ROOT, env: { ...process.env, CI: "1" }, stdio: "ignore" },
      );
      p.on("exit", resolve);
    });
    expect(code).toBe(0);
    expect(stub.maxInFlight).toBeLessThanOrEqual(3);
    expect(stub.maxInFlight).toBeGreaterThan(1);
    const out = readJsonl<{ id: string; components: { tests: ComponentResult } }>(join(dir, "out.jsonl"));
    expect(out.map((r) => r.id).sort()).toEqual(input.map((r) => r.id).sort());
    for (const r of out) {
      const i = Number(r.id.slice(3));
      const c = r.components.tests;
      if (i % 7 === 3)
        expect({ id: r.id, score: c.score, reason: c.reason }).toEqual({
          id: r.id,
          score: null,
          reason: "sandbox_error",
        });
      else expect({ id: r.id, score: c.score }).toEqual({ id: r.id, score: i % 3 === 0 ? 0 : 1 });
    }
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);
});
