/** Status of one unit test, as the harness inside the sandbox (or the host, for tests it never reached) reports it. */
export type TestStatus =
  "pass" | "fail" | "timeout" | "memory_limit" | "runtime_error" | "compile_error" | "sandbox_error";

export const TEST_STATUSES: readonly TestStatus[] = [
  "pass",
  "fail",
  "timeout",
  "memory_limit",
  "runtime_error",
  "compile_error",
  "sandbox_error",
];

/** Languages with a harness. Python runs `/usr/bin/python3`, JavaScript `/usr/bin/node`. */
export type Language = "python" | "javascript";

/**
 * What the harness runs: the program plus the tests of one rollout. The shapes mirror the verifier's reference
 * kinds (`docs/code.md`): `assert` (test code, e.g. a `check(candidate)` function), `call` (argument lists and
 * expected return values), `stdio` (stdin and expected stdout).
 */
export interface HarnessTask {
  kind: "assert" | "call" | "stdio";
  program: string;
  /** `call`: the function called; `assert`: the candidate passed to `check` (unless the test code calls `check` itself). */
  entryPoint?: string;
  /** `assert`: the test code. */
  test?: string;
  cases?: unknown[];
  /** Absolute float tolerance for `call` (0: exact, NaN equals NaN) and `stdio` numbers. */
  atol?: number;
  /** `stdio` only: relative tolerance of numbers. */
  rtol?: number;
  /** `call` only: `json` (values are JSON, tagged `{"$tuple": […]}`…) or `python` (values are Python literals in strings). */
  encoding?: "json" | "python";
  /** `call`: `taco` (TACO/APPS: tuples are lists, a one-element expected list also matches its element) or `truthy` (the return value's truth value); `stdio`: `lines` or `tokens`. */
  compare?: "taco" | "truthy" | "lines" | "tokens";
  /** Python run before the program and the test code, in both namespaces (e.g. LeetCode's `from typing import *`). */
  prelude?: string;
}

/** Resource limits of one sandbox run. Times in milliseconds, sizes in MiB unless named bytes. */
export interface SandboxLimits {
  /** Limit of one test: CPU time of the program's process (the judge and worker enforce it; wall-clock backstop 10×). */
  testTimeoutMs: number;
  /** Wall-clock limit of the whole run (start-up, program load, every test); the process group is killed at it. CPU seconds are capped at the same value. */
  runTimeoutMs: number;
  /** Memory of the whole run: every process plus its tmpfs mounts (memory cgroup, or the sampled fallback); also each process's address space (`prlimit --as`). */
  memoryMb: number;
  /** Processes the sandbox user may have (`prlimit --nproc`, per locked slot uid). */
  maxProcesses: number;
  /** Largest file the program may write (`prlimit --fsize`). */
  maxFileMb: number;
  /** Open file descriptors (`prlimit --nofile`). */
  maxOpenFiles: number;
  /** Characters of program output kept per test (stdout sink) and bytes of stderr kept; the rest is dropped. */
  outputLimitBytes: number;
}

export const DEFAULT_LIMITS: SandboxLimits = {
  testTimeoutMs: 4000,
  runTimeoutMs: 30_000,
  memoryMb: 1024,
  maxProcesses: 64,
  maxFileMb: 16,
  maxOpenFiles: 64,
  outputLimitBytes: 1 << 20,
};

/** The outcome of one sandbox run: one status per test, or an infrastructure failure. */
export interface RunReport {
  /** One status per test, in test order; empty when `sandboxError` is set. */
  statuses: TestStatus[];
  /** Messages of non-passing tests (index → message), at most a few. */
  messages: Map<number, string>;
  /** Set when the sandbox itself failed (no test was run): the verdict is `unscorable("sandbox_error")`. */
  sandboxError?: string;
  /** Why tests without a report line got the status they have (deadline, memory, early exit). */
  endedBy?: string;
  /** Milliseconds from spawn to exit. */
  wallMs: number;
  /** Tail of the program's stderr (at most `outputLimitBytes`). */
  stderr: string;
}

/** A way to execute harness runs: the local bubblewrap sandbox, a plain process (`none`), or SandboxFusion. */
export interface SandboxBackend {
  readonly name: string;
  /** What the self-test's cache tells apart (selftest.ts): the backend and where it runs, e.g. a SandboxFusion URL; default `name`. */
  readonly key?: string;
  run(language: Language, task: HarnessTask, limits: SandboxLimits): Promise<RunReport>;
}
