import type { HarnessTask, Language, SandboxBackend, SandboxLimits, TestStatus } from "./types.js";

/** A reference kind of the harness (`assert`, `call`, `stdio`): each starts its processes its own way. */
export type TaskKind = HarnessTask["kind"];

export const TASK_KINDS: readonly TaskKind[] = ["assert", "call", "stdio"];

interface Probe {
  task: HarnessTask;
  expect: TestStatus[];
}

const PY = "def f(x):\n    return x + 1\n";
const JS = "function f(x) { return x + 1; }";

/**
 * One trivial program per language and reference kind, with the statuses a working host gives it. The Python
 * `call` probe also ends its own process in its second test, so that the fresh worker that the third test needs
 * (started with `execve`, not forked) is tried too.
 */
const PROBES: Record<Language, Record<TaskKind, Probe>> = {
  python: {
    call: {
      task: {
        kind: "call",
        program: "import os\ndef f(x):\n    if x == 0:\n        os._exit(3)\n    return x + 1\n",
        entryPoint: "f",
        cases: [
          { input: [1], output: 2 },
          { input: [0], output: 1 },
          { input: [2], output: 3 },
        ],
      },
      expect: ["pass", "runtime_error", "pass"],
    },
    assert: {
      task: {
        kind: "assert",
        program: PY,
        entryPoint: "f",
        test: "def check(candidate):\n    assert 1 + 1 == 2\n    assert candidate(1) == 2\n",
      },
      expect: ["pass", "pass"],
    },
    stdio: {
      task: { kind: "stdio", program: "print(int(input()) + 1)", cases: [{ stdin: "1\n", stdout: "2\n" }] },
      expect: ["pass"],
    },
  },
  javascript: {
    call: {
      task: {
        kind: "call",
        program: JS,
        entryPoint: "f",
        cases: [
          { input: [1], output: 2 },
          { input: [2], output: 3 },
        ],
      },
      expect: ["pass", "pass"],
    },
    assert: {
      task: {
        kind: "assert",
        program: JS,
        entryPoint: "f",
        test: "function check(candidate) {\n  console.assert(1 + 1 === 2);\n  console.assert(candidate(1) === 2);\n}",
      },
      expect: ["pass"],
    },
    stdio: {
      task: {
        kind: "stdio",
        program: 'const x = Number(require("fs").readFileSync(0, "utf8"));\nconsole.log(x + 1);',
        cases: [{ stdin: "1\n", stdout: "2\n" }],
      },
      expect: ["pass"],
    },
  },
};

/** How long a failed self-test stands before the next use runs it again (a host that was repaired recovers). */
export const SELF_TEST_RETRY_MS = 30_000;

interface Entry {
  result: Promise<string | undefined>;
  failedAt?: number;
}

const cache = new Map<string, Entry>();

async function runProbe(
  backend: SandboxBackend,
  language: Language,
  kind: TaskKind,
  limits: SandboxLimits,
): Promise<string | undefined> {
  const probe = PROBES[language][kind];
  const what = `sandbox self-test (${backend.name}, ${language} ${kind}: a trivial program)`;
  try {
    const r = await backend.run(language, probe.task, limits);
    if (r.sandboxError !== undefined) return `${what} failed: ${r.sandboxError}`;
    if (r.statuses.join() === probe.expect.join()) return undefined;
    const first = [...r.messages.values()][0] ?? r.endedBy;
    const stderr = r.stderr.trim().slice(-300);
    return `${what} got [${r.statuses.join(", ")}] where a working host gives [${probe.expect.join(", ")}]${first ? `: ${first}` : ""}${stderr ? `; stderr: ${stderr}` : ""}`;
  } catch (e) {
    return `${what} failed: ${(e as Error).message}`;
  }
}

/**
 * Checks that `backend` can run a trivial program of `language` and `kind` under `limits` (a host whose null
 * device is a plain file, a missing interpreter, a SandboxFusion that answers 500 fail it). Runs once per process
 * for each backend, language, kind and limits, on first use; the result is cached (a failure for
 * {@link SELF_TEST_RETRY_MS}, then tried again). Never rejects.
 * @returns undefined when the host works, else why not (one line, for `sandbox_error` details and `/readyz`).
 */
export function selfTest(
  backend: SandboxBackend,
  language: Language,
  kind: TaskKind,
  limits: SandboxLimits,
): Promise<string | undefined> {
  const key = JSON.stringify([backend.key ?? backend.name, language, kind, limits]);
  const hit = cache.get(key);
  if (hit && (hit.failedAt === undefined || Date.now() - hit.failedAt < SELF_TEST_RETRY_MS)) return hit.result;
  const entry: Entry = {
    result: runProbe(backend, language, kind, limits).then((why) => {
      if (why !== undefined) entry.failedAt = Date.now();
      return why;
    }),
  };
  cache.set(key, entry);
  return entry.result;
}
