import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const ROOT = new URL("..", import.meta.url).pathname;

/** Runs the built CLI (`bin/rewardkit.js`) from the project root. */
export function cli(args: string[], input?: string): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(ROOT, "bin/rewardkit.js"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    input,
    env: { ...process.env, CI: "1" },
    maxBuffer: 256 * 1024 * 1024,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Runs the built CLI without blocking this process (a stub server in the test answers it; shards run side by side).
 * Stdout is dropped: write outputs with `-o`.
 */
export function cliAsync(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [join(ROOT, "bin/rewardkit.js"), ...args], {
      cwd: ROOT,
      env: { ...process.env, CI: "1" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    p.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    p.on("error", reject);
    p.on("close", (code) => resolve({ code: code ?? -1, stderr }));
  });
}

const made: string[] = [];

/**
 * A fresh temporary folder (`<tmpdir>/rewardkit-test-*`), removed with everything in it after the test file
 * (test/setup.ts) or, should the file's process end first, at its exit.
 */
export function tmp(): string {
  const dir = mkdtempSync(join(tmpdir(), "rewardkit-test-"));
  if (made.length === 0) process.once("exit", removeTmps);
  made.push(dir);
  return dir;
}

/** Removes every folder {@link tmp} made in this process (test/setup.ts calls it after each test file). */
export function removeTmps(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Reads a JSONL file into objects. */
export function readJsonl<T = Record<string, unknown>>(path: string): T[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
}

/**
 * Runs one of the Python client's unittest files (`clients/python/<file>`) from the project root with `env` added to
 * the environment. @returns its exit code and everything it printed (stdout and stderr together).
 */
export function runPythonTests(
  file: string,
  env: Record<string, string>,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn("python3", [join(ROOT, "clients/python", file)], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.on("exit", (code) => resolve({ code, out }));
  });
}

/** A component verdict as `/v1/score` answers it. */
export interface ScoredComponent {
  score: number | null;
  status: string;
  reason?: string;
  details?: Record<string, unknown>;
}

/** One entry of a `/v1/score` answer's `results`. */
export interface ScoredResult {
  id: string;
  reward: number | null;
  components: Record<string, ScoredComponent> | null;
  advantage: number | null;
  error?: { field: string; message: string };
}
