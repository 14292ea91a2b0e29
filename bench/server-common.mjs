/** What the server benchmarks share: the bundled rollouts, a server process on a free port, one HTTP request. */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";

export const ROOT = new URL("..", import.meta.url).pathname;

/** The 800 bundled math rollouts (`examples/data/math-rollouts.jsonl`), parsed. */
export function mathRows() {
  return readFileSync(join(ROOT, "examples/data/math-rollouts.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}

/** A letters-only tag unique to `n` (numbers in it could be read as an answer by the math extractors). */
export function tag(n) {
  let s = "";
  do {
    s = String.fromCharCode(97 + (n % 26)) + s;
    n = Math.floor(n / 26);
  } while (n > 0);
  return `(sample ${s})`;
}

/**
 * Starts `<root>/bin/rewardkit.js serve --spec <spec> --port 0 <args…>` and resolves once it says where it listens.
 * @param root the checkout whose build serves (default: this one; `scripts/server-ab.mjs` passes others).
 * @returns the child process, its port and its stderr so far; rejects if it exits first.
 */
export function startServer(spec, args = [], root = ROOT) {
  const child = spawn(
    process.execPath,
    [join(root, "bin/rewardkit.js"), "serve", "--spec", spec, "--port", "0", ...args],
    {
      cwd: root,
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let log = "";
  return new Promise((resolve, reject) => {
    child.stderr.on("data", (d) => {
      log += d;
      const m = /on http:\/\/127\.0\.0\.1:(\d+)/.exec(log);
      if (m) resolve({ child, port: Number(m[1]), log: () => log });
    });
    child.once("exit", (code) => reject(new Error(`server exited ${code}: ${log}`)));
  });
}

/**
 * One HTTP request to 127.0.0.1:`port` (a JSON body when `payload` is given, more `headers` when given).
 * @returns status, headers, body text.
 */
export function request(agent, port, method, path, payload, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        agent,
        headers: {
          ...(payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString() }),
        );
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/**
 * Each bundled rollout as JSON with `@I@` where its id goes and `@N@` where a unique suffix goes ({@link uniqueBody}).
 * @param thinkHalf every other completion wrapped in `<think>…</think>` with a final answer (a format-only spec's
 *   rollouts: half pass).
 */
export function rolloutTemplates(rows, thinkHalf = false) {
  return rows.map((r, i) => {
    const completion =
      thinkHalf && i % 2 === 0 ? `<think>\n${r.completion}\n</think>\nFinal answer: ${r.reference}` : r.completion;
    return JSON.stringify({
      id: "@I@",
      group: r.group,
      prompt: r.prompt,
      completion: completion + "\n@N@",
      reference: r.reference,
    });
  });
}

let nonce = 0;
/** A `/v1/score` body of `batch` rollouts from `tpls`, every id and completion unique in this process (no cache hits). */
export function uniqueBody(tpls, batch) {
  const parts = new Array(batch);
  for (let i = 0; i < batch; i++) {
    const n = nonce++;
    parts[i] = tpls[n % tpls.length].replace("@I@", `r${n}`).replace("@N@", tag(n));
  }
  return `{"rollouts":[${parts.join(",")}]}`;
}

/** CPU seconds (user + system, all threads) of a process so far, from /proc (Linux); NaN when unreadable. */
export function cpuSeconds(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return NaN;
  }
}
