/**
 * Fault injection at the unit level: the JSONL reader (`src/io/jsonl.ts`), the depth check (`src/io/depth.ts`)
 * and the exact big-integer ids (`src/io/precise.ts`).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { UserError } from "../../src/core/errors.js";
import { tooDeep } from "../../src/io/depth.js";
import { readLines } from "../../src/io/jsonl.js";
import { preciseElements, preciseMembers } from "../../src/io/precise.js";
import { toRollout } from "../../src/io/rollout.js";
import { tmp } from "../helpers.js";

async function read(
  bytes: Buffer,
  name = "in.jsonl",
  maxLineBytes?: number,
): Promise<{ lines: Array<[number, string]>; problems: Array<[number, string]> }> {
  const path = join(tmp(), name);
  writeFileSync(path, bytes);
  const lines: Array<[number, string]> = [];
  const problems: Array<[number, string]> = [];
  for await (const l of readLines(path, {
    onProblem: (line, m) => problems.push([line, m]),
    ...(maxLineBytes ? { maxLineBytes } : {}),
  }))
    lines.push([l.line, l.text]);
  return { lines, problems };
}

describe("readLines", () => {
  it("splits on \\n only: a bare CR stays in its line, CRLF loses its CR, line numbers count every \\n", async () => {
    const r = await read(Buffer.from("a\rb\nc\r\n\n  \nd"));
    expect(r.lines).toEqual([
      [1, "a\rb"],
      [2, "c"],
      [5, "d"],
    ]);
    expect(r.problems).toEqual([]);
  });

  it("drops a BOM at the start only", async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const r = await read(Buffer.concat([bom, Buffer.from("x\n"), bom, Buffer.from("y\n")]));
    expect(r.lines).toEqual([
      [1, "x"],
      [2, "\ufeffy"],
    ]);
  });

  it("invalid UTF-8 and over-long lines are problems at their line; the lines around them are read", async () => {
    const r = await read(
      Buffer.concat([
        Buffer.from("ok1\n"),
        Buffer.from([0x61, 0xc3, 0x28, 0x0a]),
        Buffer.from("z".repeat(5000) + "\nok2\n"),
      ]),
      "in.jsonl",
      1000,
    );
    expect(r.lines).toEqual([
      [1, "ok1"],
      [4, "ok2"],
    ]);
    expect(r.problems.map(([l, m]) => [l, m.split(" ")[0]])).toEqual([
      [2, "not"],
      [3, "line"],
    ]);
  });

  it("without onProblem a bad line is a UserError naming file:line", async () => {
    const path = join(tmp(), "bad.jsonl");
    writeFileSync(path, Buffer.from([0x7b, 0xff, 0x7d, 0x0a]));
    const it = readLines(path);
    await expect(it.next()).rejects.toThrow(UserError);
    await expect(readLines(path).next()).rejects.toThrow(/bad\.jsonl:1: not valid UTF-8/);
  });

  it("a gzip stream cut at a line boundary: every whole line, then one problem", async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `{"i": ${i}}`).join("\n") + "\n";
    const gz = gzipSync(lines);
    const r = await read(gz.subarray(0, gz.length - 8), "in.jsonl.gz"); // the trailer (CRC, size) is missing
    expect(r.lines.length).toBe(3000);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]![0]).toBe(3001);
  });
});

describe("tooDeep", () => {
  it("finds the first container past the limit without recursion", () => {
    let v: unknown = 1;
    for (let i = 0; i < 100_000; i++) v = { a: v };
    expect(tooDeep({ id: 1, prompt: v }, 256)?.slice(0, 3)).toEqual(["prompt", "a", "a"]);
    expect(tooDeep({ m: [[[1]]] }, 4)).toBeUndefined();
    expect(tooDeep({ m: [[[[1]]]] }, 4)).toEqual(["m", 0, 0, 0]);
  });

  it("toRollout names the field", () => {
    let v: unknown = "x";
    for (let i = 0; i < 1000; i++) v = [v];
    const r = toRollout({ group: "g", completion: "c", metadata: v }, 1, {});
    expect(r).toMatchObject({ problem: { field: "metadata" } });
  });
});

describe("precise ids", () => {
  it("keeps the digits of integers beyond 2^53 in id and group, leaves the rest alone", () => {
    const text =
      '{"id": 12345678901234567890, "group": 9007199254740993, "n": 9007199254740993, "s": "9007199254740993"}';
    expect(preciseMembers(JSON.parse(text), text)).toEqual({
      id: "12345678901234567890",
      group: "9007199254740993",
      n: 9007199254740992,
      s: "9007199254740993",
    });
    const small = '{"id": 7, "group": 1.5}';
    expect(preciseMembers(JSON.parse(small), small)).toEqual({ id: 7, group: 1.5 });
  });

  it("in a request body, per rollout, past strings with braces and escaped quotes", () => {
    const text =
      '{"x": {"rollouts": 1}, "rollouts": [{"id": "a}\\"", "group": 9007199254740993}, {"group": [1, {"a": 2}]}, {"group": -9007199254740995}]}';
    const body = JSON.parse(text) as { rollouts: Array<{ group: unknown }> };
    preciseElements(body, text);
    expect(body.rollouts.map((r) => r.group)).toEqual(["9007199254740993", [1, { a: 2 }], "-9007199254740995"]);
  });
});
