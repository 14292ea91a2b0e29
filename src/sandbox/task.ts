import { JAVASCRIPT_CHECK } from "./harness/javascript-check.js";
import { JAVASCRIPT_RUNNER } from "./harness/javascript-runner.js";
import { PYTHON_HARNESS } from "./harness/python.js";
import type { HarnessTask, Language, SandboxLimits } from "./types.js";

/** Interpreters by language. They must live under /usr: nothing else of the host is mounted in the sandbox. */
export const INTERPRETERS: Record<Language, string> = { python: "/usr/bin/python3", javascript: "/usr/bin/node" };

/** How the judge is started: `python3 -s -c HARNESS`, the task on its stdin. */
export function judgeArgv(): string[] {
  return [INTERPRETERS.python, "-s", "-c", PYTHON_HARNESS];
}

export interface TaskExtras {
  /** seccomp filter the worker installs itself (no bubblewrap around it), base64. */
  bpf?: string;
  /** The worker drops root (uid 65534) before it runs the program (SandboxFusion runs code as root). */
  dropRoot?: boolean;
  /** argv of the node that runs JavaScript test code (an execute-only copy, so that the kernel makes it undumpable). */
  nodeCheck?: string[];
}

/**
 * The judge's stdin: the task, the limits, the report nonce, and the sources the judge needs to start fresh
 * workers. It exists only in the host's memory and the judge's: no file holds it.
 */
export function taskPayload(language: Language, task: HarnessTask, limits: SandboxLimits, nonce: string, extras: TaskExtras = {}): string {
  const payload: Record<string, unknown> = {
    ...task,
    language,
    nonce,
    testTimeoutMs: limits.testTimeoutMs,
    outputLimit: limits.outputLimitBytes,
    harness: PYTHON_HARNESS,
    ...extras,
  };
  if (language === "javascript") {
    // V8 aborts with "heap out of memory" (reported as memory_limit) before the address-space limit is reached.
    payload.node = [INTERPRETERS.javascript, `--max-old-space-size=${Math.max(64, Math.floor(limits.memoryMb / 2))}`];
    payload.jsRunner = JAVASCRIPT_RUNNER;
    if (task.kind === "assert") {
      payload.jsCheck = JAVASCRIPT_CHECK;
      if (extras.nodeCheck) payload.nodeCheck = [extras.nodeCheck[0], ...(payload.node as string[]).slice(1)];
    }
  }
  return JSON.stringify(payload);
}
