import { randomBytes } from "node:crypto";
import { JAVASCRIPT_HARNESS } from "./harness/javascript.js";
import { PYTHON_HARNESS } from "./harness/python.js";
import type { SandboxPool } from "./pool.js";
import { parseReport } from "./report.js";
import type { HarnessTask, Language, RunReport, SandboxBackend, SandboxLimits } from "./types.js";

/** SandboxFusion `CommandRunResult` (the fields read here). */
interface CommandRunResult {
  status?: string;
  return_code?: number | null;
  stdout?: string;
  stderr?: string;
  execution_time?: number;
}

/** SandboxFusion `RunCodeResponse` (the fields read here). */
interface RunCodeResponse {
  status?: string;
  message?: string;
  run_result?: CommandRunResult | null;
}

export interface SandboxFusionOptions {
  /** Base URL of the SandboxFusion server, e.g. `http://sandbox:8080`. */
  url: string;
  /** Extra seconds on top of the run timeout for the HTTP request (verl uses 10). */
  httpGraceS?: number;
  /** Retries on HTTP 504 (as verl's client), default 3. */
  retries?: number;
  /** Injected fetch, for tests. */
  fetch?: typeof fetch;
}

/**
 * The harness with the task embedded (SandboxFusion runs one source file with no arguments). The Python harness
 * reads `_EMBEDDED` when it gets no task path; the JavaScript one `EMBEDDED`.
 */
export function embeddedHarness(language: Language, taskJson: string): string {
  const b64 = Buffer.from(taskJson, "utf8").toString("base64");
  if (language === "python") return PYTHON_HARNESS.replace(/^_EMBEDDED = ""$/m, `_EMBEDDED = "${b64}"`);
  return JAVASCRIPT_HARNESS.replace(/^const EMBEDDED = "";$/m, `const EMBEDDED = "${b64}";`);
}

/**
 * A client for SandboxFusion's `POST /run_code` (bytedance/SandboxFusion): the whole harness, with the task
 * embedded, is one request per rollout (verl sends one request per test case, which costs a sandbox per test).
 * SandboxFusion has no memory-limit status (its issue #43): an out-of-memory death is recognised from stderr
 * when the interpreter says so, otherwise it reads as `runtime_error`. `memory_limit_MB` is sent only when
 * `memoryMb` is positive (its issue #70: some deployments fail every request that sets it).
 */
export function sandboxFusionBackend(pool: SandboxPool, o: SandboxFusionOptions): SandboxBackend {
  const doFetch = o.fetch ?? fetch;
  const url = o.url.replace(/\/+$/, "") + "/run_code";
  return {
    name: "sandboxfusion",
    run(language: Language, task: HarnessTask, limits: SandboxLimits): Promise<RunReport> {
      return pool.run(async () => {
        const nonce = randomBytes(12).toString("hex");
        const taskJson = JSON.stringify({ ...task, nonce, testTimeoutMs: limits.testTimeoutMs, outputLimit: limits.outputLimitBytes });
        const body: Record<string, unknown> = {
          code: embeddedHarness(language, taskJson),
          language: language === "python" ? "python" : "nodejs",
          compile_timeout: 10,
          run_timeout: limits.runTimeoutMs / 1000,
          stdin: null,
          files: {},
          fetch_files: [],
        };
        if (limits.memoryMb > 0) body.memory_limit_MB = limits.memoryMb;
        const started = performance.now();
        const fail = (why: string): RunReport => ({ statuses: [], messages: new Map(), sandboxError: `SandboxFusion: ${why}`, wallMs: performance.now() - started, stderr: "" });
        let res: Response | undefined;
        for (let attempt = 0; attempt <= (o.retries ?? 3); attempt++) {
          try {
            res = await doFetch(url, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify(body),
              signal: AbortSignal.timeout(limits.runTimeoutMs + (o.httpGraceS ?? 10) * 1000),
            });
          } catch (e) {
            return fail(`request failed: ${(e as Error).message}`);
          }
          if (res.status !== 504) break;
          await res.body?.cancel(); // release the connection before retrying (an unread body holds it)
        }
        if (!res || !res.ok) return fail(`HTTP ${res?.status ?? "no response"}`);
        let data: RunCodeResponse;
        try {
          data = (await res.json()) as RunCodeResponse;
        } catch {
          return fail("response is not JSON");
        }
        if (data.status === "SandboxError" || !data.run_result) return fail(data.message || "SandboxError");
        const r = data.run_result;
        return parseReport(nonce, {
          stdout: r.stdout ?? "",
          stderr: (r.stderr ?? "").slice(-limits.outputLimitBytes),
          timedOut: r.status === "TimeLimitExceeded",
          exitCode: r.return_code ?? null,
          signal: null,
          wallMs: performance.now() - started,
        });
      });
    },
  };
}
