import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { PYTHON_HARNESS } from "./harness/python.js";
import { SandboxPool } from "./pool.js";
import { sandboxFusionBackend } from "./sandboxfusion.js";
import type { HarnessTask } from "./types.js";
import { DEFAULT_LIMITS } from "./types.js";

const task: HarnessTask = {
  kind: "call",
  program: "def add(a, b):\n    return a + b if a < 5 else 0\n",
  entryPoint: "add",
  cases: [
    { input: [1, 2], output: 3 },
    { input: [5, 5], output: 10 },
  ],
};

/** A stand-in SandboxFusion: checks the request like the server's pydantic model would, runs the code with python3 (trusted test code). */
function fakeServer(
  requests: Record<string, unknown>[],
  reply?: (body: Record<string, unknown>) => unknown,
): typeof fetch {
  return async (url: string | URL | Request, init?: RequestInit) => {
    expect(url instanceof Request ? url.url : url.toString()).toBe("http://sf.example:8080/run_code");
    const body = JSON.parse(init?.body as string) as Record<string, unknown>;
    requests.push(body);
    if (reply) {
      const r = reply(body);
      if (r instanceof Response) return r;
      return new Response(JSON.stringify(r), { status: 200 });
    }
    const p = spawnSync("/usr/bin/python3", ["-c", String(body.code)], {
      input: String(body.stdin),
      encoding: "utf8",
      env: { PATH: "/usr/bin", PYTHONHASHSEED: "0" },
    });
    return new Response(
      JSON.stringify({
        status: p.status === 0 ? "Success" : "Failed",
        message: "",
        run_result: {
          status: "Finished",
          return_code: p.status,
          stdout: p.stdout,
          stderr: p.stderr,
          execution_time: 0.01,
        },
      }),
      { status: 200 },
    );
  };
}

describe("SandboxFusion backend", () => {
  it("sends the plain harness as one /run_code request, the task on stdin, and reads per-test statuses", async () => {
    const requests: Record<string, unknown>[] = [];
    const backend = sandboxFusionBackend(new SandboxPool(1), {
      url: "http://sf.example:8080/",
      fetch: fakeServer(requests),
    });
    const r = await backend.run("python", task, DEFAULT_LIMITS);
    expect(r.sandboxError).toBeUndefined();
    expect(r.statuses).toEqual(["pass", "fail"]);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      language: "python",
      run_timeout: DEFAULT_LIMITS.runTimeoutMs / 1000,
      memory_limit_MB: DEFAULT_LIMITS.memoryMb,
      files: {},
      fetch_files: [],
    });
    // Nothing of the task is in the code the sandbox runs: the expected outputs and the nonce travel on stdin only.
    expect(requests[0]!.code).toBe(PYTHON_HARNESS);
    const stdin = JSON.parse(String(requests[0]!.stdin)) as {
      nonce: string;
      cases: unknown[];
      dropRoot: boolean;
      bpf: string;
    };
    expect(stdin.cases).toEqual(task.cases);
    expect(String(requests[0]!.code)).not.toContain(stdin.nonce);
    expect(stdin.dropRoot).toBe(true);
    expect(Buffer.from(stdin.bpf, "base64").length % 8).toBe(0);
  });

  it("retries transient faults (here 504), then reports SandboxError / HTTP failures as sandbox errors", async () => {
    let calls = 0;
    const flaky = sandboxFusionBackend(new SandboxPool(1), {
      url: "http://sf.example:8080",
      backoffMs: 1,
      fetch: fakeServer([], () =>
        ++calls < 3
          ? new Response("gateway", { status: 504 })
          : { status: "SandboxError", message: "runner crashed", run_result: null },
      ),
    });
    const r = await flaky.run("python", task, DEFAULT_LIMITS);
    expect(calls).toBe(3);
    expect(r.sandboxError).toMatch(/runner crashed/);
    const down = sandboxFusionBackend(new SandboxPool(1), {
      url: "http://sf.example:8080",
      backoffMs: 1,
      fetch: fakeServer([], () => new Response("no", { status: 500 })),
    });
    expect((await down.run("python", task, DEFAULT_LIMITS)).sandboxError).toMatch(/HTTP 500 \(4 attempts\)/);
    const refused = sandboxFusionBackend(new SandboxPool(1), {
      url: "http://sf.example:8080",
      fetch: fakeServer([], () => new Response("no", { status: 400 })),
    });
    expect((await refused.run("python", task, DEFAULT_LIMITS)).sandboxError).toBe("SandboxFusion: HTTP 400");
  });

  /** A backend whose server answers every run TimeLimitExceeded with the harness lines `stdout(nonce)`. */
  const timeLimitExceeded = (stdout: (nonce: string) => string) =>
    sandboxFusionBackend(new SandboxPool(1), {
      url: "http://sf.example:8080",
      fetch: fakeServer([], (body) => {
        const nonce = (JSON.parse(String(body.stdin)) as { nonce: string }).nonce;
        return {
          status: "Failed",
          run_result: { status: "TimeLimitExceeded", return_code: null, stdout: stdout(nonce), stderr: "" },
        };
      }),
    });

  it("TimeLimitExceeded: tests without a report are timeouts", async () => {
    const backend = timeLimitExceeded(
      (nonce) => `${nonce} {"ready": 2}\n${nonce} {"started": true}\n${nonce} {"t": 0, "s": "pass"}\n`,
    );
    expect((await backend.run("python", task, DEFAULT_LIMITS)).statuses).toEqual(["pass", "timeout"]);
  });
  it("TimeLimitExceeded before the program started (a slow or stuck start-up): a sandbox error, not timeouts", async () => {
    const backend = timeLimitExceeded((nonce) => `${nonce} {"ready": 2}\n`);
    const r = await backend.run("python", task, DEFAULT_LIMITS);
    expect(r.statuses).toEqual([]);
    expect(r.sandboxError).toMatch(/before the program started \(killed at the run deadline\)/);
  });
});
