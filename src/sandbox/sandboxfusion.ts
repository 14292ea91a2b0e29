import { randomBytes } from "node:crypto";
import { PYTHON_HARNESS } from "./harness/python.js";
import { SandboxPool } from "./pool.js";
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
  /**
   * Retries of a request that met a transient fault — HTTP 429, 500, 502, 503, 504, a refused, reset or dropped
   * connection (also mid-answer) — default 3. Never retried: no answer by the deadline (the run may still be going
   * on), another HTTP status, an answer that is not JSON or not a `RunCodeResponse`.
   */
  retries?: number;
  /** First backoff, ms (default 500); then doubled per retry, with ±25 % jitter, at most 8 s; a `Retry-After` (≤ 30 s) wins. */
  backoffMs?: number;
  /** Injected fetch, for tests. */
  fetch?: typeof fetch;
}

/** Sandboxes in flight per SandboxFusion server when the component's `concurrency` does not say (a fleet, not this host's cores). */
export const REMOTE_CONCURRENCY = 16;

const remotePools = new Map<string, SandboxPool>();

/**
 * The pool of requests to one SandboxFusion server (per URL, shared by every component that names it; the first
 * caller's size wins): at most `size` requests in flight, the others wait in FIFO order, backoffs included.
 */
export function remotePool(url: string, size = REMOTE_CONCURRENCY): SandboxPool {
  const key = url.replace(/\/+$/, "");
  let pool = remotePools.get(key);
  if (!pool) {
    pool = new SandboxPool(Math.max(1, size));
    remotePools.set(key, pool);
  }
  return pool;
}

const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);

/** The answer of one attempt: a body, or a fault and whether it is worth another try. */
type Attempt = { body: string } | { fault: string; transient: boolean; retryAfterMs?: number };

/** `Retry-After` in ms (seconds or an HTTP date), at most 30 s; undefined when absent or unreadable. */
function retryAfter(h: string | null): number | undefined {
  if (h === null) return undefined;
  const s = Number(h);
  const ms = Number.isFinite(s) ? s * 1000 : Date.parse(h) - Date.now();
  return Number.isFinite(ms) ? Math.min(30_000, Math.max(0, ms)) : undefined;
}

/** The network error's own words (undici hides them in `cause`: ECONNREFUSED, ECONNRESET, "other side closed"). */
function networkWords(e: unknown): string {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  const cause = err.cause ? ` (${err.cause.code ?? err.cause.message ?? ""})` : "";
  return `${err.message}${cause}`;
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
        const timeoutMs = limits.runTimeoutMs + (o.httpGraceS ?? 10) * 1000;
        const attempt = async (): Promise<Attempt> => {
          let res: Response;
          try {
            res = await doFetch(url, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify(body),
              signal: AbortSignal.timeout(timeoutMs),
            });
          } catch (e) {
            if ((e as Error).name === "TimeoutError")
              return { fault: `no answer within ${timeoutMs / 1000} s`, transient: false };
            return { fault: `request failed: ${networkWords(e)}`, transient: true };
          }
          if (!res.ok) {
            await res.body?.cancel().catch(() => undefined); // release the connection (an unread body holds it)
            return {
              fault: `HTTP ${res.status}`,
              transient: RETRY_STATUSES.has(res.status),
              retryAfterMs: retryAfter(res.headers.get("retry-after")),
            };
          }
          try {
            return { body: await res.text() };
          } catch (e) {
            if ((e as Error).name === "TimeoutError")
              return { fault: `no answer within ${timeoutMs / 1000} s`, transient: false };
            return { fault: `answer cut off: ${networkWords(e)}`, transient: true };
          }
        };
        const retries = o.retries ?? 3;
        let got: Attempt = { fault: "no attempt", transient: false };
        for (let n = 0; n <= retries; n++) {
          if (n > 0 && "fault" in got) {
            const backoff = (o.backoffMs ?? 500) * 2 ** (n - 1) * (0.75 + Math.random() * 0.5);
            const wait = got.retryAfterMs ?? Math.min(8000, backoff);
            await new Promise((r) => setTimeout(r, wait));
          }
          got = await attempt();
          if ("body" in got || !got.transient) break;
        }
        if ("fault" in got) {
          const tries = got.transient ? ` (${retries + 1} attempts)` : "";
          return fail(`${got.fault}${tries}`);
        }
        let data: RunCodeResponse;
        try {
          data = JSON.parse(got.body) as RunCodeResponse;
        } catch {
          return fail("response is not JSON");
        }
        if (data === null || typeof data !== "object") return fail("response is not a RunCodeResponse");
        if (data.status === "SandboxError") return fail(data.message || "SandboxError");
        if (!data.run_result) return fail(`${data.message || "no run_result"} (status ${String(data.status)})`);
        if (typeof data.run_result !== "object" || typeof data.run_result.stdout !== "string")
          return fail("response is not a RunCodeResponse (run_result.stdout missing)");
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
