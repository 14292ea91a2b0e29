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
    const head = 'N {"ready": 2}\nN {"t": 0, "s": "pass"}\n';
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
  it("no ready line: the sandbox itself failed", () => {
    const r = parseReport("N", end("", { exitCode: 1, stderr: "bwrap: No permissions to create new namespace" }));
    expect(r.statuses).toEqual([]);
    expect(r.sandboxError).toMatch(/namespace/);
  });
});
