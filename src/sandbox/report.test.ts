import { describe, expect, it } from "vitest";
import type { ProcessEnd } from "./report.js";
import { parseReport } from "./report.js";

const end = (stdout: string, more: Partial<ProcessEnd> = {}): ProcessEnd => ({
  stdout,
  stderr: "",
  timedOut: false,
  exitCode: 0,
  signal: null,
  wallMs: 5,
  ...more,
});

describe("parseReport", () => {
  it("reads one status per test and ignores lines without the nonce", () => {
    const r = parseReport(
      "N",
      end(
        'N {"ready": 3}\nN {"t": 0, "s": "pass"}\nX {"t": 1, "s": "pass"}\nN {"t": 1, "s": "fail", "m": "got 2"}\nN {"t": 2, "s": "pass"}\nN {"done": true}\n',
      ),
    );
    expect(r.statuses).toEqual(["pass", "fail", "pass"]);
    expect(r.messages.get(1)).toBe("got 2");
    expect(r.sandboxError).toBeUndefined();
  });
  it("first report of a test wins (a program cannot overwrite one)", () => {
    const r = parseReport("N", end('N {"ready": 1}\nN {"t": 0, "s": "fail"}\nN {"t": 0, "s": "pass"}\n'));
    expect(r.statuses).toEqual(["fail"]);
  });
  it("tests without a line: timeout at the deadline, memory_limit on out-of-memory, runtime_error on early exit", () => {
    const head = 'N {"ready": 2}\nN {"started": true}\nN {"t": 0, "s": "pass"}\n';
    expect(parseReport("N", end(head, { timedOut: true, exitCode: null, signal: "SIGKILL" })).statuses).toEqual([
      "pass",
      "timeout",
    ]);
    expect(parseReport("N", end(head, { exitCode: 1, stderr: "MemoryError" })).statuses).toEqual([
      "pass",
      "memory_limit",
    ]);
    expect(parseReport("N", end(head, { exitCode: null, signal: "SIGXCPU" })).statuses).toEqual(["pass", "timeout"]);
    const early = parseReport("N", end(head, { exitCode: 3 }));
    expect(early.statuses).toEqual(["pass", "runtime_error"]);
    expect(early.endedBy).toMatch(/early/);
  });
  it("no started line (the judge never sent the program anywhere): the sandbox failed, whatever else happened", () => {
    for (const more of [{ exitCode: 0 }, { exitCode: null, signal: "SIGKILL" as const }, { timedOut: true }]) {
      const r = parseReport(
        "N",
        end('N {"ready": 3}\n', { ...more, stderr: "rewardkit harness: the worker could not start" }),
      );
      expect(r.statuses).toEqual([]);
      expect(r.sandboxError).toMatch(/before the program started.*could not start/);
    }
    // tests the judge decided without the program (a reference it cannot read) are reported as they are
    expect(
      parseReport("N", end('N {"ready": 1}\nN {"t": 0, "s": "sandbox_error", "m": "bad test"}\n')).statuses,
    ).toEqual(["sandbox_error"]);
  });
  it("fatal: a sandbox error before the program started, the program's early end after", () => {
    const before = parseReport("N", end('N {"ready": 2}\nN {"fatal": "the worker did not start (exit 121)"}\n'));
    expect(before.sandboxError).toBe("harness: the worker did not start (exit 121)");
    expect(before.statuses).toEqual([]);
    const after = parseReport(
      "N",
      end('N {"ready": 2}\nN {"started": true}\nN {"t": 0, "s": "pass"}\nN {"fatal": "judge: MemoryError: "}\n'),
    );
    expect(after.sandboxError).toBeUndefined();
    expect(after.statuses).toEqual(["pass", "memory_limit"]);
    expect(after.endedBy).toMatch(/judge failed after the program started/);
    const crash = parseReport("N", end('N {"ready": 1}\nN {"started": true}\nN {"fatal": "judge: KeyError: x"}\n'));
    expect(crash.statuses).toEqual(["runtime_error"]);
  });
  it("a started line without the nonce does not count (only the judge holds it)", () => {
    const r = parseReport("N", end('N {"ready": 1}\nX {"started": true}\n{"started": true}\n', { exitCode: 1 }));
    expect(r.sandboxError).toMatch(/before the program started/);
  });
  it("no ready line: the sandbox itself failed", () => {
    const r = parseReport("N", end("", { exitCode: 1, stderr: "bwrap: No permissions to create new namespace" }));
    expect(r.statuses).toEqual([]);
    expect(r.sandboxError).toMatch(/namespace/);
  });
});
