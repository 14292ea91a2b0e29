/**
 * Fault injection, CLI side (`rewardkit score`; red-team review 2, F9, F12, F13 and the low findings). Each case
 * failed before the hardening: a stack trace, a lost batch, a merged group, a silent repair, or stale and partial
 * outputs after a signal.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { ROOT, cli, readJsonl, tmp } from "../helpers.js";

const SPEC = "name: exact\ncomponents:\n  - name: accuracy\n    type: exact\n";
const rows = Array.from({ length: 400 }, (_, i) => ({
  id: `r${i}`,
  group: `g${Math.floor(i / 4)}`,
  completion: String(i % 2),
  reference: "1",
}));
const jsonl = (rs: readonly object[]): string => rs.map((r) => JSON.stringify(r) + "\n").join("");
const STACK = /^\s+at .+:\d+:\d+\)?\s*$/m; // a JavaScript stack frame

function setup(): { dir: string; spec: string } {
  const dir = tmp();
  writeFileSync(join(dir, "exact.yaml"), SPEC);
  return { dir, spec: join(dir, "exact.yaml") };
}
const summaryOf = (path: string): { count: number; malformed: number; warnings?: string[] } =>
  JSON.parse(readFileSync(path, "utf8"));

describe("input faults are counted skips with file:line, or a clear exit 1, never a stack trace", () => {
  it("a truncated .gz: the records before the break are scored, the break is one counted skip", () => {
    const { dir, spec } = setup();
    const gz = gzipSync(jsonl(rows));
    const input = join(dir, "trunc.jsonl.gz");
    writeFileSync(input, gz.subarray(0, Math.floor(gz.length / 2)));
    writeFileSync(join(dir, "out.jsonl"), "STALE\n");
    const r = cli([
      "score",
      input,
      "--spec",
      spec,
      "-o",
      join(dir, "out.jsonl"),
      "--summary",
      join(dir, "s.json"),
      "-q",
    ]);
    expect(r.stderr).not.toMatch(STACK);
    expect(r.code).toBe(0);
    const ids = readJsonl<{ id: string }>(join(dir, "out.jsonl")).map((x) => x.id);
    expect(ids.length).toBeGreaterThan(10);
    expect(ids).toEqual(rows.slice(0, ids.length).map((x) => x.id)); // exactly the readable prefix, in order
    expect(summaryOf(join(dir, "s.json")).malformed).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`trunc\\.jsonl\\.gz:${ids.length + 1}: the gzip data breaks off here`));
  });

  it("a .gz that is not gzip: exit 1 with one clear line, the previous -o untouched", () => {
    const { dir, spec } = setup();
    const input = join(dir, "plain.jsonl.gz");
    writeFileSync(input, jsonl(rows.slice(0, 3)));
    writeFileSync(join(dir, "out.jsonl"), "STALE\n");
    const r = cli(["score", input, "--spec", spec, "-o", join(dir, "out.jsonl"), "-q"]);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(STACK);
    expect(r.stderr).toContain("plain.jsonl.gz: not readable as gzip (incorrect header check)");
    expect(readFileSync(join(dir, "out.jsonl"), "utf8")).toBe("STALE\n");
    expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("a UTF-8 byte order mark keeps the first record", () => {
    const { dir, spec } = setup();
    const input = join(dir, "bom.jsonl");
    writeFileSync(input, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(jsonl(rows.slice(0, 3)))]));
    const r = cli(["score", input, "--spec", spec, "-o", join(dir, "out.jsonl"), "-q"]);
    expect(r.code).toBe(0);
    expect(readJsonl<{ id: string }>(join(dir, "out.jsonl")).map((x) => x.id)).toEqual(["r0", "r1", "r2"]);
  });

  it("a bare CR, a raw NUL and invalid UTF-8 each cost only their own line; line numbers stay right", () => {
    const { dir, spec } = setup();
    const input = join(dir, "faults.jsonl");
    const lines = [
      Buffer.from(JSON.stringify(rows[0])),
      Buffer.from('{"id": "cr",\r "group": "g", "completion": "1", "reference": "1"}'), // CR as JSON whitespace: a record
      Buffer.from('{"id": "nul", "group": "g", "completion": "1\u0000", "reference": "1"}'), // raw NUL in a string
      Buffer.concat([
        Buffer.from('{"id": "badutf8", "group": "g", "completion": "'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('1", "reference": "1"}'),
      ]),
      Buffer.from('{"id": "crlf", "group": "g", "completion": "1", "reference": "1"}\r'), // CRLF line end
      Buffer.from(JSON.stringify(rows[1])),
    ];
    writeFileSync(input, Buffer.concat(lines.flatMap((l) => [l, Buffer.from("\n")])));
    const r = cli([
      "score",
      input,
      "--spec",
      spec,
      "-o",
      join(dir, "out.jsonl"),
      "--summary",
      join(dir, "s.json"),
      "-q",
    ]);
    expect(r.code).toBe(0);
    expect(readJsonl<{ id: string }>(join(dir, "out.jsonl")).map((x) => x.id)).toEqual(["r0", "cr", "crlf", "r1"]);
    expect(summaryOf(join(dir, "s.json")).malformed).toBe(2);
    expect(r.stderr).toContain("faults.jsonl:3: invalid JSON: Bad control character");
    expect(r.stderr).toContain("faults.jsonl:4: not valid UTF-8");
  });

  it("a line longer than --max-line-mb is a counted skip; it is never held whole", () => {
    const { dir, spec } = setup();
    const input = join(dir, "long.jsonl");
    const long = JSON.stringify({ id: "long", group: "g", completion: "x".repeat(3 * 1024 * 1024), reference: "1" });
    writeFileSync(input, jsonl([rows[0]!]) + long + "\n" + jsonl([rows[1]!]));
    const r = cli([
      "score",
      input,
      "--spec",
      spec,
      "--max-line-mb",
      "1",
      "-o",
      join(dir, "out.jsonl"),
      "--summary",
      join(dir, "s.json"),
      "-q",
    ]);
    expect(r.code).toBe(0);
    expect(readJsonl<{ id: string }>(join(dir, "out.jsonl")).map((x) => x.id)).toEqual(["r0", "r1"]);
    expect(summaryOf(join(dir, "s.json")).malformed).toBe(1);
    expect(r.stderr).toContain("long.jsonl:2: line longer than 1048576 bytes");
  });

  it("a record nested 100 000 levels deep is a counted skip naming its field; the others are scored", () => {
    const { dir, spec } = setup();
    const input = join(dir, "deep.jsonl");
    const d = 100_000;
    writeFileSync(
      input,
      jsonl([rows[0]!]) +
        `{"id": "deep", "completion": "1", "reference": "1", "prompt": ${'{"a":'.repeat(d)}1${"}".repeat(d)}}\n` +
        jsonl([rows[1]!]),
    );
    const r = cli([
      "score",
      input,
      "--spec",
      spec,
      "-o",
      join(dir, "out.jsonl"),
      "--summary",
      join(dir, "s.json"),
      "-q",
    ]);
    expect(r.stderr).not.toMatch(STACK);
    expect(r.code).toBe(0);
    expect(readJsonl<{ id: string }>(join(dir, "out.jsonl")).map((x) => x.id)).toEqual(["r0", "r1"]);
    expect(summaryOf(join(dir, "s.json")).malformed).toBe(1);
    expect(r.stderr).toContain("deep.jsonl:2 prompt: nested deeper than 256 levels");
  });

  it("numeric group ids above 2^53 keep their digits and stay two groups", () => {
    const { dir, spec } = setup();
    const input = join(dir, "big.jsonl");
    const lines = [
      ["a1", "9007199254740993", "1"],
      ["a2", "9007199254740993", "0"],
      ["b1", "9007199254740992", "1"],
      ["b2", "9007199254740992", "1"],
    ];
    writeFileSync(
      input,
      lines.map(([id, g, c]) => `{"id": "${id}", "group": ${g}, "completion": "${c}", "reference": "1"}\n`).join(""),
    );
    const r = cli(["score", input, "--spec", spec, "-o", join(dir, "out.jsonl"), "-q"]);
    expect(r.code).toBe(0);
    const out = Object.fromEntries(
      readJsonl<{ id: string; group: unknown; advantage: number }>(join(dir, "out.jsonl")).map((x) => [x.id, x]),
    );
    expect(out.a1!.group).toBe("9007199254740993");
    expect(out.b1!.group).toBe("9007199254740992");
    // a1/a2 are one group with rewards 1, 0; b1/b2 one with 1, 1 (zero advantage): merged they would be 1, 0, 1, 1
    expect(out.a1!.advantage).toBeGreaterThan(0);
    expect(out.a2!.advantage).toBeLessThan(0);
    expect(out.b1!.advantage).toBe(0);
  });

  it("an empty input warns", () => {
    const { dir, spec } = setup();
    writeFileSync(join(dir, "empty.jsonl"), "\n\n");
    const r = cli(["score", join(dir, "empty.jsonl"), "--spec", spec, "-o", join(dir, "out.jsonl"), "-q"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("warning: ");
    expect(r.stderr).toContain("empty.jsonl: the input has no records");
  });
});

describe("outputs", () => {
  it("-o out.jsonl.gz writes gzip", () => {
    const { dir, spec } = setup();
    writeFileSync(join(dir, "in.jsonl"), jsonl(rows.slice(0, 5)));
    const r = cli(["score", join(dir, "in.jsonl"), "--spec", spec, "-o", join(dir, "out.jsonl.gz"), "-q"]);
    expect(r.code).toBe(0);
    const bytes = readFileSync(join(dir, "out.jsonl.gz"));
    expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);
    expect(
      gunzipSync(bytes)
        .toString()
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as { id: string }).id),
    ).toEqual(["r0", "r1", "r2", "r3", "r4"]);
  });

  it("a run that fails (no line could be scored) leaves the previous -o and --summary as they were, and no temporary file", () => {
    const { dir, spec } = setup();
    writeFileSync(join(dir, "in.jsonl"), "not json\n[1]\n");
    writeFileSync(join(dir, "out.jsonl"), "STALE\n");
    writeFileSync(join(dir, "s.json"), "{}\n");
    const r = cli([
      "score",
      join(dir, "in.jsonl"),
      "--spec",
      spec,
      "-o",
      join(dir, "out.jsonl"),
      "--summary",
      join(dir, "s.json"),
      "-q",
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("no rollout could be scored");
    expect(r.stderr).toContain("left as they were");
    expect(readFileSync(join(dir, "out.jsonl"), "utf8")).toBe("STALE\n");
    expect(readFileSync(join(dir, "s.json"), "utf8")).toBe("{}\n");
    expect(readdirSync(dir).sort()).toEqual(["exact.yaml", "in.jsonl", "out.jsonl", "s.json"]);
  });

  it("so does a --strict run stopped by a malformed line", () => {
    const { dir, spec } = setup();
    writeFileSync(join(dir, "in.jsonl"), jsonl(rows.slice(0, 5)) + "not json\n");
    writeFileSync(join(dir, "out.jsonl"), "STALE\n");
    writeFileSync(join(dir, "s.json"), "{}\n");
    const r = cli([
      "score",
      join(dir, "in.jsonl"),
      "--spec",
      spec,
      "--strict",
      "-o",
      join(dir, "out.jsonl"),
      "--summary",
      join(dir, "s.json"),
      "-q",
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("in.jsonl:6");
    expect(readFileSync(join(dir, "out.jsonl"), "utf8")).toBe("STALE\n");
    expect(readFileSync(join(dir, "s.json"), "utf8")).toBe("{}\n");
    expect(readdirSync(dir).sort()).toEqual(["exact.yaml", "in.jsonl", "out.jsonl", "s.json"]);
  });
});

describe("SIGINT / SIGTERM", () => {
  // every rollout runs into a 200 ms regex deadline: the run takes seconds, so the signal lands mid-run
  const SLOW = 'name: slow\ncomponents:\n  - name: slow\n    type: regex\n    pattern: "^(a+)+$"\n    timeoutMs: 200\n';
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const) {
    it(`${signal} mid-run: exit ${code}, -o and --summary as they were, the spill removed, said on stderr`, async () => {
      const dir = tmp();
      const tmpdir = join(dir, "tmp");
      writeFileSync(join(dir, "slow.yaml"), SLOW);
      writeFileSync(
        join(dir, "in.jsonl"),
        jsonl(Array.from({ length: 200 }, (_, i) => ({ id: `s${i}`, group: "g", completion: "a".repeat(40) + "b" }))),
      );
      writeFileSync(join(dir, "out.jsonl"), "STALE\n");
      writeFileSync(join(dir, "s.json"), "{}\n");
      mkdirSync(tmpdir);
      const child = spawn(
        process.execPath,
        [
          join(ROOT, "bin/rewardkit.js"),
          "score",
          join(dir, "in.jsonl"),
          "--spec",
          join(dir, "slow.yaml"),
          "--concurrency",
          "1",
          "-o",
          join(dir, "out.jsonl"),
          "--summary",
          join(dir, "s.json"),
          "-q",
        ],
        {
          cwd: ROOT,
          env: { ...process.env, TMPDIR: tmpdir },
          stdio: ["ignore", "ignore", "pipe"],
        },
      );
      let err = "";
      child.stderr.on("data", (d: Buffer) => (err += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
      // wait until pass one has spilled (the run is under way), then signal
      for (
        let i = 0;
        i < 600 && !(existsSync(tmpdir) && readdirSync(tmpdir).some((f) => existsSync(join(tmpdir, f, "spill.jsonl"))));
        i++
      )
        await new Promise((r) => setTimeout(r, 50));
      child.kill(signal);
      expect(await exited).toBe(code);
      expect(readFileSync(join(dir, "out.jsonl"), "utf8")).toBe("STALE\n");
      expect(readFileSync(join(dir, "s.json"), "utf8")).toBe("{}\n");
      expect(readdirSync(tmpdir)).toEqual([]);
      expect(readdirSync(dir).sort()).toEqual(["in.jsonl", "out.jsonl", "s.json", "slow.yaml", "tmp"]);
      expect(err).toContain(`interrupted by ${signal}`);
      expect(err).toContain("left as they were");
    });
  }
});
