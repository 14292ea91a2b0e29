import { PYTHON_JUDGE } from "./python-judge.js";
import { PYTHON_WIRE } from "./python-wire.js";
import { PYTHON_WORKER } from "./python-worker.js";
import { PYTHON_ZYGOTE } from "./python-zygote.js";

const MAIN = String.raw`
if __name__ == "__main__":
    if sys.argv[1:2] == ["worker"]:
        worker_main(3, 4)
    elif sys.argv[1:2] == ["zygote"]:
        zygote_main()
    else:
        judge_main()
`;

/**
 * The code harness, one Python file, run inside the sandbox as `python3 -s -c HARNESS` with the task on stdin.
 *
 * Two kinds of process (the trust boundary is between them):
 * - the **judge** (trusted): forks the first worker *before* it reads the task, then reads the task — program,
 *   tests, expected outputs, nonce — from stdin, sends the worker inputs only, and compares the values it gets
 *   back (strict JSON, decoded against a whitelist of plain types) on its own side. It alone holds the report
 *   channel (its stdout): `<nonce> {"ready": n}` before any test, one `<nonce> {"t": i, "s": status, "m"?: msg}`
 *   per test, then `<nonce> {"done": true}`. Python `assert` tests run in the judge against proxies of the
 *   program's functions and classes; JavaScript `assert` tests run in a separate trusted `node` process.
 * - the **worker** (the program's process): loads the program and answers calls (Python in the forked judge
 *   image; JavaScript by `exec` of `node`), or runs each stdin case in a fresh child process.
 * A worker that dies or hangs is killed and replaced by a fresh `execve`d one (never a fork of the judge once it
 * holds the task) for the tests after it.
 * Under `sandbox: bwrap` a **zygote** per pool slot (python-zygote.ts) starts each rollout's judge by a fork into fresh
 * namespaces instead of a new interpreter.
 */
export const PYTHON_HARNESS = [PYTHON_WIRE, PYTHON_WORKER, PYTHON_JUDGE, PYTHON_ZYGOTE, MAIN].join("\n");
