// Nothing left behind (issue 30, part 4): the engine's temporary folders (the spill file of a two-pass job, the
// working folder of a `sandbox: none` run) are removed on every exit path: a normal end, an error, a run killed at
// its deadline, SIGTERM of the CLI and of the server. Each run gets a temporary directory of its own (TMPDIR), so
// the count is exact whatever else runs on the machine. (Test files' own folders: test/setup.ts.)
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { probeBwrap } from "../src/sandbox/local.js";
import { ROOT, tmp } from "./helpers.js";

const noBwrap = await probeBwrap();
if (noBwrap) console.log(`temporary-folder test with the bubblewrap sandbox skipped: ${noBwrap}`);
const UID_BASE = 300_000 + Math.floor(Math.random() * 100_000) * 64;

const py = (code: string): string => "```python\n" + code + "\n```";
const ADD = { kind: "call", entryPoint: "add", cases: [{ input: [1, 2], output: 3 }] };
const SLOW = py("import time\ntime.sleep(60)\ndef add(a, b):\n    return a + b");
const ROWS = [
  { id: "ok", group: "g", completion: py("def add(a, b):\n    return a + b"), reference: ADD },
  { id: "wrong", group: "g", completion: py("def add(a, b):\n    return 0"), reference: ADD },
  { id: "slow", group: "h", completion: SLOW, reference: ADD },
  { id: "none", group: "h", completion: "no code" },
];

/** A run's folder: `tmp/` (its TMPDIR, world-writable like /tmp), the rollouts and a spec with `component`. */
function setup(component: Record<string, unknown>): { dir: string; tmpdir: string; input: string; spec: string } {
  const dir = tmp();
  const tmpdir = join(dir, "tmp");
  mkdirSync(tmpdir);
  chmodSync(tmpdir, 0o1777);
  const input = join(dir, "in.jsonl");
  const spec = join(dir, "spec.json");
  writeFileSync(input, ROWS.map((r) => JSON.stringify(r)).join("\n") + "\n");
  writeFileSync(
    spec,
    JSON.stringify({
      components: [{ name: "tests", type: "code", uidBase: UID_BASE, runTimeoutMs: 3000, ...component }],
    }),
  );
  return { dir, tmpdir, input, spec };
}

/** Starts the CLI with TMPDIR = `tmpdir`. */
function rewardkit(
  args: string[],
  tmpdir: string,
): { child: ChildProcess; done: Promise<{ code: number | null; stderr: string }>; stderr: () => string } {
  const child = spawn(process.execPath, [join(ROOT, "bin/rewardkit.js"), ...args], {
    cwd: ROOT,
    env: { ...process.env, CI: "1", TMPDIR: tmpdir },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on("exit", (code) => resolve({ code, stderr })),
  );
  return { child, done, stderr: () => stderr };
}

/** Waits until `tmpdir` holds an entry whose name starts with `prefix` (the run is under way). */
async function until(tmpdir: string, prefix: string, timeoutMs = 30_000): Promise<void> {
  const t0 = Date.now();
  while (!readdirSync(tmpdir).some((f) => f.startsWith(prefix))) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`no ${prefix}* in ${tmpdir} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("no temporary folder is left behind", () => {
  it.skipIf(noBwrap !== undefined)(
    "rewardkit score (bwrap), a normal end: the spill folder and the sandboxes leave nothing",
    async () => {
      const { tmpdir, input, spec, dir } = setup({});
      const r = await rewardkit(["score", input, "--spec", spec, "-o", join(dir, "out.jsonl")], tmpdir).done;
      expect(r.code, r.stderr).toBe(0);
      expect(readdirSync(tmpdir)).toEqual([]);
    },
    60_000,
  );

  it("rewardkit score (sandbox: none; a run killed at its deadline), then an error exit: nothing left", async () => {
    const { tmpdir, input, spec, dir } = setup({ sandbox: "none" });
    const r = await rewardkit(["score", input, "--spec", spec, "-o", join(dir, "out.jsonl")], tmpdir).done;
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(tmpdir)).toEqual([]);
    // an error once the spill folder exists: a line that is not JSON, with --strict
    writeFileSync(join(dir, "bad.jsonl"), JSON.stringify(ROWS[0]) + "\n{not json\n");
    const args = ["score", join(dir, "bad.jsonl"), "--spec", spec, "-o", join(dir, "o2.jsonl"), "--strict"];
    const bad = await rewardkit(args, tmpdir).done;
    expect(bad.code).not.toBe(0);
    expect(readdirSync(tmpdir)).toEqual([]);
  }, 60_000);

  it("rewardkit score stopped by SIGTERM while a sandbox runs: its working folder and the spill folder go", async () => {
    const { tmpdir, input, spec, dir } = setup({ sandbox: "none", runTimeoutMs: 60_000 });
    const run = rewardkit(["score", input, "--spec", spec, "-o", join(dir, "out.jsonl")], tmpdir);
    await until(tmpdir, "rewardkit-work-");
    run.child.kill("SIGTERM");
    const r = await run.done;
    expect(r.code, r.stderr).toBe(143);
    expect(readdirSync(tmpdir)).toEqual([]);
  }, 60_000);

  it("rewardkit serve stopped by SIGTERM while a sandbox runs: nothing left", async () => {
    const { tmpdir, spec } = setup({ sandbox: "none", runTimeoutMs: 2000 });
    const run = rewardkit(["serve", "--spec", spec, "--port", "0"], tmpdir);
    const port = await new Promise<number>((resolve, reject) => {
      const t = setInterval(() => {
        const m = /on http:\/\/127\.0\.0\.1:(\d+)/.exec(run.stderr());
        if (m) {
          clearInterval(t);
          resolve(Number(m[1]));
        }
      }, 50);
      void run.done.then((r) => reject(new Error(`serve exited ${r.code}: ${r.stderr}`)));
    });
    const answer = fetch(`http://127.0.0.1:${port}/v1/score`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ rollouts: [{ id: "s", group: "g", completion: SLOW, reference: ADD }] }),
    }).then(
      (r) => r.status,
      () => "cut", // the answer is not what this test is about (docs/server.md: draining)
    );
    await until(tmpdir, "rewardkit-work-");
    run.child.kill("SIGTERM");
    await answer;
    const r = await run.done;
    expect(r.code, r.stderr).not.toBeNull(); // it exited (not killed by a signal)
    expect(readdirSync(tmpdir)).toEqual([]);
  }, 60_000);
});
