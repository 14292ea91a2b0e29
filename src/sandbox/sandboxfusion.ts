import { randomBytes } from "node:crypto";
import { PYTHON_HARNESS } from "./harness/python.js";
import type { SandboxPool } from "./pool.js";
import { parseReport } from "./report.js";
import { seccompFilter } from "./seccomp.js";
import { taskPayload } from "./task.js";
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
 * A client for SandboxFusion's `POST /run_code` (bytedance/SandboxFusion): one request per rollout runs the
 * Python harness (`language: python`, for JavaScript programs too: the judge starts `node` itself), and the task
 * travels in the request's `stdin` field, which SandboxFusion writes to the process's stdin pipe
 * (`sandbox/runners/base.py`). The code is the plain harness: no test, expected output or nonce is in it, and the
 * judge reads stdin only after it has forked the worker. In the worker, before the program runs: the seccomp
 * filter of seccomp.ts (best effort: skipped where SandboxFusion's own sandbox forbids `prctl`), and, as
 * SandboxFusion runs code as root, a switch to uid 65534, so that the program can neither trace the judge nor read
 * its `/proc` entries (the judge is also undumpable). verl sends one request per test case, which costs a sandbox
 * per test. SandboxFusion has no memory-limit status (its issue #43): an out-of-memory death is recognised from
 * stderr when the interpreter says so, otherwise it reads as `runtime_error`. `memory_limit_MB` is sent only
 * when `memoryMb` is positive (its issue #70: some deployments fail every request that sets it).
 */
export function sandboxFusionBackend(pool: SandboxPool, o: SandboxFusionOptions): SandboxBackend {
  const doFetch = o.fetch ?? fetch;
  const url = o.url.replace(/\/+$/, "") + "/run_code";
  return {
    name: "sandboxfusion",
    key: `sandboxfusion ${url}`,
    run(language: Language, task: HarnessTask, limits: SandboxLimits): Promise<RunReport> {
      return pool.run(async () => {
        const nonce = randomBytes(12).toString("hex");
        const payload = JSON.parse(
          taskPayload(language, task, limits, nonce, { bpf: seccompFilter().toString("base64"), dropRoot: true }),
        ) as Record<string, unknown>;
        payload.bpfOptional = true;
        if (language === "javascript") {
          const node = payload.node as string[];
          payload.node = ["/usr/bin/env", "node", ...node.slice(1)];
        }
        const body: Record<string, unknown> = {
          code: PYTHON_HARNESS,
          language: "python",
          compile_timeout: 10,
          run_timeout: limits.runTimeoutMs / 1000,
          stdin: JSON.stringify(payload),
          files: {},
          fetch_files: [],
        };
        if (limits.memoryMb > 0) body.memory_limit_MB = limits.memoryMb;
        const started = performance.now();
        const fail = (why: string): RunReport => ({
          statuses: [],
          messages: new Map(),
          sandboxError: `SandboxFusion: ${why}`,
          wallMs: performance.now() - started,
          stderr: "",
        });
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
