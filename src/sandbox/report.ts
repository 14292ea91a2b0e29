import type { RunReport, TestStatus } from "./types.js";
import { TEST_STATUSES } from "./types.js";

const KEEP_MESSAGES = 5;
const MEMORY_SIGNS =
  /MemoryError|Cannot allocate memory|heap out of memory|std::bad_alloc|Allocation failed|out of memory/i;

/** How a harness process ended, as the host saw it. */
export interface ProcessEnd {
  stdout: string;
  stderr: string;
  /** The host killed it at the run deadline. */
  timedOut: boolean;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  wallMs: number;
  /** The run's memory cgroup (or the fallback watcher) saw an out-of-memory kill. */
  oomKilled?: boolean;
}

/**
 * Turns the harness's report lines (`<nonce> {json}`) into one status per test. Only the judge holds the report
 * channel and the nonce (the program's process has neither); lines without the nonce are ignored all the same. Tests without a line get a status
 * from how the process ended: killed at the deadline or by the CPU limit → `timeout`; out of memory → `memory_limit`;
 * any other early exit (or a judge that failed once the program had started) → `runtime_error`. No `ready` line at
 * all, a `fatal` line before the program started (the judge failed, or a worker failed to start), or tests without a line and no `started` line (the judge
 * writes it just before the program first leaves it, so the program cannot suppress it) mean the sandbox never got
 * to run the program: `sandboxError`.
 */
export function parseReport(nonce: string, end: ProcessEnd): RunReport {
  const prefix = nonce + " ";
  let total = -1;
  let fatal: string | undefined;
  let started = false;
  const got = new Map<number, { s: TestStatus; m?: string }>();
  for (const line of end.stdout.split("\n")) {
    if (!line.startsWith(prefix)) continue;
    let rec: { ready?: unknown; started?: unknown; t?: unknown; s?: unknown; m?: unknown; fatal?: unknown };
    try {
      rec = JSON.parse(line.slice(prefix.length)) as typeof rec;
    } catch {
      continue;
    }
    if (typeof rec.ready === "number" && total < 0) total = rec.ready;
    else if (rec.started === true) started = true;
    else if (typeof rec.fatal === "string") fatal = rec.fatal;
    else if (
      typeof rec.t === "number" &&
      typeof rec.s === "string" &&
      (TEST_STATUSES as readonly string[]).includes(rec.s) &&
      !got.has(rec.t)
    ) {
      got.set(rec.t, typeof rec.m === "string" ? { s: rec.s as TestStatus, m: rec.m } : { s: rec.s as TestStatus });
    }
  }
  const stderr = end.stderr;
  const base = { wallMs: end.wallMs, stderr, messages: new Map<number, string>() };
  // A judge that fails once the program has run may have been made to (memory filled, its processes signalled):
  // the tests it did not report count against the program, as after any other early end.
  if (fatal !== undefined && !started) return { ...base, statuses: [], sandboxError: `harness: ${fatal}` };
  if (total < 0) {
    const why = end.timedOut
      ? "the sandbox did not start before the run deadline"
      : `the sandbox exited before the harness started (exit ${end.exitCode ?? end.signal})`;
    return { ...base, statuses: [], sandboxError: `${why}${stderr ? `: ${stderr.trim().slice(-300)}` : ""}` };
  }
  const exit = end.timedOut ? "killed at the run deadline" : `exit ${end.exitCode ?? end.signal}`;
  if (!started && got.size < total) {
    const why = `the sandbox ended before the program started (${exit})`;
    return { ...base, statuses: [], sandboxError: `${why}${stderr ? `: ${stderr.trim().slice(-300)}` : ""}` };
  }
  let missing: TestStatus = "runtime_error";
  let endedBy: string | undefined;
  if (got.size < total) {
    if (fatal !== undefined)
      [missing, endedBy] = [
        /MemoryError/.test(fatal) ? "memory_limit" : "runtime_error",
        `the judge failed after the program started: ${fatal}`,
      ];
    else if (end.oomKilled) [missing, endedBy] = ["memory_limit", "out of memory (the run's memory limit)"];
    else if (end.timedOut) [missing, endedBy] = ["timeout", "run deadline"];
    else if (end.signal === "SIGXCPU" || end.exitCode === 128 + 24) [missing, endedBy] = ["timeout", "CPU-time limit"];
    else if (MEMORY_SIGNS.test(stderr)) [missing, endedBy] = ["memory_limit", "out of memory"];
    else if (end.signal === "SIGKILL" || end.exitCode === 128 + 9)
      [missing, endedBy] = ["memory_limit", "killed (out of memory)"];
    else endedBy = `the harness ended early (exit ${end.exitCode ?? end.signal})`;
  }
  const statuses: TestStatus[] = [];
  for (let i = 0; i < total; i++) {
    const r = got.get(i);
    const s = r?.s ?? missing;
    statuses.push(s);
    if (s !== "pass" && base.messages.size < KEEP_MESSAGES) base.messages.set(i, r?.m ?? endedBy ?? s);
  }
  return endedBy !== undefined ? { ...base, statuses, endedBy } : { ...base, statuses };
}
