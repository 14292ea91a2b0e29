import { spawnSync } from "node:child_process";
import { JAVASCRIPT_CHECK } from "./harness/javascript-check.js";
import { JAVASCRIPT_RUNNER } from "./harness/javascript-runner.js";
import { PYTHON_HARNESS } from "./harness/python.js";
import type { HarnessTask, Language, SandboxLimits } from "./types.js";

/** Interpreters by language. They must live under /usr: nothing else of the host is mounted in the sandbox. */
export const INTERPRETERS: Record<Language, string> = { python: "/usr/bin/python3", javascript: "/usr/bin/node" };

/**
 * Reads the harness's compiled code from the head of stdin (8-byte little-endian length, then `marshal` data)
 * and runs it; the task follows on stdin. Compiling the 60 kB harness would cost every run ~20 ms of CPU.
 */
const BOOT = [
  "import marshal, os",
  "def _rk_boot():",
  "    def rd(n):",
  "        b = b''",
  "        while len(b) < n:",
  "            c = os.read(0, n - len(b))",
  "            if not c:",
  "                raise EOFError('stdin ended inside the harness code')",
  "            b += c",
  "        return b",
  "    return marshal.loads(rd(int.from_bytes(rd(8), 'little')))",
  "exec(_rk_boot())",
].join("\n");

const bytecode = new Map<string, Buffer | null>();

/**
 * The harness compiled by `python` (default this host's `/usr/bin/python3`; marshal format is specific to one
 * Python version, and the sandbox runs that same interpreter), once per engine and interpreter; null where it
 * cannot be compiled.
 */
export function harnessBytecode(python: string = INTERPRETERS.python): Buffer | null {
  let code = bytecode.get(python);
  if (code === undefined) {
    const r = spawnSync(
      python,
      [
        "-s",
        "-c",
        "import marshal, sys; sys.stdout.buffer.write(marshal.dumps(compile(sys.stdin.read(), '<rewardkit harness>', 'exec')))",
      ],
      {
        input: PYTHON_HARNESS,
        env: { PATH: "/usr/bin:/bin" },
        maxBuffer: 16 << 20,
        timeout: 30_000,
      },
    );
    code = r.status === 0 && r.stdout.length > 0 ? r.stdout : null;
    bytecode.set(python, code);
  }
  return code;
}

/**
 * How the judge is started and what it reads: `python3 -s -c BOOT` with the compiled harness and then the task on
 * stdin (or, where the harness could not be compiled here, `python3 -s -c HARNESS` with the task alone). `python`:
 * the interpreter of judge and worker (the code component's `python` option, e.g. a venv's `bin/python3`).
 */
export function judgeStart(payload: string, python: string = INTERPRETERS.python): { argv: string[]; stdin: Buffer } {
  const code = harnessBytecode(python);
  if (!code) return { argv: [python, "-s", "-c", PYTHON_HARNESS], stdin: Buffer.from(payload) };
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(code.length));
  return { argv: [python, "-s", "-c", BOOT], stdin: Buffer.concat([len, code, Buffer.from(payload)]) };
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
export function taskPayload(
  language: Language,
  task: HarnessTask,
  limits: SandboxLimits,
  nonce: string,
  extras: TaskExtras = {},
): string {
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
