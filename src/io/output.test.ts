import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { OutputSet } from "./output.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const scratch = (): string => {
  const d = mkdtempSync(join(tmpdir(), "rewardkit-test-output-"));
  dirs.push(d);
  return d;
};

describe("OutputSet", () => {
  it("writes a regular file under a temporary name and renames it on commit", () => {
    const final = join(scratch(), "out.jsonl");
    writeFileSync(final, "old\n");
    const outputs = new OutputSet();
    const temp = outputs.reserve(final);
    expect(temp).not.toBe(final);
    writeFileSync(temp, "new\n");
    expect(readFileSync(final, "utf8")).toBe("old\n"); // untouched until commit
    outputs.commit();
    expect(readFileSync(final, "utf8")).toBe("new\n");
  });

  it("writes a device or a named pipe in place and never renames onto it (-o /dev/null as root)", () => {
    const outputs = new OutputSet();
    expect(outputs.reserve("/dev/null")).toBe("/dev/null");
    const fifo = join(scratch(), "pipe");
    const made = spawnSync("mkfifo", [fifo]);
    if (made.status === 0) expect(outputs.reserve(fifo)).toBe(fifo);
    outputs.commit();
    expect(statSync("/dev/null").isCharacterDevice()).toBe(true);
    if (made.status === 0) expect(statSync(fifo).isFIFO()).toBe(true);
    expect(outputs.paths).toEqual([]);
  });
});

describe("state files on a device or pipe", () => {
  it("writeStateAtomic writes a named pipe in place (a reader gets the state) and reads a device as no state", async () => {
    const { readStateObject, writeStateAtomic } = await import("./state-file.js");
    expect(readStateObject("/dev/null", "--state /dev/null")).toBeUndefined();
    const fifo = join(scratch(), "state-pipe");
    if (spawnSync("mkfifo", [fifo]).status !== 0) return; // no mkfifo here: the /dev/null case above still ran
    const { spawn } = await import("node:child_process");
    const reader = spawn("cat", [fifo]);
    let got = "";
    reader.stdout.on("data", (d: Buffer) => (got += d.toString()));
    const done = new Promise((resolve) => reader.once("close", resolve));
    writeStateAtomic(fifo, { version: 1, step: 7 });
    await done;
    expect(JSON.parse(got)).toEqual({ version: 1, step: 7 });
    expect(statSync(fifo).isFIFO()).toBe(true);
  });
});
