import { afterEach, describe, expect, it, vi } from "vitest";
import { SandboxPool } from "./pool.js";
import { localBackend } from "./local.js";
import { SELF_TEST_RETRY_MS, selfTest, TASK_KINDS } from "./selftest.js";
import type { RunReport, SandboxBackend } from "./types.js";
import { DEFAULT_LIMITS } from "./types.js";

/** A backend that answers every run with `reply` and counts the runs. */
function fake(key: string, reply: (kind: string) => Partial<RunReport>): SandboxBackend & { runs: number } {
  const b = {
    name: "fake",
    key,
    runs: 0,
    run(_language: string, task: { kind: string }): Promise<RunReport> {
      b.runs++;
      return Promise.resolve({ statuses: [], messages: new Map(), wallMs: 1, stderr: "", ...reply(task.kind) });
    },
  };
  return b;
}

afterEach(() => vi.useRealTimers());

describe("sandbox self-test", () => {
  it("passes on this host (sandbox: none), for every language and kind", async () => {
    const backend = localBackend(new SandboxPool(2), { uidBase: 61_000, isolate: false });
    for (const language of ["python", "javascript"] as const)
      for (const kind of TASK_KINDS) expect(await selfTest(backend, language, kind, DEFAULT_LIMITS)).toBeUndefined();
  }, 60_000);

  it("a sandbox error or statuses other than a working host's fail it, with the reason", async () => {
    const broken = fake("broken", () => ({ sandboxError: "harness: the worker did not start (exit 121)" }));
    expect(await selfTest(broken, "python", "assert", DEFAULT_LIMITS)).toBe(
      "sandbox self-test (fake, python assert: a trivial program) failed: harness: the worker did not start (exit 121)",
    );
    const zero = fake("zero", () => ({
      statuses: ["runtime_error"],
      messages: new Map([[0, "exit 1"]]),
      stderr: "boom",
    }));
    expect(await selfTest(zero, "javascript", "stdio", DEFAULT_LIMITS)).toBe(
      "sandbox self-test (fake, javascript stdio: a trivial program) got [runtime_error] where a working host gives [pass]: exit 1; stderr: boom",
    );
    const throws: SandboxBackend = { name: "throws", run: () => Promise.reject(new Error("no socket")) };
    expect(await selfTest(throws, "python", "call", DEFAULT_LIMITS)).toMatch(/failed: no socket$/);
  });

  it("runs once per backend, language, kind and limits; a failure is tried again after SELF_TEST_RETRY_MS", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    let broken = true;
    const b = fake("retry", (kind) =>
      broken ? { sandboxError: "down" } : { statuses: kind === "call" ? ["pass", "runtime_error", "pass"] : ["pass"] },
    );
    const first = await Promise.all([1, 2, 3].map(() => selfTest(b, "python", "stdio", DEFAULT_LIMITS)));
    expect(first.every((r) => r?.endsWith("failed: down"))).toBe(true);
    expect(b.runs).toBe(1); // concurrent first uses share one run
    expect(await selfTest(b, "python", "stdio", DEFAULT_LIMITS)).toMatch(/down/);
    expect(b.runs).toBe(1);
    broken = false;
    vi.setSystemTime(Date.now() + SELF_TEST_RETRY_MS + 1);
    expect(await selfTest(b, "python", "stdio", DEFAULT_LIMITS)).toBeUndefined();
    expect(b.runs).toBe(2);
    vi.setSystemTime(Date.now() + 10 * SELF_TEST_RETRY_MS);
    expect(await selfTest(b, "python", "stdio", DEFAULT_LIMITS)).toBeUndefined(); // a pass stands for good
    expect(b.runs).toBe(2);
    expect(await selfTest(b, "python", "call", DEFAULT_LIMITS)).toBeUndefined(); // another kind: its own run
    expect(await selfTest(b, "python", "stdio", { ...DEFAULT_LIMITS, memoryMb: 256 })).toBeUndefined(); // other limits
    expect(b.runs).toBe(4);
  });
});
